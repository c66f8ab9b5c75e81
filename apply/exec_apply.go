package apply

import (
	"context"

	"github.com/openshift-recover/recover/plan"
)

// apply: create or update a payload manifest's object with the CVO's
// semantics (resource.Applier through prepareManifest).
func init() {
	registerExecutor(plan.ActionApply, execFuncs{
		accessFn: func(_ *plan.Plan, s *plan.Step, mapKind KindMapper) ([]Access, error) {
			m := s.Manifest
			if m == nil {
				return nil, nil
			}
			vs := []string{"get", "create", "update"}
			if m.CreateOnly {
				vs = []string{"get", "create"}
			}
			out, err := objectAccess(mapKind, plan.ObjectRef{APIVersion: m.APIVersion, Kind: m.Kind, Namespace: m.Namespace, Name: m.Name}, vs...)
			if err != nil {
				return nil, err
			}
			if manifestInjectsProxy(m) {
				out = append(out, verbs("config.openshift.io", "proxies", "", "get")...)
			}
			return out, nil
		},
		prepareFn: func(ctx context.Context, r *run, s *plan.Step) (*mutation, error) { return r.prepareManifest(ctx, s) },
	})
}
