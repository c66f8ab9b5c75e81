package fleetengines

import "testing"

func TestFeedbackValue(t *testing.T) {
	obj := map[string]any{"data": map[string]any{"wedged": "true"}, "status": map[string]any{"n": int64(3), "ok": true, "list": []any{"a"},
		"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}}
	for _, tc := range []struct {
		path string
		want Value
		ok   bool
		err  bool
	}{
		{".data.wedged", Value{"String", "true"}, true, false},
		{".data.missing", Value{}, false, false},
		{".status.n", Value{"Integer", "3"}, true, false},
		{".status.ok", Value{"Boolean", "true"}, true, false},
		{`.status.conditions[?(@.type=="Ready")].status`, Value{"String", "True"}, true, false},
		{".status.list", Value{}, false, true},
		{".status", Value{}, false, true},
	} {
		got, ok, err := FeedbackValue(obj, "x", tc.path)
		if got != tc.want || ok != tc.ok || (err != nil) != tc.err {
			t.Errorf("%s: %+v %v %v, want %+v %v err %v", tc.path, got, ok, err, tc.want, tc.ok, tc.err)
		}
	}
}

func TestCompleted(t *testing.T) {
	ready := map[int32]Manifest{3: {Ready: true, Feedback: map[string]Value{"wave": {"String", "w1"}, "settled": {"Boolean", "true"}}}}
	for _, tc := range []struct {
		name      string
		workReady bool
		ann       string
		manifests map[int32]Manifest
		want      bool
	}{
		{"all match", true, `[{"manifestIndex":3,"name":"wave","value":"w1"},{"manifestIndex":3,"name":"settled","value":"true"}]`, ready, true},
		{"work not ready", false, `[]`, ready, false},
		{"no expectations", true, "", nil, true},
		{"other value", true, `[{"manifestIndex":3,"name":"wave","value":"w2"}]`, ready, false},
		{"missing name", true, `[{"manifestIndex":3,"name":"answer","value":""}]`, ready, true},
		{"other ordinal", true, `[{"manifestIndex":2,"name":"wave","value":"w1"}]`, ready, false},
		{"manifest not synced", true, `[{"manifestIndex":3,"name":"wave","value":"w1"}]`, map[int32]Manifest{3: {Feedback: ready[3].Feedback}}, false},
	} {
		got, err := Completed(tc.workReady, tc.ann, tc.manifests)
		if err != nil || got != tc.want {
			t.Errorf("%s: %v %v, want %v", tc.name, got, err, tc.want)
		}
	}
	if _, err := Completed(true, "{", nil); err == nil {
		t.Error("a broken annotation was read")
	}
}
