package planfile

import (
	"github.com/openshift-recover/recover/inspect"
)

// relax-pdb (W1): set a PodDisruptionBudget that holds a drain to
// minAvailable 0 (maxUnavailable dropped), temporarily: a nodes-settled wait
// follows, then the revert step writes back the pre-image apply journaled.
// Never a control-plane guard (inspect.IsGuardPDB). The planner's half is
// remedy_pdb.go.
func init() {
	register(&ActionSpec{
		Action:       ActionRelaxPDB,
		Changes:      "PodDisruptionBudget spec.minAvailable to 0 and spec.maxUnavailable removed",
		Mutates:      true,
		Remedy:       true,
		Temporary:    true,
		RevertedWith: ActionRevert,
		SettledBy:    GateNodesSettled,
		changed:      "relaxed",
		Fields:       [][]string{relaxMinAvailable, relaxMaxUnavailable},
		// "relax-pdb-<namespace>-<name>": the action's name says pdb already.
		IDWords: func(st *Step) []string { return []string{st.Change.Object.Namespace, st.Change.Object.Name} },
		validate: func(p *Plan, i int, at problemFunc) {
			s := &p.Steps[i]
			validateChange(s, at)
			if s.Change == nil {
				return
			}
			o := s.Change.Object
			if o.Kind != "PodDisruptionBudget" {
				at("relax-pdb changes %s %s, not a PodDisruptionBudget", o.Kind, o.Name)
			}
			if inspect.IsGuardPDB(o.Namespace, o.Name) {
				at("relax-pdb of %s/%s: a guard PodDisruptionBudget is never relaxed (it holds because a control-plane member is not ready: repair that member instead)", o.Namespace, o.Name)
			}
		},
		note: func(_ *Plan, st *Step) string {
			if st.Change == nil {
				return ""
			}
			n := "relaxes " + st.Change.Object.String()
			if st.RevertedBy != "" {
				n += " (restored by step " + StepNumber(st.RevertedBy) + ")"
			}
			return n
		},
		hand: changeHand,
	})
}

// The fields a relaxation sets.
var (
	relaxMinAvailable   = []string{"spec", "minAvailable"}
	relaxMaxUnavailable = []string{"spec", "maxUnavailable"}
)

// RelaxPDBChange is the change of a relax-pdb step, the one way to build it
// (the planner, the test builders): the budget ns/name (uid) set to
// minAvailable 0 with maxUnavailable dropped, from the bounds the snapshot
// shows ("2", "50%", "" for unset) as its before.
func RelaxPDBChange(ns, name, uid, minAvailable, maxUnavailable string) *Change {
	return NewChange(PDBRef(ns, name), uid,
		Field{Path: relaxMinAvailable, After: 0, Before: intOrString(minAvailable)},
		Field{Path: relaxMaxUnavailable, After: nil, Before: intOrString(maxUnavailable)})
}

// pdbRef names a PodDisruptionBudget.
func PDBRef(ns, name string) ObjectRef {
	return ObjectRef{APIVersion: "policy/v1", Kind: "PodDisruptionBudget", Namespace: ns, Name: name}
}
