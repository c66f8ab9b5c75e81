package apply

import (
	"context"
	"encoding/json"

	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/plan/planfile"
)

// pause-pool: set a MachineConfigPool's spec.paused (preparePaused). The
// pause is journaled as a temporary change (its pre-image spec.paused=false):
// the plan's unpause-pool of the pool restores it, and revert-on-stop unpauses
// it when the run stops before (pausedPoolRevert). A pool found paused already
// is left alone and journaled as nothing: this run did not pause it, so no
// step of it unpauses it.
func init() {
	registerExecutor(planfile.ActionPausePool, execFuncs{
		accessFn: poolAccess,
		prepareFn: func(ctx context.Context, r *run, s *planfile.Step) (*mutation, error) {
			m, err := r.preparePaused(ctx, s.Pool, true)
			if err != nil || m.noop {
				return m, err
			}
			m.intent.PreImage = map[string]json.RawMessage{pausedField: json.RawMessage("false")}
			m.intent.Temporary = true
			return m, nil
		},
	})
}

// pausedField is a pool's paused flag as a pre-image key.
var pausedField = journal.FieldKey([]string{"spec", "paused"})

// poolAccess is what pausing or unpausing a pool needs.
func poolAccess(*planfile.Plan, *planfile.Step, KindMapper) ([]Access, error) {
	return verbs("machineconfiguration.openshift.io", "machineconfigpools", "", "get", "patch"), nil
}

// pausedByRun returns the journaled pause-pool step of this plan that paused
// pool and is not undone (reverted on stop, or unpaused by a step), or ""
// when the journal records none: then this run did not pause the pool.
func (r *run) pausedByRun(pool string) string {
	if r.j == nil {
		return ""
	}
	st := r.j.State()
	for i := range r.p.Steps {
		s := &r.p.Steps[i]
		if s.Action != planfile.ActionPausePool || s.Pool != pool {
			continue
		}
		js := st.Step(s.ID)
		if js == nil || js.Intents == 0 || js.Status == journal.StepReverted {
			continue
		}
		if js.PreImage != nil && !js.ChangeOutstanding {
			continue // unpaused by a step already
		}
		return s.ID
	}
	return ""
}
