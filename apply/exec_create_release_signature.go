package apply

import (
	"context"

	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/planfile"
)

// create-release-signature: create the signature ConfigMap, create-only, the
// way a payload manifest is applied (prepareManifest: the intent, with the
// object absent as its pre-image, journaled before the create).
func init() {
	registerExecutor(planfile.ActionCreateReleaseSignature, execFuncs{
		accessFn: func(*planfile.Plan, *planfile.Step, KindMapper) ([]Access, error) {
			return verbs("", "configmaps", openshift.SignaturesNamespace, "get", "create"), nil
		},
		prepareFn: func(ctx context.Context, r *run, s *planfile.Step) (*mutation, error) {
			return r.prepareManifest(ctx, s)
		},
	})
}
