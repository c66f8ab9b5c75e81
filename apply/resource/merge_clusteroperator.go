package resource

import (
	configv1 "github.com/openshift/api/config/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
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
//
// The CVO reads the manifest into the typed configv1.ClusterOperator
// (readClusterOperatorV1OrDie) and sends Create and then UpdateStatus with
// it, so both are written as openshift/api's config/v1 types print them: a
// field the type lacks is dropped (4.20's cluster-storage-operator manifest
// gives spec.managementState, which ClusterOperatorSpec has not), and the
// related objects' `name` has no omitempty, so an entry the manifest gives
// without a name ("all machineconfigpools", "all customresourcedefinitions")
// is stored with `name: ""`. The manifest is therefore round-tripped through
// that type here; one that does not decode is created as it is.
func createClusterOperator(required *unstructured.Unstructured) (*unstructured.Unstructured, map[string]any) {
	out := required.DeepCopy()
	var co configv1.ClusterOperator
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(required.Object, &co); err == nil {
		if typed, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&co); err == nil {
			out = &unstructured.Unstructured{Object: typed}
			out.SetAPIVersion(required.GetAPIVersion())
			out.SetKind(required.GetKind())
			unstructured.RemoveNestedField(out.Object, "metadata", "creationTimestamp")
		}
	}
	related, found, _ := unstructured.NestedSlice(out.Object, "status", "relatedObjects")
	unstructured.RemoveNestedField(out.Object, "status")
	if !found || len(related) == 0 {
		return out, nil
	}
	return out, map[string]any{"relatedObjects": related}
}
