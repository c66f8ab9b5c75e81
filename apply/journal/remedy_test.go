package journal

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"
)

func TestFieldKeysRoundTrip(t *testing.T) {
	for _, path := range [][]string{
		{"spec", "minAvailable"},
		{"metadata", "annotations", "cloudcredential.openshift.io/upgradeable-to"},
		{"data", `a\b.c`},
	} {
		key := FieldKey(path)
		if got, err := ParseFieldKey(key); err != nil || !reflect.DeepEqual(got, path) {
			t.Errorf("%q -> %q -> %q (%v)", path, key, got, err)
		}
	}
	if k := FieldKey([]string{"metadata", "annotations", "a.b/c"}); k != `metadata.annotations.a\.b/c` {
		t.Errorf("key %s", k)
	}
	for _, bad := range []string{"spec..x", `spec.\x`, "", "spec."} {
		if _, err := ParseFieldKey(bad); err == nil {
			t.Errorf("ParseFieldKey(%q) should fail", bad)
		}
	}
	cmd := RestoreCommand(ObjectRef{APIVersion: "policy/v1", Kind: "PodDisruptionBudget", Namespace: "ns", Name: "web"},
		map[string]json.RawMessage{"spec.minAvailable": json.RawMessage(`1`), "spec.maxUnavailable": Absent})
	if want := `oc patch poddisruptionbudget/web -n ns --type=merge -p '{"spec":{"maxUnavailable":null,"minAvailable":1}}'`; cmd != want {
		t.Errorf("restore command\n got %s\nwant %s", cmd, want)
	}
}

