package printer

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/fleet/verdict"
)

// memStore keeps the verdict in memory and records every save.
type memStore struct {
	mu    sync.Mutex
	v     *verdict.Verdict
	saves []verdict.Verdict
	fail  error
}

func (m *memStore) Load(context.Context) (*verdict.Verdict, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.v == nil {
		return nil, errors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, "recover-verdict")
	}
	c := *m.v
	return &c, nil
}

func (m *memStore) Save(_ context.Context, v *verdict.Verdict) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return m.fail
	}
	c := *v
	m.v = &c
	m.saves = append(m.saves, c)
	return nil
}

// recorded reads one of apply's recorded event streams (the golden files of
// events_golden_test.go).
func recorded(t *testing.T, name string) []apply.Event {
	t.Helper()
	f, err := os.Open("../testdata/events." + name + ".jsonl.golden")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []apply.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev apply.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Type != "version" {
			out = append(out, ev)
		}
	}
	return out
}

// TestVerdictFollowsARun feeds the recorded streams of a completed run and of
// a run stopped at a gate to the verdict printer: the inspect part of the
// verdict stays, the apply part ends with the run's outcome, and only a
// completed run settles the cluster.
func TestVerdictFollowsARun(t *testing.T) {
	tests := []struct {
		stream      string
		result      string
		step        string
		settled     bool
		cvoDisabled bool
		handBack    string
	}{
		{"full", "completed", "", true, false, ""},
		{"revert-on-stop", "gate-failed", "002-relax-pdb-web", false, true, "oc scale deployment/cluster-version-operator -n openshift-cluster-version --replicas=1"},
	}
	for _, tt := range tests {
		t.Run(tt.stream, func(t *testing.T) {
			inspected := &verdict.Verdict{FormatVersion: verdict.FormatVersion, Wave: "w3", Wedged: true, Signature: "abc",
				Causes: []verdict.Cause{{Rank: 1, Code: "DrainBlockedByPDB", Subject: "poddisruptionbudget/recover-remedy/web"}},
				Remedy: verdict.Remedy{Answer: verdict.AnswerPlan, Remedies: []string{"relax-pdb"}}}
			st := &memStore{v: inspected}
			p, err := NewVerdict(context.Background(), st)
			if err != nil {
				t.Fatal(err)
			}
			evs := recorded(t, tt.stream)
			for _, ev := range evs {
				if err := p.Print(ev); err != nil {
					t.Fatal(err)
				}
			}
			got := st.v
			a := got.Apply
			if a == nil || a.Phase != verdict.PhaseDone || a.Result != tt.result || a.CVODisabled != tt.cvoDisabled || a.HandBack != tt.handBack || a.PlanDigest != "sha256:test" {
				t.Fatalf("apply state %+v, want done %s cvoDisabled %v handBack %q", a, tt.result, tt.cvoDisabled, tt.handBack)
			}
			if tt.cvoDisabled && (a.CVOReplicas != 1 || verdict.FieldCVOReplicas.Value(got) != "1") {
				t.Errorf("cvoReplicas %d, field %q; want 1", a.CVOReplicas, verdict.FieldCVOReplicas.Value(got))
			}
			if tt.step != "" && a.Step != tt.step {
				t.Errorf("step %s, want %s", a.Step, tt.step)
			}
			if got.Settled != tt.settled || got.Wave != "w3" || got.Signature != "abc" || len(got.Causes) != 1 {
				t.Errorf("verdict %+v: the inspect part changed, or settled is not %v", got, tt.settled)
			}
			if verdict.FieldApplyResult.Value(got) != tt.result {
				t.Errorf("applyResult field %q", verdict.FieldApplyResult.Value(got))
			}
			// Far fewer writes than events: only the phase and step changes, coalesced.
			if len(st.saves) == 0 || len(st.saves) > len(evs)/2+1 {
				t.Errorf("%d saves for %d events", len(st.saves), len(evs))
			}
		})
	}
}

// TestVerdictWithoutInspectAndFailingStore: with no verdict yet the printer
// starts one; a store that refuses every write fails the last event, not the
// ones before (the run goes on).
func TestVerdictWithoutInspectAndFailingStore(t *testing.T) {
	st := &memStore{}
	p, err := NewVerdict(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range recorded(t, "full") {
		if err := p.Print(ev); err != nil {
			t.Fatal(err)
		}
	}
	if st.v == nil || st.v.FormatVersion != verdict.FormatVersion || !st.v.Settled {
		t.Fatalf("verdict %+v", st.v)
	}

	bad := &memStore{v: &verdict.Verdict{FormatVersion: verdict.FormatVersion}, fail: errors.NewServiceUnavailable("down")}
	p, err = NewVerdict(context.Background(), bad)
	if err != nil {
		t.Fatal(err)
	}
	evs := recorded(t, "full")
	for _, ev := range evs[:len(evs)-1] {
		if err := p.Print(ev); err != nil {
			t.Fatalf("%s: %v", ev.Type, err)
		}
	}
	if err := p.Print(evs[len(evs)-1]); err == nil {
		t.Error("the last event succeeded although no write did")
	}
	if err := p.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}

func TestVerdictCompletedIsApplysOutcome(t *testing.T) {
	if verdict.ResultCompleted != string(apply.OutcomeCompleted) {
		t.Errorf("verdict.ResultCompleted %q, apply.OutcomeCompleted %q", verdict.ResultCompleted, apply.OutcomeCompleted)
	}
}

// TestNoPlanSettlesNothing: a run that found no plan keeps done and no-plan in
// the verdict, and leaves settled as inspect left it: a cluster nothing held
// stays settled, a refused one stays unsettled; a store that cannot save is an
// error.
func TestNoPlanSettlesNothing(t *testing.T) {
	now := time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		answer  verdict.Answer
		settled bool
	}{
		{verdict.AnswerNone, true},
		{verdict.AnswerRefused, false},
	} {
		st := &memStore{v: &verdict.Verdict{FormatVersion: verdict.FormatVersion, Wave: "w1", Settled: tc.settled, Remedy: verdict.Remedy{Answer: tc.answer}}}
		if err := NoPlan(context.Background(), st, "nothing to apply: why", now); err != nil {
			t.Fatal(err)
		}
		v := st.v
		if a := v.Apply; a == nil || a.Phase != verdict.PhaseDone || a.Result != verdict.ResultNoPlan || a.Message != "nothing to apply: why" || !a.UpdatedAt.Equal(now) ||
			v.Settled != tc.settled || v.Wave != "w1" || v.Remedy.Answer != tc.answer || len(st.saves) != 1 {
			t.Errorf("%s: verdict %+v, apply %+v, %d saves", tc.answer, v, v.Apply, len(st.saves))
		}
	}
	if err := NoPlan(context.Background(), &memStore{v: &verdict.Verdict{}, fail: errors.NewTimeoutError("slow", 1)}, "x", now); err == nil {
		t.Error("a failed save was not reported")
	}
}
