package resource

import (
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// Diff returns a unified diff of two versions of an object as YAML, without the
// fields that change on every write (resourceVersion, managedFields, generation,
// uid, creationTimestamp) and status, and with Secret values hashed. A nil side is
// an absent object. It is empty when the two are the same.
func Diff(before, after *unstructured.Unstructured) string {
	a, b := diffText(before), diffText(after)
	if a == b {
		return ""
	}
	return maskURLCredentials(udiff.Unified("live", "desired", a, b))
}

func diffText(u *unstructured.Unstructured) string {
	if u == nil {
		return ""
	}
	r := Redact(u)
	delete(r.Object, "status")
	r.SetResourceVersion("")
	r.SetManagedFields(nil)
	r.SetGeneration(0)
	r.SetUID("")
	if md, ok := r.Object["metadata"].(map[string]any); ok {
		delete(md, "creationTimestamp")
	}
	data, err := yaml.Marshal(r.Object)
	if err != nil {
		return "# cannot render: " + err.Error()
	}
	return strings.TrimRight(string(data), "\n") + "\n"
}
