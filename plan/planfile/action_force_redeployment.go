package planfile

import (
	"fmt"

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
		IDWords: func(st *Step) []string {
			if sp := StaticPodFor(st.Change.Object.Kind); sp != nil {
				return []string{sp.Component}
			}
			return nil
		},
		acceptName: func(st *Step) string {
			if st.Change != nil {
				if sp := StaticPodFor(st.Change.Object.Kind); sp != nil {
					return AcceptForceRedeployment + sp.Component
				}
			}
			return AcceptForceRedeployment + "?"
		},
		AcceptSubject: func(c string) string {
			for _, sp := range inspect.StaticPodComponents {
				if sp.Component == c {
					return ""
				}
			}
			return fmt.Sprintf("%q is not a static-pod component", c)
		},
		validate: func(p *Plan, i int, at problemFunc) { validateChange(&p.Steps[i], at) },
		note:     changeVerbNote("forces a new revision of"),
		hand:     changeHand,
	})
}

// staticPodFor returns the static-pod component whose operator is of kind.
func StaticPodFor(kind string) *inspect.StaticPodComponent {
	for i := range inspect.StaticPodComponents {
		if inspect.StaticPodComponents[i].Resource.Kind == kind {
			return &inspect.StaticPodComponents[i]
		}
	}
	return nil
}
