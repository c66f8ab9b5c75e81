package apply

import (
	"context"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/openshift-recover/recover/apply/gate"
	"github.com/openshift-recover/recover/apply/internal/retry"
	"github.com/openshift-recover/recover/apply/lock"
	"github.com/openshift-recover/recover/apply/resource"
	"github.com/openshift-recover/recover/inspect/live"
	"github.com/openshift-recover/recover/plan/planfile"
)

// Access is one permission a run needs: what preflight asks the API server
// about (SelfSubjectAccessReview), and what an RBAC Role or ClusterRole for a
// service account that runs the plan must grant (Namespace "" is cluster-wide).
type Access struct {
	Verb        string `json:"verb"`
	Group       string `json:"group,omitempty"`
	Resource    string `json:"resource"`
	Subresource string `json:"subresource,omitempty"`
	Namespace   string `json:"namespace,omitempty"`
	Name        string `json:"name,omitempty"`
}

func (a Access) String() string {
	r := a.Resource
	if a.Group != "" {
		r += "." + a.Group
	}
	if a.Subresource != "" {
		r += "/" + a.Subresource
	}
	if a.Name != "" {
		r += " " + a.Name
	}
	if a.Namespace != "" {
		return fmt.Sprintf("%s %s in namespace %s", a.Verb, r, a.Namespace)
	}
	return fmt.Sprintf("%s %s (cluster-wide)", a.Verb, r)
}

// KindMapper maps an apiVersion and kind to its resource and scope: the
// cluster's discovery (Engine.AccessOptions) or inspect's catalog
// (CatalogKinds), which needs no cluster.
type KindMapper = gate.KindMapper

// AccessOptions are what RequiredAccess needs besides the plan.
type AccessOptions struct {
	// MapKind maps the kinds the steps and gates name (the plan's own CRDs
	// are mapped from their manifests when MapKind does not know them).
	MapKind KindMapper
	// DryRun: a server-side dry run takes no lease.
	DryRun bool
}

// CatalogKinds maps the kinds inspect reads (inspect/live.Reads: every
// resource type of inspect's catalog) without a cluster: what a hub that
// cannot reach a cluster derives a plan's permissions with. The kinds a
// remediation plan changes and its gates read are all in the catalog; a kind
// that is not is an error naming it (a plan's own CRDs are mapped by
// RequiredAccess from their manifests).
func CatalogKinds(apiVersion, kind string) (schema.GroupVersionResource, bool, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return schema.GroupVersionResource{}, false, err
	}
	for _, r := range live.Reads(live.ReadOptions{}) {
		if r.Resource.Group == gv.Group && r.Resource.Kind == kind {
			return gv.WithResource(r.Resource.Resource), r.Resource.Namespaced, nil
		}
	}
	return schema.GroupVersionResource{}, false, fmt.Errorf("kind %s of %s is not among the resources inspect reads: its permissions need the cluster's discovery (recover apply --print-rbac against the cluster)", kind, apiVersion)
}

