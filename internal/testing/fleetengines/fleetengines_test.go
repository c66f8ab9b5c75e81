package fleetengines

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

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

func TestConditions(t *testing.T) {
	cm := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"wave": "w1"}}
	job := map[string]any{"apiVersion": "batch/v1", "kind": "Job", "status": map[string]any{"conditions": []any{map[string]any{"type": "Complete", "status": "True"}}}}
	for _, tc := range []struct {
		name   string
		obj    map[string]any
		rule   ConditionRule
		status metav1.ConditionStatus
		reason string
	}{
		{"guarded, present", cm, ConditionRule{Condition: "Progressing", Type: "CEL", CelExpressions: []string{`!(has(object.data) && has(object.data.wave) && object.data.wave == "w1")`}}, metav1.ConditionFalse, ReasonRuleEvaluated},
		{"guarded, other wave", cm, ConditionRule{Condition: "Progressing", Type: "CEL", CelExpressions: []string{`!(has(object.data) && has(object.data.wave) && object.data.wave == "w2")`}}, metav1.ConditionTrue, ReasonRuleEvaluated},
		{"a missing key is an error, and an error is False", cm, ConditionRule{Condition: "Progressing", Type: "CEL", CelExpressions: []string{`object.data.settled != "true"`}}, metav1.ConditionFalse, ReasonRuleExpressionError},
		{"not a bool", cm, ConditionRule{Condition: "X", Type: "CEL", CelExpressions: []string{`"yes"`}}, metav1.ConditionFalse, ReasonRuleExpressionError},
		{"all expressions", cm, ConditionRule{Condition: "X", Type: "CEL", CelExpressions: []string{"true", "false"}}, metav1.ConditionFalse, ReasonRuleEvaluated},
		{"hasConditions", job, ConditionRule{Condition: "Progressing", Type: "CEL", CelExpressions: []string{`!(hasConditions(object.status) && object.status.conditions.exists(c, c.type == 'Complete' && c.status == 'True'))`}}, metav1.ConditionFalse, ReasonRuleEvaluated},
		{"well-known Complete of a Job", job, ConditionRule{Condition: "Complete", Type: "WellKnownConditions"}, metav1.ConditionTrue, ReasonRuleEvaluated},
	} {
		got := Conditions(tc.obj, []ConditionRule{tc.rule})
		if len(got) != 1 || got[0].Status != tc.status || got[0].Reason != tc.reason {
			t.Errorf("%s: %+v, want %s %s", tc.name, got, tc.status, tc.reason)
		}
	}
	if got := Conditions(cm, []ConditionRule{{Condition: "Complete", Type: "WellKnownConditions"}}); len(got) != 0 {
		t.Errorf("a well-known rule of another kind made %+v", got)
	}
}

