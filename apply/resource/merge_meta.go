package resource

import (
	"reflect"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/internal/openshift"
)

// The metadata rules every typed kind shares, and the small setters the
// per-kind rules are written with. Each follows the cluster-version operator
// (CVO) at main 6e719331; the function it restates is named beside it.

// ensureObjectMeta merges the manifest's metadata into the live object's: a
// namespace and name that are set win; labels and annotations are added or
// overwritten and never removed; owner references are matched by UID, replaced
// when they differ and appended when missing (lib/resourcemerge/meta.go
// EnsureObjectMeta, mergeMap, mergeOwnerRefs).
func ensureObjectMeta(modified *bool, existing *metav1.ObjectMeta, required metav1.ObjectMeta) {
	setStringIfSet(modified, &existing.Namespace, required.Namespace)
	setStringIfSet(modified, &existing.Name, required.Name)
	mergeStringMap(modified, &existing.Labels, required.Labels)
	mergeStringMap(modified, &existing.Annotations, required.Annotations)
	mergeOwnerRefs(modified, &existing.OwnerReferences, required.OwnerReferences)
}

// mergeStringMap adds or overwrites every required key (lib/resourcemerge/meta.go
// mergeMap). A nil required map leaves a nil live map nil.
func mergeStringMap(modified *bool, existing *map[string]string, required map[string]string) {
	if *existing == nil {
		if required == nil {
			return
		}
		*existing = map[string]string{}
	}
	for k, v := range required {
		if cur, ok := (*existing)[k]; !ok || cur != v {
			(*existing)[k] = v
			*modified = true
		}
	}
}

// mergeBytesMap is mergeStringMap for ConfigMap binaryData
// (lib/resourcemerge/meta.go mergeByteSliceMap).
func mergeBytesMap(modified *bool, existing *map[string][]byte, required map[string][]byte) {
	if *existing == nil {
		if required == nil {
			return
		}
		*existing = map[string][]byte{}
	}
	for k, v := range required {
		if cur, ok := (*existing)[k]; !ok || string(cur) != string(v) {
			(*existing)[k] = v
			*modified = true
		}
	}
}

// mergeOwnerRefs: a required reference replaces the live one of the same UID
// when they differ (blockOwnerDeletion included) and is appended when the live
// object has none of that UID; other live references stay
// (lib/resourcemerge/meta.go mergeOwnerRefs).
func mergeOwnerRefs(modified *bool, existing *[]metav1.OwnerReference, required []metav1.OwnerReference) {
	for _, r := range required {
		found := false
		for i := range *existing {
			if (*existing)[i].UID != r.UID {
				continue
			}
			found = true
			if !equality.Semantic.DeepEqual((*existing)[i], r) {
				(*existing)[i] = r
				*modified = true
			}
			break
		}
		if !found {
			*existing = append(*existing, r)
			*modified = true
		}
	}
}

// ownerReferences is what the CVO's modifier gives a manifest before it is
// applied (pkg/cvo/cvo.go ownerReferenceModifier): the manifest's own owner
// references that are not a ClusterVersion when it has any; otherwise one
// reference to ClusterVersion/version, a controller unless the manifest's
// create-only annotation is exactly "true". The CVO sets no blockOwnerDeletion
// (the 4.3 and 4.4 CVOs did, through metav1.NewControllerRef; the live objects
// they created carry it, and the first update drops it). The controller test is
// exact while IsCreateOnly is case-insensitive: a manifest annotated "True" is
// create-only but created with a controller reference, as the CVO does.
func ownerReferences(manifestRefs []metav1.OwnerReference, annotations map[string]string, owner *metav1.OwnerReference) []metav1.OwnerReference {
	if owner == nil {
		return manifestRefs
	}
	var others []metav1.OwnerReference
	for _, r := range manifestRefs {
		if r.Kind != "ClusterVersion" {
			others = append(others, r)
		}
	}
	if len(others) > 0 {
		return others
	}
	ref := metav1.OwnerReference{APIVersion: owner.APIVersion, Kind: owner.Kind, Name: owner.Name, UID: owner.UID}
	if v, ok := annotations[openshift.AnnotationCreateOnly]; !ok || v != "true" {
		controller := true
		ref.Controller = &controller
	}
	return []metav1.OwnerReference{ref}
}

// setStringIfSet sets a string the manifest sets (lib/resourcemerge/meta.go
// setStringIfSet).
func setStringIfSet[T ~string](modified *bool, existing *T, required T) {
	if required == "" {
		return
	}
	if *existing != required {
		*existing = required
		*modified = true
	}
}

// setValue sets a plain value, zero included (lib/resourcemerge/core.go setBool,
// setInt32, setInt64).
func setValue[T comparable](modified *bool, existing *T, required T) {
	if *existing != required {
		*existing = required
		*modified = true
	}
}

// setPtr sets an optional value: both unset leaves it; one unset takes the
// manifest's (nil included); both set compares the values
// (lib/resourcemerge/core.go setBoolPtr, setInt32Ptr, setInt64Ptr).
func setPtr[T comparable](modified *bool, existing **T, required *T) {
	switch {
	case *existing == nil && required == nil:
	case *existing == nil || required == nil:
		*existing = required
		*modified = true
	default:
		setValue(modified, *existing, *required)
	}
}

// setSlice replaces a list that is not deeply equal, nil and empty being
// different (lib/resourcemerge/core.go setStringSlice uses reflect.DeepEqual).
func setSlice[T any](modified *bool, existing *[]T, required []T) {
	if !reflect.DeepEqual(*existing, required) {
		*existing = required
		*modified = true
	}
}

// setSemantic replaces a value that is not semantically equal (the CVO's
// "if !equality.Semantic.DeepEqual(existing.X, required.X) { existing.X =
// required.X }", written out in every file of lib/resourcemerge).
func setSemantic[T any](modified *bool, existing *T, required T) {
	if !equality.Semantic.DeepEqual(*existing, required) {
		*existing = required
		*modified = true
	}
}