// RequiredAccess derives every permission the plan needs: the run's own (the
// lease, ClusterVersion), each step's from its action's executor
// (exec_<action>.go), and each gate's reads (gate.Resources). It is the one
// list preflight checks and an RBAC role for the plan grants
// (apply/incluster.RunAccess). It reads nothing but through o.MapKind.
// Problems are the kinds that could not be mapped, one line each.
func RequiredAccess(p *planfile.Plan, o AccessOptions) ([]Access, []string) {
	var problems []string
	set := map[Access]bool{}
	add := func(as ...Access) {
		for _, a := range as {
			set[a] = true
		}
	}
	planCRDs := crdsInPlan(p)
	mapKind := func(apiVersion, kind string) (schema.GroupVersionResource, bool, error) {
		gvr, namespaced, err := o.MapKind(apiVersion, kind)
		if err == nil {
			return gvr, namespaced, nil
		}
		if gv, perr := schema.ParseGroupVersion(apiVersion); perr == nil {
			if c, ok := planCRDs[schema.GroupKind{Group: gv.Group, Kind: kind}]; ok {
				return gv.WithResource(c.plural), c.namespaced, nil
			}
		}
		return schema.GroupVersionResource{}, false, err
	}
	if !o.DryRun {
		add(verbs("coordination.k8s.io", "leases", lock.Namespace, "get", "create", "update", "delete")...)
	}
	add(verbs("config.openshift.io", "clusterversions", "", "get")...)
	// A staged plan's later stages need their access too (plan.RunOrder).
	for _, rs := range planfile.RunOrder(p) {
		s := rs.Step
		ex := executorOf(s.Action)
		if ex == nil {
			problems = append(problems, fmt.Sprintf("step %s: unknown action %q", s.ID, s.Action))
			continue
		}
		as, err := ex.access(p, s, mapKind)
		if err != nil {
			problems = append(problems, fmt.Sprintf("step %s: %v", s.ID, err))
		}
		add(as...)
		for _, g := range stepGates(p, s) {
			gvrs, nss, err := gate.Resources(g, mapKind)
			if err != nil {
				problems = append(problems, fmt.Sprintf("step %s gate: %v", s.ID, err))
				continue
			}
			for j, gvr := range gvrs {
				add(verbs(gvr.Group, gvr.Resource, nss[j], "get", "list", "watch")...)
			}
		}
	}
	out := make([]Access, 0, len(set))
	for a := range set {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out, problems
}

// accessNeeder is a journal store that needs permissions of its own (the
// ConfigMaps of a journal kept in the cluster, apply/incluster).
type accessNeeder interface {
	Access() []Access
}

// RequiredAccess is RequiredAccess with the engine's discovery and gates, plus
// what the run's journal store needs (a run that writes a journal: not a dry
// run). It is the list preflight checks and apply/incluster's RBAC grants.
func (e *Engine) RequiredAccess(ctx context.Context, p *planfile.Plan, opts Options) ([]Access, []string) {
	ao := e.AccessOptions(ctx)
	ao.DryRun = opts.DryRun
	out, problems := RequiredAccess(p, ao)
	if n, ok := opts.Journal.(accessNeeder); ok && !opts.DryRun {
		seen := make(map[Access]bool, len(out))
		for _, a := range out {
			seen[a] = true
		}
		for _, a := range n.Access() {
			if !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
		sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	}
	return out, problems
}

// AccessOptions are RequiredAccess's options for this engine's cluster: kinds
// mapped through its discovery.
func (e *Engine) AccessOptions(ctx context.Context) AccessOptions {
	return AccessOptions{MapKind: e.kindMapper(ctx)}
}

// kindMapper maps kinds through discovery, retrying transient failures.
func (e *Engine) kindMapper(ctx context.Context) KindMapper {
	return func(apiVersion, kind string) (schema.GroupVersionResource, bool, error) {
		gv, err := schema.ParseGroupVersion(apiVersion)
		if err != nil {
			return schema.GroupVersionResource{}, false, err
		}
		var m *meta.RESTMapping
		err = retry.Do(ctx, func() (err error) {
			if m, err = e.mapper.Mapping(gv.WithKind(kind)); retry.Transient(err) {
				e.mapper.Reset() // discovery caches the failure
			}
			return err
		})
		if err != nil {
			return schema.GroupVersionResource{}, false, err
		}
		return m.Resource, m.Scope.Name() == meta.RESTScopeNameNamespace, nil
	}
}

// verbs is one Access per verb on a resource.
func verbs(group, res, ns string, vs ...string) []Access {
	out := make([]Access, 0, len(vs))
	for _, v := range vs {
		out = append(out, Access{Verb: v, Group: group, Resource: res, Namespace: ns})
	}
	return out
}

// scoped is ns for a namespaced resource, "" for a cluster-scoped one.
func scoped(namespaced bool, ns string) string {
	if namespaced {
		return ns
	}
	return ""
}

// objectAccess is the verbs on the object an ObjectRef names.
func objectAccess(mapKind KindMapper, o planfile.ObjectRef, vs ...string) ([]Access, error) {
	gvr, namespaced, err := mapKind(o.APIVersion, o.Kind)
	if err != nil {
		return nil, err
	}
	return verbs(gvr.Group, gvr.Resource, scoped(namespaced, o.Namespace), vs...), nil
}

type planCRD struct {
	plural     string
	namespaced bool
}

func crdsInPlan(p *planfile.Plan) map[schema.GroupKind]planCRD {
	out := map[schema.GroupKind]planCRD{}
	for _, rs := range planfile.RunOrder(p) {
		s := rs.Step
		if s.Manifest == nil || s.Spec().Deletes || s.Manifest.Kind != "CustomResourceDefinition" {
			continue
		}
		obj, err := resource.Decode(s.Manifest)
		if err != nil {
			continue
		}
		group, _, _ := unstructured.NestedString(obj.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(obj.Object, "spec", "names", "kind")
		plural, _, _ := unstructured.NestedString(obj.Object, "spec", "names", "plural")
		scope, _, _ := unstructured.NestedString(obj.Object, "spec", "scope")
		out[schema.GroupKind{Group: group, Kind: kind}] = planCRD{plural: plural, namespaced: scope == "Namespaced"}
	}
	return out
}
