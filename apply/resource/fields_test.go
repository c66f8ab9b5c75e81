package resource

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestMergePatchAndRestoreRoundTrip(t *testing.T) {
	live := map[string]any{"metadata": map[string]any{"name": "web", "annotations": map[string]any{"a": "1"}},
		"spec": map[string]any{"minAvailable": int64(2), "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}}}}
	fields := [][]string{{"spec", "minAvailable"}, {"spec", "maxUnavailable"}, {"metadata", "annotations"}}
	pre := FieldValues(live, fields)
	if string(pre["spec.minAvailable"]) != "2" || string(pre["spec.maxUnavailable"]) != "null" || string(pre["metadata.annotations"]) != `{"a":"1"}` {
		t.Fatalf("pre-image %v", pre)
	}
	patch, err := DecodePatch([]byte(`{"spec":{"minAvailable":null,"maxUnavailable":"100%"},"metadata":{"annotations":{"b":"2"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	changed := ApplyMergePatch(live, patch)
	if v, ok := FieldValue(changed, []string{"spec", "minAvailable"}); ok {
		t.Errorf("null removes: %v", v)
	}
	if _, ok := FieldValue(live, []string{"spec", "maxUnavailable"}); ok {
		t.Error("ApplyMergePatch must not change its input")
	}
	restore, err := RestorePatch(changed, fields, pre)
	if err != nil {
		t.Fatal(err)
	}
	back := ApplyMergePatch(changed, restore)
	if got := jsonRoundTrip(back); !reflect.DeepEqual(got, jsonRoundTrip(live)) {
		t.Errorf("restore is not exact:\n got %v\nwant %v\npatch %v", got, jsonRoundTrip(live), restore)
	}
	if again, err := RestorePatch(back, fields, pre); err != nil || again != nil {
		t.Errorf("restoring a restored object is a no-op: %v %v", again, err)
	}
	if _, err := RestorePatch(changed, [][]string{{"spec", "x"}}, pre); err == nil {
		t.Error("a field without a pre-image must be an error")
	}
}

func TestPatchPathsAndCovers(t *testing.T) {
	patch, _ := DecodePatch([]byte(`{"spec":{"a":1,"b":{"c":null}},"metadata":{"annotations":{"x.y/z":"v"}}}`))
	got := PatchPaths(patch)
	want := [][]string{{"metadata", "annotations", "x.y/z"}, {"spec", "a"}, {"spec", "b", "c"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("paths %q, want %q", got, want)
	}
	if !Covers([][]string{{"spec", "b"}}, []string{"spec", "b", "c"}) || Covers([][]string{{"spec", "b", "c"}}, []string{"spec", "b"}) || Covers(nil, []string{"spec"}) {
		t.Error("Covers: a field covers itself and what is under it, nothing else")
	}
	if _, err := DecodePatch(json.RawMessage(`[1]`)); err == nil {
		t.Error("an array is not a merge patch")
	}
	if !SameJSON(json.RawMessage(`{"a":1,"b":2}`), json.RawMessage(`{"b":2, "a":1}`)) || SameJSON(json.RawMessage(`1`), json.RawMessage(`"1"`)) || !SameJSON(nil, json.RawMessage(`null`)) {
		t.Error("SameJSON compares values")
	}
}
