package resource

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// IsSecret reports whether u is a core/v1 Secret.
func IsSecret(u *unstructured.Unstructured) bool {
	if u == nil {
		return false
	}
	gvk := u.GroupVersionKind()
	return gvk.Group == "" && gvk.Kind == "Secret"
}

// Redact returns a copy of u in which every Secret value (data and stringData) is
// replaced by "redacted sha256:<hex>" of its decoded bytes, so that diffs show that a
// value changed without showing it. Other objects are returned unchanged (copied).
func Redact(u *unstructured.Unstructured) *unstructured.Unstructured {
	if u == nil {
		return nil
	}
	out := u.DeepCopy()
	if !IsSecret(u) {
		return out
	}
	for _, field := range []string{"data", "stringData"} {
		m, ok := out.Object[field].(map[string]any)
		if !ok {
			continue
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			s, _ := m[k].(string)
			value := []byte(s)
			if field == "data" {
				if decoded, err := base64.StdEncoding.DecodeString(s); err == nil {
					value = decoded
				}
			}
			sum := sha256.Sum256(value)
			m[k] = "redacted sha256:" + hex.EncodeToString(sum[:])
		}
	}
	// The last-applied annotation would carry the values in clear.
	if ann := out.GetAnnotations(); ann != nil {
		if _, ok := ann["kubectl.kubernetes.io/last-applied-configuration"]; ok {
			ann["kubectl.kubernetes.io/last-applied-configuration"] = "redacted"
			out.SetAnnotations(ann)
		}
	}
	return out
}
