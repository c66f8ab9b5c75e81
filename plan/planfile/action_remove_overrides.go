package planfile

// remove-overrides: remove ClusterVersion spec.overrides, so that the CVO
// manages the overridden objects again; a condition-cleared wait follows. The
// admin's promise: --accept remove-overrides. The planner's half is
// remedy_promise.go.
func init() {
	register(&ActionSpec{
		Action:     ActionRemoveOverrides,
		Changes:    "ClusterVersion version spec.overrides removed",
		Mutates:    true,
		Remedy:     true,
		RevertHint: "lasting; the journal's pre-image holds the overrides, to set again by hand (recover journal prints the command)",
		Accept:     AcceptRemoveOverrides,
		AcceptForm: AcceptRemoveOverrides,
		Fields:     [][]string{{"spec", "overrides"}},
		acceptName: func(*Step) string { return AcceptRemoveOverrides },
		validate:   func(p *Plan, i int, at problemFunc) { validateChange(&p.Steps[i], at) },
		note:       changeVerbNote("removes spec.overrides of"),
		hand:       changeHand,
	})
}
