package apply

import (
	"context"

	"github.com/openshift-recover/recover/plan/planfile"
)

// set-desired-update: replace ClusterVersion spec.desiredUpdate with the
// target, by digest (prepareDesiredUpdate).
func init() {
	registerExecutor(planfile.ActionSetDesiredUpdate, execFuncs{
		accessFn: func(*planfile.Plan, *planfile.Step, KindMapper) ([]Access, error) {
			return verbs("config.openshift.io", "clusterversions", "", "get", "update"), nil
		},
		prepareFn: func(ctx context.Context, r *run, s *planfile.Step) (*mutation, error) {
			return r.prepareDesiredUpdate(ctx, s.DesiredUpdate)
		},
	})
}
