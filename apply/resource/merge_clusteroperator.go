package resource

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var clusterOperatorGVK = schema.GroupVersionKind{Group: "config.openshift.io", Version: "v1", Kind: "ClusterOperator"}

// createClusterOperator is the CVO's pre-creation of a ClusterOperator
// (pkg/cvo/internal/operatorstatus.go clusterOperatorBuilder.Do,
// PrecreatingMode): it creates the manifest (the API server drops its status,
// the status subresource's) and then writes status.relatedObjects, so that a
// must-gather finds the operator's namespaces and resources before the operator
// has reported once. The operator's versions are never written: they are the
// operator's to report, and what the gate waits for.
func createClusterOperator(required *unstructured.Unstructured) (*unstructured.Unstructured, map[string]any) {
	out := required.DeepCopy()
	related, found, _ := unstructured.NestedSlice(required.Object, "status", "relatedObjects")
	if !found {
		return out, nil
	}
	return out, map[string]any{"relatedObjects": related}
}
