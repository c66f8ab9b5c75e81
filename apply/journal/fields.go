package journal

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/openshift-recover/recover/internal/nextcmd"
)

// FieldKey writes a field path (["metadata","annotations","a.b/c"]) as the dotted
// key a pre-image uses ("metadata.annotations.a\.b/c"): segments joined with dots,
// a dot or backslash inside a segment escaped with a backslash.
func FieldKey(path []string) string {
	parts := make([]string, len(path))
	for i, s := range path {
		s = strings.ReplaceAll(s, `\`, `\\`)
		parts[i] = strings.ReplaceAll(s, ".", `\.`)
	}
	return strings.Join(parts, ".")
}

// ParseFieldKey reads a dotted key back into its path; it is FieldKey's inverse.
func ParseFieldKey(key string) ([]string, error) {
	var path []string
	var cur strings.Builder
	for i := 0; i < len(key); i++ {
		switch c := key[i]; c {
		case '\\':
			if i+1 >= len(key) || (key[i+1] != '.' && key[i+1] != '\\') {
				return nil, fmt.Errorf("field key %q: a backslash must escape a dot or a backslash", key)
			}
			i++
			cur.WriteByte(key[i])
		case '.':
			path = append(path, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	path = append(path, cur.String())
	for _, s := range path {
		if s == "" {
			return nil, fmt.Errorf("field key %q has an empty segment", key)
		}
	}
	return path, nil
}

// Absent is the pre-image value of a field that did not exist.
var Absent = json.RawMessage("null")

// IsAbsent reports whether a pre-image value stands for an absent field.
func IsAbsent(v json.RawMessage) bool {
	return len(v) == 0 || string(v) == "null"
}

// RestorePatch is the JSON merge patch that writes a pre-image back: every field
// set to its journaled value, absent ones (null) removed. Keys are sorted, so the
// patch is the same for the same pre-image.
func RestorePatch(preImage map[string]json.RawMessage) ([]byte, error) {
	root := map[string]any{}
	keys := make([]string, 0, len(preImage))
	for k := range preImage {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		path, err := ParseFieldKey(k)
		if err != nil {
			return nil, err
		}
		var v any
		if !IsAbsent(preImage[k]) {
			if err := json.Unmarshal(preImage[k], &v); err != nil {
				return nil, fmt.Errorf("pre-image of %s: %w", k, err)
			}
		}
		m := root
		for _, seg := range path[:len(path)-1] {
			next, ok := m[seg].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[seg] = next
			}
			m = next
		}
		m[path[len(path)-1]] = v
	}
	return json.Marshal(root)
}

// ResourceArg names an object for oc: "<kind>.<group>/<name>" (the group left
// out for the core group), as oc patch and oc get accept it.
func ResourceArg(o ObjectRef) string {
	return nextcmd.Resource(o.APIVersion, o.Kind, o.Name)
}

// RestoreCommand is the oc command that writes a pre-image back by hand.
func RestoreCommand(o ObjectRef, preImage map[string]json.RawMessage) string {
	patch, err := RestorePatch(preImage)
	if err != nil {
		return fmt.Sprintf("# cannot build the restore patch of %s: %v", ResourceArg(o), err)
	}
	return nextcmd.MergePatch(ResourceArg(o), o.Namespace, string(patch))
}