func TestClusterRolloutStatus(t *testing.T) {
	c := func(typ string, s metav1.ConditionStatus, gen int64) metav1.Condition {
		return metav1.Condition{Type: typ, Status: s, ObservedGeneration: gen}
	}
	for _, tc := range []struct {
		name  string
		conds []metav1.Condition
		want  RolloutStatus
	}{
		{"no Progressing", []metav1.Condition{c(Applied, "True", 2)}, ToApply},
		{"not applied", []metav1.Condition{c(Applied, "False", 2), c(Progressing, "False", 2)}, ToApply},
		{"an older generation", []metav1.Condition{c(Applied, "True", 2), c(Progressing, "False", 1)}, ToApply},
		{"progressing", []metav1.Condition{c(Applied, "True", 2), c(Progressing, "True", 2)}, RolloutProgessing},
		{"unknown", []metav1.Condition{c(Applied, "True", 2), c(Progressing, "Unknown", 2)}, RolloutProgessing},
		{"failed", []metav1.Condition{c(Applied, "True", 2), c(Progressing, "True", 2), c(Degraded, "True", 2)}, Failed},
		{"succeeded", []metav1.Condition{c(Applied, "True", 2), c(Progressing, "False", 2), c(Degraded, "True", 2)}, Succeeded},
	} {
		if got := ClusterRolloutStatus(2, tc.conds); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestProgressive(t *testing.T) {
	all := []string{"c", "a", "b", "d"}
	for _, tc := range []struct {
		name      string
		mandatory []string
		status    map[string]RolloutStatus
		want      []string
	}{
		{"start", nil, nil, []string{"a"}},
		{"first progressing", nil, map[string]RolloutStatus{"a": RolloutProgessing}, []string{"a"}},
		{"first never progresses", nil, map[string]RolloutStatus{"a": ToApply}, []string{"a"}},
		{"first succeeded", nil, map[string]RolloutStatus{"a": Succeeded}, []string{"b"}},
		{"a failure stops it", nil, map[string]RolloutStatus{"a": Failed}, []string{"a"}},
		{"canary first", []string{"d"}, nil, []string{"d"}},
		{"canary progressing", []string{"d"}, map[string]RolloutStatus{"d": RolloutProgessing}, []string{"d"}},
		{"canary failed", []string{"d"}, map[string]RolloutStatus{"d": Failed}, []string{"d"}},
		{"canary succeeded", []string{"d"}, map[string]RolloutStatus{"d": Succeeded}, []string{"a"}},
	} {
		got := Progressive(tc.mandatory, all, tc.status, 1, 0)
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestBlockingCRs: a CGU waits for every blocking CGU (missing, or without
// conditions, or without Succeeded True); in the partial mode a Succeeded
// condition of any status is enough, and with cluster filtering only the
// clusters every blocker completed go on.
func TestBlockingCRs(t *testing.T) {
	done := func(ok bool, clusters map[string]string) *CGUStatus {
		st := metav1.ConditionFalse
		if ok {
			st = metav1.ConditionTrue
		}
		return &CGUStatus{Conditions: []metav1.Condition{{Type: CGUSucceeded, Status: st}}, Clusters: clusters}
	}
	running := &CGUStatus{Conditions: []metav1.Condition{{Type: "Progressing", Status: metav1.ConditionTrue}}}
	partial := map[string]string{BlockingCompletionModeAnnotation: PartialBlockingCompletion, BlockingClusterFilterAnnotation: "true"}
	for _, tc := range []struct {
		name        string
		ann         map[string]string
		cgus        map[string]*CGUStatus
		notDone     []string
		missing     []string
		clustersRun []string
	}{
		{"missing", nil, map[string]*CGUStatus{"s1": done(true, nil)}, nil, []string{"s2"}, []string{"a", "b"}},
		{"no conditions", nil, map[string]*CGUStatus{"s1": {}, "s2": done(true, nil)}, []string{"s1"}, nil, []string{"a", "b"}},
		{"running", nil, map[string]*CGUStatus{"s1": running, "s2": done(true, nil)}, []string{"s1"}, nil, []string{"a", "b"}},
		{"failed, full mode", nil, map[string]*CGUStatus{"s1": done(false, nil), "s2": done(true, nil)}, []string{"s1"}, nil, []string{"a", "b"}},
		{"failed, partial mode", partial, map[string]*CGUStatus{"s1": done(false, map[string]string{"a": ClusterComplete, "b": "timedout"}), "s2": done(true, map[string]string{"a": ClusterComplete, "b": ClusterComplete})}, nil, nil, []string{"a"}},
		{"running, partial mode", partial, map[string]*CGUStatus{"s1": running, "s2": done(true, nil)}, []string{"s1"}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			notDone, missing := BlockersNotCompleted(tc.ann, []string{"s1", "s2"}, tc.cgus)
			if fmt.Sprint(notDone) != fmt.Sprint(tc.notDone) || fmt.Sprint(missing) != fmt.Sprint(tc.missing) {
				t.Errorf("not completed %v, missing %v; want %v, %v", notDone, missing, tc.notDone, tc.missing)
			}
			if len(notDone)+len(missing) == 0 {
				if got := ClustersPastBlockers(tc.ann, []string{"s1", "s2"}, tc.cgus, []string{"a", "b"}); fmt.Sprint(got) != fmt.Sprint(tc.clustersRun) {
					t.Errorf("clusters %v, want %v", got, tc.clustersRun)
				}
			}
		})
	}
}
