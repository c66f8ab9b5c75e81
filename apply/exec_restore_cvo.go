package apply

import (
	"context"

	"github.com/openshift-recover/recover/plan/planfile"
)

// restore-cvo: scale the CVO back to the journaled replicas.
func init() {
	registerExecutor(planfile.ActionRestoreCVO, execFuncs{
		accessFn: cvoAccess,
		prepareFn: func(ctx context.Context, r *run, _ *planfile.Step) (*mutation, error) {
			return r.prepareRestoreCVO(ctx)
		},
	})
}
