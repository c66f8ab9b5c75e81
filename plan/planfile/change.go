package planfile

import (
	"encoding/json"
	"strconv"
	"strings"
)

// field is one path a Change sets, with the value the patch writes and the value
// the snapshot shows (nil: absent, written as JSON null).
type Field struct {
	Path          []string
	After, Before any
}

// newChange builds a Change: a merge patch of exactly the given fields, their
// paths, and the snapshot's values of them in the same shape ("before -> patch"
// reads as a diff of those fields only).
func NewChange(obj ObjectRef, uid string, fields ...Field) *Change {
	patch, before := map[string]any{}, map[string]any{}
	c := &Change{Object: obj, UID: uid}
	for _, f := range fields {
		setPath(patch, f.Path, f.After)
		setPath(before, f.Path, f.Before)
		c.Fields = append(c.Fields, append([]string(nil), f.Path...))
	}
	c.Patch = MustJSON(patch)
	c.Before = MustJSON(before)
	return c
}

// setPath sets m[p0][p1]...=v, creating the maps on the way.
func setPath(m map[string]any, path []string, v any) {
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
}

// mustJSON marshals values built from maps, strings, numbers and bools, which
// cannot fail.
func MustJSON(v any) json.RawMessage {
	data, err := json.Marshal(v)
	if err != nil {
		panic("plan: marshalling a change: " + err.Error())
	}
	return data
}

// patchValue returns the value at path in a merge patch.
func patchValue(patch json.RawMessage, path ...string) (any, bool) {
	var v any
	if json.Unmarshal(patch, &v) != nil {
		return nil, false
	}
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// patchString returns the string at path in a merge patch.
func patchString(patch json.RawMessage, path ...string) (string, bool) {
	v, ok := patchValue(patch, path...)
	s, isString := v.(string)
	return s, ok && isString
}

// intOrString turns a PDB bound as the snapshot writes it ("2", "50%", "") into
// its JSON value (2, "50%", null).
func intOrString(s string) any {
	if s == "" {
		return nil
	}
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return s
}

// orNil returns nil for "" (an absent field), else s.
func OrNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// fieldsText is "spec.minAvailable, spec.maxUnavailable".
func FieldsText(fs [][]string) string {
	var out []string
	for _, f := range fs {
		out = append(out, strings.Join(f, "."))
	}
	return strings.Join(out, ", ")
}

// sameObject reports whether two references name the same object.
func SameObject(a, b ObjectRef) bool {
	return a.Kind == b.Kind && a.Namespace == b.Namespace && a.Name == b.Name && apiGroup(a.APIVersion) == apiGroup(b.APIVersion)
}

// apiGroup is the group of an apiVersion ("" for "v1").
func apiGroup(apiVersion string) string {
	g, _, ok := strings.Cut(apiVersion, "/")
	if !ok {
		return ""
	}
	return g
}

// objectKey is "<group>/<Kind>/<namespace>/<name>".
func ObjectKey(o ObjectRef) string {
	return apiGroup(o.APIVersion) + "/" + o.Kind + "/" + o.Namespace + "/" + o.Name
}
