package plan

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
		check: func(m *model, i int, st *Step) error {
			pm := m.pools[st.Pool]
			switch {
			case pm == nil:
				return m.fail(i, InvariantPools, "pool %s is not in the snapshot", st.Pool)
			case pm.held:
				return m.fail(i, InvariantPools, "pool %s is held paused until the staged plan's last stage", st.Pool)
			case pm.byUser && pm.paused:
				if !m.remedyUnpause(st) {
					return m.fail(i, InvariantPools, "pool %s was paused by the user before recovery; recover unpauses it only as an unpause-pool remedy for a PoolPaused finding that says the pause blocks the update", st.Pool)
				}
				pm.byUser = false
			case !pm.byPlan || !pm.paused:
				return m.fail(i, InvariantPools, "pool %s was not paused by this plan", st.Pool)
			}
			pm.paused = false
			m.rollPool(pm)
			if g := st.Gate; st.Remedy != "" && (g == nil || g.Kind != GatePoolUpdated || g.Pool != st.Pool) {
				return m.fail(i, InvariantGates, "unpausing a pool as a remedy needs a %s gate on it", GatePoolUpdated)
			}
			return nil
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
