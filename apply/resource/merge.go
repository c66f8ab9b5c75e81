package resource

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/openshift-recover/recover/internal/openshift"
)

// Path names which of the CVO's builders applies a manifest
// (pkg/cvo/cvo.go resourceBuilder.builderFor): the ClusterOperator builder, a
// typed builder of lib/resourcebuilder for the kinds it registers
// (resourcebuilder.go init), or the generic builder for every other kind
// (pkg/cvo/internal/generic.go).
type Path string

// The paths. Typed paths are "typed:" and the kind.
const (
	PathClusterOperator Path = "clusteroperator"
	PathGeneric         Path = "generic"
)

// kindRule is how one typed kind is created and merged.
type kindRule struct {
	// create returns the object the CVO creates: the manifest decoded into the
	// kind's Go type (fields it does not know are dropped, as the CVO's decode
	// drops them) with the owner references set.
	create func(required *unstructured.Unstructured) (*unstructured.Unstructured, error)
	// update merges the manifest into the live object as the CVO's Ensure
	// function does; modified is the CVO's own verdict (no write when false).
	update func(required, live *unstructured.Unstructured) (out *unstructured.Unstructured, modified bool, err error)
}

// typedRules are the kinds the CVO applies with a typed builder
// (lib/resourcebuilder/resourcebuilder.go init: RegisterGVK). Every other kind,
// v1beta1 CRDs and RBAC, Secrets and APIServices among them, takes the generic
// rule; ClusterOperators their own.
var typedRules = map[schema.GroupVersionKind]kindRule{}

// registerTyped adds a typed kind: the merge decodes the manifest and the live
// object into T, runs ensure and encodes the result.
func registerTyped[T any](gvk schema.GroupVersionKind, ensure func(modified *bool, existing *T, required T) error) {
	typedRules[gvk] = kindRule{
		create: func(required *unstructured.Unstructured) (*unstructured.Unstructured, error) {
			var r T
			if err := fromUnstructured(required, &r); err != nil {
				return nil, err
			}
			return toUnstructured(&r, gvk)
		},
		update: func(required, live *unstructured.Unstructured) (*unstructured.Unstructured, bool, error) {
			var r, e T
			if err := fromUnstructured(required, &r); err != nil {
				return nil, false, err
			}
			if err := fromUnstructured(live, &e); err != nil {
				return nil, false, fmt.Errorf("reading the live object: %w", err)
			}
			modified := false
			if err := ensure(&modified, &e, r); err != nil {
				return nil, false, err
			}
			out, err := toUnstructured(&e, gvk)
			return out, modified, err
		},
	}
}

// PathOf says which of the CVO's builders applies objects of gvk.
func PathOf(gvk schema.GroupVersionKind) Path {
	if gvk == clusterOperatorGVK {
		return PathClusterOperator
	}
	if _, ok := typedRules[gvk]; ok {
		return Path("typed:" + gvk.Kind)
	}
	return PathGeneric
}

func fromUnstructured(u *unstructured.Unstructured, into any) error {
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into); err != nil {
		return fmt.Errorf("%s %s: %w", u.GetKind(), u.GetName(), err)
	}
	return nil
}

func toUnstructured(obj any, gvk schema.GroupVersionKind) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// Facts are what the CVO reads from the cluster, beside the live object, to
// build what it writes.
type Facts struct {
	// Owner is the ClusterVersion the owner references point at (nil: none).
	Owner *metav1.OwnerReference
	// Proxy is the cluster proxy injected into annotated workloads.
	Proxy ProxyEnv
	// APIServerInternalURL is Infrastructure/cluster status.apiServerInternalURI,
	// which the CVO points its own Deployment at ("" when there is none).
	APIServerInternalURL string
}

// MergeResult is what the CVO would do with one manifest.
type MergeResult struct {
	// Operation is the CVO's action: OpCreate, OpUpdate (its merge found a
	// difference), OpUnchanged (it found none and writes nothing), OpExists (a
	// create-only object that exists), OpDelete or OpAbsent (a delete manifest
	// whose object exists or not).
	Operation Operation
	// Path is the CVO builder that applies it.
	Path Path
	// Object is what would be sent for a create or an update.
	Object *unstructured.Unstructured
	// StatusAfterCreate is the status the CVO writes right after it creates a
	// ClusterOperator (its relatedObjects), nil otherwise.
	StatusAfterCreate map[string]any
}

// Merge computes what the CVO writes for the manifest required against the
// live object (nil when absent), in the CVO's order (pkg/cvo/cvo.go
// resourceBuilder.Apply, lib/resourcebuilder builder.Do, pkg/cvo/internal
// genericBuilder.Do): the owner-reference modifier, the delete annotation, the
// kind's modifications (proxy, the CVO's own API endpoint), the create-only
// annotation, then the kind's merge. required is not changed.
func Merge(required, live *unstructured.Unstructured, facts Facts) (*MergeResult, error) {
	gvk := required.GroupVersionKind()
	res := &MergeResult{Path: PathOf(gvk)}
	req := required.DeepCopy()
	req.SetOwnerReferences(ownerReferences(req.GetOwnerReferences(), req.GetAnnotations(), facts.Owner))
	if res.Path != PathClusterOperator {
		del, err := openshift.DeleteAnnotation(req.GetAnnotations())
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", req.GetKind(), req.GetName(), err)
		}
		if del {
			res.Operation = OpAbsent
			if live != nil {
				res.Operation = OpDelete
			}
			return res, nil
		}
	}
	if err := modify(req, facts); err != nil {
		return nil, err
	}
	rule, typed := typedRules[gvk]
	if live == nil {
		res.Operation = OpCreate
		var err error
		switch {
		case res.Path == PathClusterOperator:
			res.Object, res.StatusAfterCreate = createClusterOperator(req)
		case typed:
			res.Object, err = rule.create(req)
		default:
			res.Object = req
		}
		return res, err
	}
	if res.Path == PathClusterOperator {
		// In updating mode the ClusterOperator builder writes nothing to an
		// operator that exists; it only waits on it
		// (pkg/cvo/internal/operatorstatus.go clusterOperatorBuilder.Do).
		res.Operation = OpUnchanged
		return res, nil
	}
	if openshift.CreateOnly(req.GetAnnotations()) {
		res.Operation = OpExists
		return res, nil
	}
	var (
		out      *unstructured.Unstructured
		modified bool
		err      error
	)
	if typed {
		out, modified, err = rule.update(req, live)
	} else {
		out, modified = mergeGeneric(req, live)
	}
	if err != nil {
		return nil, err
	}
	res.Operation = OpUnchanged
	if modified {
		res.Operation, res.Object = OpUpdate, out
	}
	return res, nil
}
