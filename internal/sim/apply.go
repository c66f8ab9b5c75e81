package sim

import (
	"context"
	"fmt"

	configv1 "github.com/openshift/api/config/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
)

// applyResult says what applying one manifest did.
type applyResult string

const (
	applyCreated   applyResult = "created"
	applyUpdated   applyResult = "updated"
	applyUnchanged applyResult = "unchanged"
	applyDeleted   applyResult = "deleted"
)

// resourceFor returns the dynamic client of a manifest's object, refreshing the
// discovery cache once when the kind is unknown (its CRD may just have been applied).
func (s *Sim) resourceFor(u *unstructured.Unstructured) (dynamic.ResourceInterface, *meta.RESTMapping, error) {
	gvk := u.GroupVersionKind()
	mapping, err := s.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		s.mapper.Reset()
		mapping, err = s.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	if err != nil {
		return nil, nil, err
	}
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		return s.dyn.Resource(mapping.Resource).Namespace(u.GetNamespace()), mapping, nil
	}
	return s.dyn.Resource(mapping.Resource), mapping, nil
}

// applyManifest applies one manifest with the CVO's semantics for objects it has no
// typed builder for (pkg/cvo/internal/generic.go, lib/resourcemerge): create when
// absent; never update a create-only object; otherwise copy the manifest's
// top-level fields other than apiVersion, kind, metadata and status over the live
// object, adding (never removing) labels and annotations; a Deployment without
// spec.replicas gets 1; every object gets a controller owner reference to
// ClusterVersion/version (not controller for create-only) when no one else owns it;
// delete manifests are deleted without waiting.
func (s *Sim) applyManifest(ctx context.Context, m Manifest, cv *configv1.ClusterVersion) (applyResult, error) {
	want := m.Object.DeepCopy()
	client, _, err := s.resourceFor(want)
	if err != nil {
		return "", fmt.Errorf("%s: %w", m, err)
	}
	if m.Delete {
		err := client.Delete(ctx, want.GetName(), metav1.DeleteOptions{})
		if apierrors.IsNotFound(err) {
			return applyUnchanged, nil
		}
		if err != nil {
			return "", fmt.Errorf("deleting %s: %w", m, err)
		}
		return applyDeleted, nil
	}
	if want.GetKind() == "Deployment" && want.GroupVersionKind().Group == "apps" {
		if _, found, _ := unstructured.NestedFieldNoCopy(want.Object, "spec", "replicas"); !found {
			_ = unstructured.SetNestedField(want.Object, int64(1), "spec", "replicas")
		}
	}
	addClusterVersionOwner(want, cv, m.CreateOnly)
	live, err := client.Get(ctx, want.GetName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		if _, err := client.Create(ctx, want, metav1.CreateOptions{}); err != nil {
			return "", fmt.Errorf("creating %s: %w", m, err)
		}
		return applyCreated, nil
	}
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", m, err)
	}
	if m.CreateOnly {
		return applyUnchanged, nil
	}
	merged := live.DeepCopy()
	for k, v := range want.Object {
		switch k {
		case "apiVersion", "kind", "metadata", "status":
			continue
		}
		merged.Object[k] = runtime.DeepCopyJSONValue(v)
	}
	merged.SetLabels(mergeMaps(live.GetLabels(), want.GetLabels()))
	merged.SetAnnotations(mergeMaps(live.GetAnnotations(), want.GetAnnotations()))
	merged.SetOwnerReferences(mergeOwners(live.GetOwnerReferences(), want.GetOwnerReferences()))
	if equality.Semantic.DeepEqual(live.Object, merged.Object) {
		return applyUnchanged, nil
	}
	if _, err := client.Update(ctx, merged, metav1.UpdateOptions{}); err != nil {
		return "", fmt.Errorf("updating %s: %w", m, err)
	}
	return applyUpdated, nil
}

// addClusterVersionOwner adds the CVO's owner reference when the object names no
// other owner.
func addClusterVersionOwner(u *unstructured.Unstructured, cv *configv1.ClusterVersion, createOnly bool) {
	if cv == nil || len(u.GetOwnerReferences()) > 0 {
		return
	}
	u.SetOwnerReferences([]metav1.OwnerReference{{
		APIVersion: configv1.GroupVersion.String(),
		Kind:       "ClusterVersion",
		Name:       cv.Name,
		UID:        cv.UID,
		Controller: ptr.To(!createOnly),
	}})
}

// mergeMaps adds or overwrites want's entries in have.
func mergeMaps(have, want map[string]string) map[string]string {
	if len(want) == 0 {
		return have
	}
	out := map[string]string{}
	for k, v := range have {
		out[k] = v
	}
	for k, v := range want {
		out[k] = v
	}
	return out
}

// mergeOwners adds want's owner references that have is missing (by UID).
func mergeOwners(have, want []metav1.OwnerReference) []metav1.OwnerReference {
	out := append([]metav1.OwnerReference(nil), have...)
	for _, w := range want {
		found := false
		for _, h := range have {
			if h.UID == w.UID {
				found = true
				break
			}
		}
		if !found {
			out = append(out, w)
		}
	}
	return out
}
