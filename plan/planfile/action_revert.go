package planfile

// revert: write back, exactly, the fields a temporary change set, from the
// pre-image apply journaled just before that change (Step.Reverts names it);
// a restored gate verifies it. The engine also runs it on its own when a run
// stops early (revert-on-stop).
func init() {
	register(&ActionSpec{
		Action:  ActionRevert,
		Changes: "the fields the reverted step's change set, back to their journaled pre-image",
		Mutates: true,
		Remedy:  true,
		Gates:   []GateKind{GateRestored},
		Undoes:  true,
		NoSkip:  true,
		validate: func(p *Plan, i int, at problemFunc) {
			s := &p.Steps[i]
			if s.Reverts == "" {
				at("a revert step needs reverts (the step whose change it undoes)")
				return
			}
			j := p.stepIndex(s.Reverts)
			switch {
			case j < 0:
				at("reverts %q, a step the plan does not have", s.Reverts)
			case j > i:
				at("reverts step %s, which comes after it", s.Reverts)
			case p.Steps[j].Change == nil:
				at("reverts step %s, which changes no object", s.Reverts)
			case p.Steps[j].RevertedBy != s.ID:
				at("reverts step %s, whose revertedBy is %q, not this step", s.Reverts, p.Steps[j].RevertedBy)
			}
		},
		note: func(_ *Plan, st *Step) string {
			if st.Change == nil {
				return ""
			}
			return "restores " + st.Change.Object.String() + " as step " + StepNumber(st.Reverts) + " found it"
		},
		hand: changeHand,
	})
}
