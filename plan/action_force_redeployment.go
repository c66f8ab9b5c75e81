package plan

import (
	"fmt"
	"slices"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
)

// force-redeployment (W7, the second incident): set a new
// spec.forceRedeploymentReason on a static-pod operator so that it rolls a new
// revision onto every control-plane node; a static-pods gate with a
// minRevision above the snapshot's latest follows. The admin's promise:
// --accept force-redeployment:<component>. The planner's half is
// remedy_staticpod.go.
func init() {
	register(&ActionSpec{
		Action:     ActionForceRedeployment,
		Changes:    "a static-pod operator's spec.forceRedeploymentReason (a new revision rolls onto every control-plane node)",
		Mutates:    true,
		Remedy:     true,
		RevertHint: "none needed: the reason is a label for the rollout; a new revision is rolled, never undone",
		Accept:     AcceptForceRedeployment,
		AcceptForm: AcceptForceRedeployment + "<kube-apiserver|etcd|kube-controller-manager|kube-scheduler>",
		Gates:      []GateKind{GateStaticPods},
		Fields:     [][]string{{"spec", openshift.FieldForceRedeploymentReason}},
		idWords: func(st *Step) []string {
			if sp := staticPodFor(st.Change.Object.Kind); sp != nil {
				return []string{sp.Component}
			}
			return nil
		},
		acceptName: func(st *Step) string {
			if st.Change != nil {
				if sp := staticPodFor(st.Change.Object.Kind); sp != nil {
					return AcceptForceRedeployment + sp.Component
				}
			}
			return AcceptForceRedeployment + "?"
		},
		acceptSubject: func(c string) string {
			for _, sp := range inspect.StaticPodComponents {
				if sp.Component == c {
					return ""
				}
			}
			return fmt.Sprintf("%q is not a static-pod component", c)
		},
		validate: func(p *Plan, i int, at problemFunc) { validateChange(&p.Steps[i], at) },
		check: func(m *model, i int, st *Step) error {
			if st.Change == nil {
				return m.fail(i, InvariantRemedies, "%s without a change (object, patch and fields)", st.Action)
			}
			sp := staticPodFor(st.Change.Object.Kind)
			if sp == nil {
				return m.fail(i, InvariantRemedies, "force-redeployment of a %s, which is no static-pod operator", st.Change.Object.Kind)
			}
			if fs := st.Change.Fields; len(fs) != 1 || !slices.Equal(fs[0], []string{"spec", openshift.FieldForceRedeploymentReason}) {
				return m.fail(i, InvariantRemedies, "force-redeployment must set spec.%s only", openshift.FieldForceRedeploymentReason)
			}
			latest := int32(0)
			if op := m.s.StaticPodOperator(sp.Component); op != nil {
				latest = op.LatestAvailableRevision
			}
			if g := st.Gate; g == nil || g.Kind != GateStaticPods || g.StaticPods == nil || g.StaticPods.Resource != sp.Resource.Resource || g.StaticPods.MinRevision <= latest {
				return m.fail(i, InvariantGates, "force-redeployment needs a %s gate on %s with minRevision above the snapshot's latest revision %d", GateStaticPods, sp.Resource.Resource, latest)
			}
			return nil
		},
		note: changeVerbNote("forces a new revision of"),
		hand: changeHand,
	})
}

// staticPodFor returns the static-pod component whose operator is of kind.
func staticPodFor(kind string) *inspect.StaticPodComponent {
	for i := range inspect.StaticPodComponents {
		if inspect.StaticPodComponents[i].Resource.Kind == kind {
			return &inspect.StaticPodComponents[i]
		}
	}
	return nil
}
