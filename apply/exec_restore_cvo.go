package apply

import (
	"context"

	"github.com/openshift-recover/recover/plan"
)

// restore-cvo: scale the CVO back to the journaled replicas.
func init() {
	registerExecutor(plan.ActionRestoreCVO, execFuncs{
		accessFn: cvoAccess,
		prepareFn: func(ctx context.Context, r *run, _ *plan.Step) (*mutation, error) {
			return r.prepareRestoreCVO(ctx)
		},
	})
}
