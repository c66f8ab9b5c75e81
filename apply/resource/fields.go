package resource

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/openshift-recover/recover/apply/journal"
)

// The helpers below serve the remediation steps, whose change is a JSON merge
// patch (RFC 7386) of a few fields of one object: they read those fields' values
// (the pre-image the journal keeps), apply a patch to a copy, and build the patch
// that writes a pre-image back exactly.

// FieldValue returns the value at path in obj and whether it is present.
func FieldValue(obj map[string]any, path []string) (any, bool) {
	var cur any = obj
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// FieldValues returns the JSON value of each field in obj, keyed by
// journal.FieldKey; an absent field is null.
func FieldValues(obj map[string]any, fields [][]string) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(fields))
	for _, f := range fields {
		v, ok := FieldValue(obj, f)
		raw := json.RawMessage("null")
		if ok && v != nil {
			if data, err := json.Marshal(v); err == nil {
				raw = data
			}
		}
		out[journal.FieldKey(f)] = raw
	}
	return out
}

// SameJSON reports whether two JSON values are equal as values (key order and
// spacing aside); an empty value is null.
func SameJSON(a, b json.RawMessage) bool {
	var x, y any
	if len(bytes.TrimSpace(a)) > 0 && json.Unmarshal(a, &x) != nil {
		return bytes.Equal(a, b)
	}
	if len(bytes.TrimSpace(b)) > 0 && json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(x, y)
}

// DifferingFields returns the keys of want whose value in got differs, sorted.
func DifferingFields(got, want map[string]json.RawMessage) []string {
	var out []string
	for k, w := range want {
		if !SameJSON(got[k], w) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// ApplyMergePatch returns a copy of doc with the merge patch applied (RFC 7386:
// null removes a key, an object merges, anything else replaces).
func ApplyMergePatch(doc map[string]any, patch map[string]any) map[string]any {
	out, _ := mergePatch(runtimeDeepCopy(doc), patch).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	return out
}

func mergePatch(target any, patch any) any {
	pm, ok := patch.(map[string]any)
	if !ok {
		return runtimeDeepCopy(patch)
	}
	tm, ok := target.(map[string]any)
	if !ok {
		tm = map[string]any{}
	}
	for k, v := range pm {
		if v == nil {
			delete(tm, k)
			continue
		}
		tm[k] = mergePatch(tm[k], v)
	}
	return tm
}

// DecodePatch decodes a merge patch, which must be a JSON object.
func DecodePatch(raw json.RawMessage) (map[string]any, error) {
	var p map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&p); err != nil || p == nil {
		if err == nil {
			err = fmt.Errorf("not an object")
		}
		return nil, fmt.Errorf("the change's patch is not a JSON merge patch object: %v", err)
	}
	return normalizeNumbers(p).(map[string]any), nil
}

// normalizeNumbers turns json.Numbers into int64 or float64, as the
// unstructured decoder does, so patched values compare with live ones.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeNumbers(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = normalizeNumbers(e)
		}
		return x
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	}
	return v
}

// PatchPaths returns the paths a merge patch sets or removes: every path to a
// value that is not an object, sorted by key.
func PatchPaths(patch map[string]any) [][]string {
	var out [][]string
	var walk func(prefix []string, m map[string]any)
	walk = func(prefix []string, m map[string]any) {
		for k, v := range m {
			p := append(append([]string(nil), prefix...), k)
			if sub, ok := v.(map[string]any); ok && len(sub) > 0 {
				walk(p, sub)
				continue
			}
			out = append(out, p)
		}
	}
	walk(nil, patch)
	sort.Slice(out, func(i, j int) bool { return journal.FieldKey(out[i]) < journal.FieldKey(out[j]) })
	return out
}

// Covers reports whether one of fields is path or a prefix of it.
func Covers(fields [][]string, path []string) bool {
	for _, f := range fields {
		if len(f) > 0 && len(f) <= len(path) && reflect.DeepEqual(f, path[:len(f)]) {
			return true
		}
	}
	return false
}

// RestorePatch returns the merge patch that sets every field of live to its
// value in pre (keyed by journal.FieldKey; null: remove it). An object value is
// restored exactly: keys the live object has and the pre-image does not are
// removed. Fields already at their pre-image are left out; nil means nothing to
// restore.
func RestorePatch(live map[string]any, fields [][]string, pre map[string]json.RawMessage) (map[string]any, error) {
	patch := map[string]any{}
	n := 0
	for _, f := range fields {
		raw, ok := pre[journal.FieldKey(f)]
		if !ok {
			return nil, fmt.Errorf("the pre-image has no value for %s", journal.FieldKey(f))
		}
		var want any
		if err := json.Unmarshal(raw, &want); err != nil {
			return nil, fmt.Errorf("pre-image of %s: %v", journal.FieldKey(f), err)
		}
		cur, present := FieldValue(live, f)
		if present && reflect.DeepEqual(jsonRoundTrip(cur), want) || !present && want == nil {
			continue
		}
		var value any = want
		if wm, ok := want.(map[string]any); ok {
			if cm, ok := jsonRoundTrip(cur).(map[string]any); ok {
				value = objectDiff(cm, wm)
			}
		}
		setPath(patch, f, value)
		n++
	}
	if n == 0 {
		return nil, nil
	}
	return patch, nil
}

// objectDiff is the merge patch that turns cur into want.
func objectDiff(cur, want map[string]any) map[string]any {
	out := map[string]any{}
	for k := range cur {
		if _, ok := want[k]; !ok {
			out[k] = nil
		}
	}
	for k, w := range want {
		c, ok := cur[k]
		switch {
		case !ok:
			out[k] = w
		case reflect.DeepEqual(c, w):
		default:
			cm, cok := c.(map[string]any)
			wm, wok := w.(map[string]any)
			if cok && wok {
				out[k] = objectDiff(cm, wm)
			} else {
				out[k] = w
			}
		}
	}
	return out
}

func setPath(m map[string]any, path []string, v any) {
	for _, p := range path[:len(path)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
}

// jsonRoundTrip gives a value the shape json.Unmarshal would (float64 numbers).
func jsonRoundTrip(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	_ = json.Unmarshal(data, &out)
	return out
}

// ValueText renders a field value for a diff line: its JSON, or "(absent)".
func ValueText(raw json.RawMessage) string {
	t := strings.TrimSpace(string(raw))
	if t == "" || t == "null" {
		return "(absent)"
	}
	return t
}
