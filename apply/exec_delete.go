package apply

import (
	"context"

	"github.com/openshift-recover/recover/plan/planfile"
)

// delete: delete a payload manifest's object annotated for deletion.
func init() {
	registerExecutor(planfile.ActionDelete, execFuncs{
		accessFn: func(_ *planfile.Plan, s *planfile.Step, mapKind KindMapper) ([]Access, error) {
			m := s.Manifest
			if m == nil {
				return nil, nil
			}
			return objectAccess(mapKind, planfile.ObjectRef{APIVersion: m.APIVersion, Kind: m.Kind, Namespace: m.Namespace, Name: m.Name}, "get", "delete")
		},
		prepareFn: func(ctx context.Context, r *run, s *planfile.Step) (*mutation, error) {
			return r.prepareManifest(ctx, s)
		},
	})
}
