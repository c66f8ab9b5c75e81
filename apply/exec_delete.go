package apply

import (
	"context"

	"github.com/openshift-recover/recover/plan"
)

// delete: delete a payload manifest's object annotated for deletion.
func init() {
	registerExecutor(plan.ActionDelete, execFuncs{
		accessFn: func(_ *plan.Plan, s *plan.Step, mapKind KindMapper) ([]Access, error) {
			m := s.Manifest
			if m == nil {
				return nil, nil
			}
			return objectAccess(mapKind, plan.ObjectRef{APIVersion: m.APIVersion, Kind: m.Kind, Namespace: m.Namespace, Name: m.Name}, "get", "delete")
		},
		prepareFn: func(ctx context.Context, r *run, s *plan.Step) (*mutation, error) { return r.prepareManifest(ctx, s) },
	})
}
