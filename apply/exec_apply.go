package apply

import (
	"context"

	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/planfile"
)

// apply: create or update a payload manifest's object with the CVO's
// semantics (resource.Applier through prepareManifest).
func init() {
	registerExecutor(planfile.ActionApply, execFuncs{
		accessFn: func(_ *planfile.Plan, s *planfile.Step, mapKind KindMapper) ([]Access, error) {
			m := s.Manifest
			if m == nil {
				return nil, nil
			}
			vs := []string{"get", "create", "update"}
			if m.CreateOnly {
				vs = []string{"get", "create"}
			}
			out, err := objectAccess(mapKind, planfile.ObjectRef{APIVersion: m.APIVersion, Kind: m.Kind, Namespace: m.Namespace, Name: m.Name}, vs...)
			if err != nil {
				return nil, err
			}
			if manifestInjectsProxy(m) {
				out = append(out, verbs("config.openshift.io", "proxies", "", "get")...)
			}
			if openshift.IsCVODeployment(m.APIVersion, m.Kind, m.Namespace, m.Name) {
				// The CVO's Deployment points at Infrastructure's internal API
				// endpoint (resource.ReadInternalAPI).
				out = append(out, verbs("config.openshift.io", "infrastructures", "", "get")...)
			}
			if openshift.IsClusterOperator(m.APIVersion, m.Kind) && len(out) > 0 {
				// A pre-created ClusterOperator gets its relatedObjects.
				out = append(out, Access{Verb: "update", Group: out[0].Group, Resource: out[0].Resource, Subresource: "status"})
			}
			return out, nil
		},
		prepareFn: func(ctx context.Context, r *run, s *planfile.Step) (*mutation, error) {
			return r.prepareManifest(ctx, s)
		},
	})
}
