package plan

// wait: change nothing; wait for the step's gate (a static-pod rollout, nodes
// settled after a drain, a condition the restored CVO clears).
func init() {
	register(&ActionSpec{
		Action:   ActionWait,
		Changes:  "nothing: it waits for its gate",
		WaitOnly: true,
		validate: func(p *Plan, i int, at problemFunc) {
			if p.Steps[i].Gate == nil {
				at("a wait step needs a gate")
			}
		},
		check: func(m *model, i int, st *Step) error {
			g := st.Gate
			if g == nil {
				return m.fail(i, InvariantGates, "a wait step without a gate")
			}
			switch g.Kind {
			case GateNodesSettled, GateNodesReady:
				if len(g.Nodes) == 0 {
					return m.fail(i, InvariantGates, "a %s gate without nodes", g.Kind)
				}
			case GateConditionCleared:
				if g.Object == nil || g.Condition == "" || g.Reason == "" {
					return m.fail(i, InvariantGates, "a %s gate needs its object, condition and reason", g.Kind)
				}
			}
			return nil
		},
		note: func(_ *Plan, st *Step) string {
			if st.Remedy == "" || st.Gate == nil {
				return ""
			}
			return "waits: " + string(st.Gate.Kind)
		},
	})
}
