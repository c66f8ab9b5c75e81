package apply

import (
	"context"

	"github.com/openshift-recover/recover/plan"
)

// pause-pool: set a MachineConfigPool's spec.paused (preparePaused).
func init() {
	registerExecutor(plan.ActionPausePool, execFuncs{
		accessFn: poolAccess,
		prepareFn: func(ctx context.Context, r *run, s *plan.Step) (*mutation, error) {
			return r.preparePaused(ctx, s.Pool, true)
		},
	})
}

// poolAccess is what pausing or unpausing a pool needs.
func poolAccess(*plan.Plan, *plan.Step, KindMapper) ([]Access, error) {
	return verbs("machineconfiguration.openshift.io", "machineconfigpools", "", "get", "patch"), nil
}
