package gate

import (
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
)

// nodeFromAPI reduces a Node with inspect's converter, and fills the snapshot
// 1.1 fields the converter leaves empty until inspect's collect work adds them
// (the drain annotations, the Ready reason): the predicates need them.
func nodeFromAPI(n *corev1.Node) inspect.Node {
	out := inspect.NodeFromAPI(n)
	if out.DesiredDrain == "" && out.LastAppliedDrain == "" {
		out.DesiredDrain = n.Annotations[openshift.AnnotationDesiredDrain]
		out.LastAppliedDrain = n.Annotations[openshift.AnnotationLastAppliedDrain]
	}
	if out.ReadyMessage == "" && out.Ready != string(corev1.ConditionTrue) {
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady {
				out.ReadyReason, out.ReadyMessage = c.Reason, c.Message
			}
		}
	}
	return out
}

// poolFromAPI reduces a MachineConfigPool with inspect's converter, filling
// the generations (snapshot 1.1) when the converter leaves them empty.
func poolFromAPI(p *mcfgv1.MachineConfigPool) inspect.MachineConfigPool {
	out := inspect.MachineConfigPoolFromAPI(p)
	if out.Generation == 0 && out.ObservedGeneration == 0 {
		out.Generation, out.ObservedGeneration = p.Generation, p.Status.ObservedGeneration
	}
	return out
}
