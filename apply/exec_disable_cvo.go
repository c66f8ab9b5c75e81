package apply

import (
	"context"

	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/planfile"
)

// disable-cvo: journal the CVO's replicas, scale it to 0 (prepareDisableCVO
// in steps.go); restore-cvo, and the engine on every stop path, scale it back.
func init() {
	registerExecutor(planfile.ActionDisableCVO, execFuncs{
		accessFn: cvoAccess,
		prepareFn: func(ctx context.Context, r *run, _ *planfile.Step) (*mutation, error) {
			return r.prepareDisableCVO(ctx)
		},
	})
}

// cvoAccess is what scaling the CVO needs.
func cvoAccess(*planfile.Plan, *planfile.Step, KindMapper) ([]Access, error) {
	return verbs("apps", "deployments", openshift.CVONamespace, "get", "patch"), nil
}
