package planfile

import "github.com/openshift-recover/recover/internal/nextcmd"

// restore-cvo: scale the cluster-version operator back to the replicas
// disable-cvo journaled, handing the cluster back to it.
func init() {
	register(&ActionSpec{
		Action:      ActionRestoreCVO,
		Changes:     "Deployment openshift-cluster-version/cluster-version-operator spec.replicas back to the journaled replicas",
		Gates:       []GateKind{GateCVORunning},
		ImpliedGate: GateCVORunning,
		Object:      &CVODeploymentRef,
		RestartsCVO: true,
		NoSkip:      true,
		hand:        func(p *Plan, _ *Step) string { return nextcmd.RestoreCVO(p.Cluster.CVOReplicas) },
	})
}