// TestStateFollowsTemporaryChanges plays the journal of a relax-pdb (temporary,
// reverted by step 004) through a revert-on-stop, a resume that makes the change
// again, and the plan's revert step.
func TestStateFollowsTemporaryChanges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.journal")
	w, err := Create(path, Header{RunID: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	pdb := ObjectRef{APIVersion: "policy/v1", Kind: "PodDisruptionBudget", Namespace: "ns", Name: "web"}
	pre := map[string]json.RawMessage{"spec.minAvailable": json.RawMessage(`1`), "spec.maxUnavailable": json.RawMessage(`null`)}
	write := func(r Record) {
		t.Helper()
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	step := func(id string) *StepState { return w.State().Step(id) }

	relax := Record{Type: TypeIntent, Step: "002-relax", Action: "relax-pdb", Intent: &Intent{Operation: "patch", Object: pdb, LiveUID: "u1", PreImage: pre, After: `{"spec.minAvailable":0,"spec.maxUnavailable":null}`, Temporary: true}}
	write(relax)
	if s := step("002-relax"); s.Status != StepInFlight || !s.ChangeOutstanding || !reflect.DeepEqual(s.PreImage, pre) || s.ObjectUID != "u1" || string(s.After["spec.minAvailable"]) != "0" {
		t.Fatalf("after the intent: %+v", s)
	}
	if out := w.State().Outstanding(); len(out) != 1 || out[0].ID != "002-relax" {
		t.Fatalf("outstanding %+v", out)
	}
	write(Record{Type: TypeOutcome, Step: "002-relax", Action: "relax-pdb", Outcome: &Outcome{Result: "patched"}})
	write(Record{Type: TypeGate, Step: "002-relax", Action: "relax-pdb", Gate: &GateResult{Kind: "nodes-settled", Result: "timeout"}})
	// The run stops: the engine reverts the change.
	write(Record{Type: TypeIntent, Step: "002-relax", Action: "relax-pdb", Intent: &Intent{Operation: OperationRevert, Object: pdb, RevertOf: "002-relax"}})
	if s := step("002-relax"); s.Status != StepFailed || !s.ChangeOutstanding {
		t.Fatalf("a revert intent leaves the step's status: %+v", s)
	}
	write(Record{Type: TypeOutcome, Step: "002-relax", Action: "relax-pdb", Outcome: &Outcome{Result: ResultReverted}})
	write(Record{Type: TypeReverted, Step: "002-relax", Action: "relax-pdb", Message: "run stopped"})
	s := step("002-relax")
	if s.Status != StepReverted || s.Complete() || s.ChangeOutstanding || s.Reverts != 1 || s.RestoredBy != RestoredOnStop || s.Mutations != 1 {
		t.Fatalf("after revert-on-stop: %+v", s)
	}
	if len(w.State().Outstanding()) != 0 {
		t.Fatal("nothing is outstanding after the revert")
	}
	w.Close()

	// Resume: the change is made again with the first intent's pre-image.
	w, _, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if s := step("002-relax"); s.Status != StepReverted {
		t.Fatalf("reopened: %+v", s)
	}
	write(relax)
	write(Record{Type: TypeOutcome, Step: "002-relax", Action: "relax-pdb", Outcome: &Outcome{Result: "patched"}})
	write(Record{Type: TypeStep, Step: "002-relax", Action: "relax-pdb", Status: StepDone})
	if s := step("002-relax"); !s.Complete() || !s.ChangeOutstanding || s.Mutations != 2 {
		t.Fatalf("made again: %+v", s)
	}
	// The plan's revert step: its intent names the step it undoes.
	write(Record{Type: TypeIntent, Step: "004-revert", Action: "revert", Intent: &Intent{Operation: OperationRevert, Object: pdb, RevertOf: "002-relax"}})
	if s := step("004-revert"); s.Status != StepInFlight || s.RevertOf != "002-relax" {
		t.Fatalf("revert in flight: %+v", s)
	}
	if !step("002-relax").ChangeOutstanding {
		t.Fatal("outstanding until the revert's outcome")
	}
	write(Record{Type: TypeOutcome, Step: "004-revert", Action: "revert", Outcome: &Outcome{Result: ResultReverted}})
	s = step("002-relax")
	if s.ChangeOutstanding || s.RestoredBy != "004-revert" || s.Reverts != 2 || !s.Complete() {
		t.Fatalf("after the plan's revert: %+v", s)
	}
	if r := step("004-revert"); r.Status != StepApplied || r.Mutations != 1 {
		t.Fatalf("revert step: %+v", r)
	}
}

// TestRevertStepDoneClearsTheChange: a revert whose patch reached the server
// before a kill, found restored on resume (no outcome of its own), still
// clears the change once the revert step is done.
func TestRevertStepDoneClearsTheChange(t *testing.T) {
	j := &Journal{Records: []Record{
		{Type: TypeHeader, Seq: 1, Header: &Header{RunID: "r"}},
		{Type: TypeIntent, Seq: 2, Step: "a", Intent: &Intent{PreImage: map[string]json.RawMessage{"spec.x": json.RawMessage(`1`)}, Temporary: true}},
		{Type: TypeOutcome, Seq: 3, Step: "a", Outcome: &Outcome{Result: "patched"}},
		{Type: TypeIntent, Seq: 4, Step: "b", Intent: &Intent{PreImage: map[string]json.RawMessage{"spec.y": json.RawMessage(`1`)}, Temporary: true}},
		{Type: TypeStep, Seq: 5, Step: "a", Status: StepDone},
		{Type: TypeIntent, Seq: 6, Step: "r", Intent: &Intent{Operation: OperationRevert, RevertOf: "a"}},
		{Type: TypeResume, Seq: 7, Resume: &Resume{RunID: "r2"}},
	}}
	st := j.State()
	if out := st.Outstanding(); len(out) != 2 || out[0].ID != "b" || out[1].ID != "a" {
		t.Fatalf("outstanding newest first: %+v", out)
	}
	j.Records = append(j.Records, Record{Type: TypeStep, Seq: 8, Step: "r", Status: StepDone})
	st = j.State()
	if a := st.Step("a"); a.ChangeOutstanding || a.RestoredBy != "r" {
		t.Fatalf("a: %+v", a)
	}
	if out := st.Outstanding(); len(out) != 1 || out[0].ID != "b" {
		t.Fatalf("outstanding: %+v", out)
	}
}
