package referee

import (
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Normalize returns what the API server would store of obj, for comparing two
// answers alike, as the README names it: volatile metadata (resourceVersion,
// uid, generation, managedFields, creationTimestamp) dropped; a Service's
// clusterIP, clusterIPs and ipFamilies and an ImageStream tag's generation
// carried over from live when obj omits them (the API server's
// patchAllocatedValues, kubernetes#103532); a created ClusterOperator's status
// reduced to the relatedObjects the CVO writes after the create, every other
// created object's status dropped (the API server drops status on create); the
// API server's defaults of a v1 CustomResourceDefinition filled in
// (names.singular and listKind); null values, empty objects and empty lists pruned
// (the typed encoders and the JSON the CVO sends differ in which they print).
func Normalize(obj, live *unstructured.Unstructured, created bool) map[string]any {
	if obj == nil {
		return nil
	}
	u := obj.DeepCopy()
	if md, ok := u.Object["metadata"].(map[string]any); ok {
		for _, k := range []string{"resourceVersion", "uid", "generation", "managedFields", "creationTimestamp"} {
			delete(md, k)
		}
	}
	gvk := u.GroupVersionKind()
	switch {
	case gvk.Group == "" && gvk.Kind == "Service" && live != nil:
		for _, f := range []string{"clusterIP", "clusterIPs", "ipFamilies"} {
			if _, found, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", f); found {
				continue
			}
			if v, found, _ := unstructured.NestedFieldCopy(live.Object, "spec", f); found {
				_ = unstructured.SetNestedField(u.Object, v, "spec", f)
			}
		}
	case gvk.Group == "image.openshift.io" && gvk.Kind == "ImageStream" && live != nil:
		liveTags, _, _ := unstructured.NestedSlice(live.Object, "spec", "tags")
		tags, _, _ := unstructured.NestedSlice(u.Object, "spec", "tags")
		for i, t := range tags {
			tm, _ := t.(map[string]any)
			if tm == nil || tm["generation"] != nil {
				continue
			}
			for _, lt := range liveTags {
				if lm, _ := lt.(map[string]any); lm != nil && lm["name"] == tm["name"] && lm["generation"] != nil {
					tm["generation"] = lm["generation"]
				}
			}
			tags[i] = tm
		}
		if tags != nil {
			_ = unstructured.SetNestedSlice(u.Object, tags, "spec", "tags")
		}
	case gvk.Group == "apiextensions.k8s.io" && gvk.Version == "v1" && gvk.Kind == "CustomResourceDefinition":
		var crd apiextv1.CustomResourceDefinition
		if runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &crd) == nil {
			apiextv1.SetObjectDefaults_CustomResourceDefinition(&crd)
			if m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&crd); err == nil {
				u.Object = m
			}
		}
	}
	if created {
		related, found, _ := unstructured.NestedSlice(u.Object, "status", "relatedObjects")
		delete(u.Object, "status")
		if found && gvk.Group == "config.openshift.io" && gvk.Kind == "ClusterOperator" {
			u.Object["status"] = map[string]any{"relatedObjects": related}
		}
	}
	out, _ := prune(u.Object).(map[string]any)
	return out
}

// prune drops null values, empty objects and empty lists, recursively.
func prune(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range t {
			if p := prune(e); p != nil {
				out[k] = p
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		if len(t) == 0 {
			return nil
		}
		out := make([]any, 0, len(t))
		for _, e := range t {
			p := prune(e)
			if p == nil {
				p = map[string]any{}
			}
			out = append(out, p)
		}
		return out
	}
	return v
}
