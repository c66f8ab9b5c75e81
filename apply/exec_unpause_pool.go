package apply

import (
	"context"

	"github.com/openshift-recover/recover/internal/nextcmd"
	"github.com/openshift-recover/recover/plan/planfile"
)

// unpause-pool: unpause a pool the plan paused (preparePaused), or, as a
// remedy, patch the Change with its journaled pre-image like the other remedies.
// The plan's unpause (no Change) unpauses only what this journal paused: its
// intent names the pause it undoes (RevertOf), and a pool paused by someone
// else since the plan was made is refused, not unpaused.
func init() {
	registerExecutor(planfile.ActionUnpausePool, execFuncs{
		accessFn: poolAccess,
		prepareFn: func(ctx context.Context, r *run, s *planfile.Step) (*mutation, error) {
			if s.Change != nil {
				return r.prepareChange(ctx, s)
			}
			m, err := r.preparePaused(ctx, s.Pool, false)
			if err != nil || m.noop || r.j == nil {
				return m, err
			}
			pause := r.pausedByRun(s.Pool)
			if pause == "" {
				return nil, refuse(s, "MachineConfigPool %s is paused, but the journal records no pause of it by this run: recover does not unpause what it did not pause; unpause it yourself when you are done with it (%s), then skip this step or resume", s.Pool, nextcmd.PausePool(s.Pool, false))
			}
			m.intent.RevertOf = pause
			m.reverts = pause
			return m, nil
		},
	})
}
