package apply

import (
	"context"

	"github.com/openshift-recover/recover/plan"
)

// unpause-pool: unpause a pool the plan paused (preparePaused), or, as a
// remedy, patch the Change with its journaled pre-image like the other remedies.
func init() {
	registerExecutor(plan.ActionUnpausePool, execFuncs{
		accessFn: poolAccess,
		prepareFn: func(ctx context.Context, r *run, s *plan.Step) (*mutation, error) {
			if s.Change != nil {
				return r.prepareChange(ctx, s)
			}
			return r.preparePaused(ctx, s.Pool, false)
		},
	})
}
