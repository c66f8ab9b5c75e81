package resource

import (
	"reflect"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// genericSkipKeys are the top-level fields the generic rule never compares or
// copies.
var genericSkipKeys = map[string]bool{"apiVersion": true, "kind": true, "metadata": true, "status": true}

// mergeGeneric is the CVO's rule for every kind without a typed builder
// (pkg/cvo/internal/generic.go applyUnstructured): the live object is left alone
// when its top-level fields (all but apiVersion, kind, metadata and status) are
// exactly the manifest's; otherwise the manifest's top-level fields replace the
// live ones (a live top-level field the manifest lacks stays) and the labels,
// annotations and owner references become the manifest's: a label an
// administrator added to such an object is dropped on the update, as the CVO
// drops it.
func mergeGeneric(required, live *unstructured.Unstructured) (*unstructured.Unstructured, bool) {
	expected := required.DeepCopy()
	for k, v := range live.Object {
		if genericSkipKeys[k] {
			expected.Object[k] = v
		}
	}
	if reflect.DeepEqual(expected.Object, live.Object) {
		return nil, false
	}
	out := live.DeepCopy()
	for k, v := range required.Object {
		if !genericSkipKeys[k] {
			out.Object[k] = runtimeDeepCopy(v)
		}
	}
	out.SetAnnotations(required.GetAnnotations())
	out.SetLabels(required.GetLabels())
	out.SetOwnerReferences(required.GetOwnerReferences())
	return out, true
}
