package planfile

import "github.com/openshift-recover/recover/internal/nextcmd"

// unpause-pool: unpause a MachineConfigPool the plan paused, or, as the
// unpause-pool remedy (W11), one the user paused whose pause blocks the update
// (then a Change of spec.paused, journaled, and a pool-updated gate).
func init() {
	register(&ActionSpec{
		Action:     ActionUnpausePool,
		Changes:    "MachineConfigPool spec.paused to false",
		Mutates:    true,
		RevertHint: "the remedy is lasting: pause the pool again by hand (oc patch machineconfigpool <pool> --type merge -p '{\"spec\":{\"paused\":true}}') if wanted",
		Gates:      []GateKind{GatePoolUpdated},
		Fields:     [][]string{{"spec", "paused"}},
		validate: func(p *Plan, i int, at problemFunc) {
			s := &p.Steps[i]
			if s.Pool == "" && s.Change == nil {
				at("unpause-pool needs pool")
			}
			if s.Change != nil {
				validateChange(s, at)
				if o := s.Change.Object; s.Pool != "" && (o.Kind != "MachineConfigPool" || o.Name != s.Pool) {
					at("unpause-pool of pool %s changes %s %s", s.Pool, o.Kind, o.Name)
				}
			}
		},
		note: func(_ *Plan, st *Step) string {
			if st.Remedy == "" {
				return ""
			}
			return "unpauses pool " + st.Pool + " (paused by the user; the pause blocks)"
		},
		hand: func(_ *Plan, st *Step) string { return nextcmd.PausePool(st.Pool, false) },
	})
}
