package plan

import "github.com/openshift-recover/recover/internal/nextcmd"

// pause-pool: pause a MachineConfigPool so that its kubelets do not get ahead
// of the kube-apiserver; the plan's unpause-pool undoes it.
func init() {
	register(&ActionSpec{
		Action:       ActionPausePool,
		Changes:      "MachineConfigPool spec.paused to true",
		Mutates:      true,
		RevertedWith: ActionUnpausePool,
		PausesPool:   true,
		validate: func(p *Plan, i int, at problemFunc) {
			if p.Steps[i].Pool == "" {
				at("pause-pool needs pool")
			}
		},
		check: func(m *model, i int, st *Step) error {
			pm := m.pools[st.Pool]
			switch {
			case pm == nil:
				return m.fail(i, InvariantPools, "pool %s is not in the snapshot", st.Pool)
			case pm.paused:
				return m.fail(i, InvariantPools, "pool %s is already paused", st.Pool)
			}
			pm.paused, pm.byPlan = true, true
			return nil
		},
		hand: func(_ *Plan, st *Step) string { return nextcmd.PausePool(st.Pool, true) },
	})
}
