package apply

import (
	"context"

	"github.com/openshift-recover/recover/plan"
)

// set-desired-update: replace ClusterVersion spec.desiredUpdate with the
// target, by digest (prepareDesiredUpdate).
func init() {
	registerExecutor(plan.ActionSetDesiredUpdate, execFuncs{
		accessFn: func(*plan.Plan, *plan.Step, KindMapper) ([]Access, error) {
			return verbs("config.openshift.io", "clusterversions", "", "get", "update"), nil
		},
		prepareFn: func(ctx context.Context, r *run, s *plan.Step) (*mutation, error) {
			return r.prepareDesiredUpdate(ctx, s.DesiredUpdate)
		},
	})
}
