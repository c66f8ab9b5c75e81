package planfile

import "github.com/openshift-recover/recover/internal/nextcmd"

// disable-cvo: scale the cluster-version operator to 0 so that it does not
// fight the plan's changes; apply journals its replicas first. restore-cvo
// scales it back.
func init() {
	register(&ActionSpec{
		Action:       ActionDisableCVO,
		Changes:      "Deployment openshift-cluster-version/cluster-version-operator spec.replicas to 0 (the replicas journaled first)",
		RevertedWith: ActionRestoreCVO,
		Gates:        []GateKind{GateCVOScaledDown},
		ImpliedGate:  GateCVOScaledDown,
		Object:       &CVODeploymentRef,
		StopsCVO:     true,
		NoSkip:       true,
		hand:         func(*Plan, *Step) string { return nextcmd.ScaleCVO(0) },
	})
}
