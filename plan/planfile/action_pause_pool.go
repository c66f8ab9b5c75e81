package planfile

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
		hand: func(_ *Plan, st *Step) string { return nextcmd.PausePool(st.Pool, true) },
	})
}
