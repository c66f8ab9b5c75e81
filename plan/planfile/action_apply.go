package planfile

// apply: create or update one payload manifest with the CVO's semantics
// (create-only respected, the digest verified); the gate its kind needs
// follows (openshift.ManifestWaitFor).
func init() {
	register(&ActionSpec{
		Action:     ActionApply,
		Changes:    "the object of one embedded payload manifest (created, or updated as the CVO would)",
		Mutates:    true,
		CVOManages: true,
		RevertHint: "the next update or a rollback plan; recover does not undo a payload manifest",
		Gates:      []GateKind{GateClusterOperator, GateCRDEstablished, GateWorkloadRollout},
		validate: func(p *Plan, i int, at problemFunc) {
			validateManifest(&p.Steps[i], at)
		},
	})
}
