package planfile

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
		note: func(_ *Plan, st *Step) string {
			if st.Remedy == "" || st.Gate == nil {
				return ""
			}
			return "waits: " + string(st.Gate.Kind)
		},
	})
}
