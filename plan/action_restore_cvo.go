package plan

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
		check: func(m *model, i int, st *Step) error {
			if !m.cvoDisabled {
				return m.fail(i, InvariantCVOBracketing, "restore-cvo without a disable-cvo before it")
			}
			if !m.desiredSet && m.p.EffectiveMode() == ModeUpdate {
				return m.fail(i, InvariantDesiredUpdate, "restore-cvo before set-desired-update: the CVO would resume its old work (%s mode)", m.p.Cluster.CVOMode)
			}
			if st.Gate == nil || st.Gate.Kind != GateCVORunning {
				return m.fail(i, InvariantGates, "restore-cvo must wait for %s", GateCVORunning)
			}
			m.cvoDisabled, m.restored = false, true
			return nil
		},
		hand: func(p *Plan, _ *Step) string { return nextcmd.RestoreCVO(p.Cluster.CVOReplicas) },
	})
}
