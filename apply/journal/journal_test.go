package journal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func ptr[T any](v T) *T { return &v }

func TestWriterCreatesPrivateFsyncedJournalAndStateFollowsRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.journal")
	w, err := Create(path, Header{RunID: "r1", Plan: PlanRef{Path: "/p.json", Digest: "sha256:x", Steps: 4}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []Record{
		{Type: TypeBackup, Backup: &Backup{Acknowledged: true}},
		{Type: TypeIntent, Step: "001", Action: "disable-cvo", Intent: &Intent{Operation: "scale-down", CVOReplicas: ptr(int32(2))}},
		{Type: TypeOutcome, Step: "001", Action: "disable-cvo", Outcome: &Outcome{Result: "scaled"}},
		{Type: TypeGate, Step: "001", Action: "disable-cvo", Gate: &GateResult{Kind: "cvo-scaled-down", Result: "passed"}},
		{Type: TypeStep, Step: "001", Action: "disable-cvo", Status: StepDone},
		{Type: TypeIntent, Step: "002", Action: "delete", Intent: &Intent{Operation: "delete"}},
		{Type: TypeOutcome, Step: "002", Action: "delete", Outcome: &Outcome{Result: "deleted"}},
	} {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	// A second writer is refused while the first holds the journal.
	if _, _, err := Open(path); !errors.Is(err, ErrInUse) {
		t.Fatalf("second writer: want ErrInUse, got %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	j, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	st := j.State()
	if st.CVO.OriginalReplicas == nil || *st.CVO.OriginalReplicas != 2 || !st.CVO.Disabled {
		t.Errorf("CVO state %+v", st.CVO)
	}
	if s := st.Step("001"); !s.Complete() || s.Mutations != 1 {
		t.Errorf("step 001: %+v", s)
	}
	if s := st.Step("002"); s.Status != StepApplied || s.Mutations != 1 || st.InFlight != "002" {
		t.Errorf("step 002: %+v, in flight %q", s, st.InFlight)
	}
	if st.Backup == nil || !st.Backup.Acknowledged || st.RunID != "r1" {
		t.Errorf("backup %+v run %q", st.Backup, st.RunID)
	}
}

func TestTornTailIsIgnoredOnLoadAndCutOnOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.journal")
	w, err := Create(path, Header{RunID: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	_ = w.Write(Record{Type: TypeIntent, Step: "001", Intent: &Intent{Operation: "create"}})
	w.Close()
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"type":"outcome","seq":3,"step":"001","outc`)
	f.Close()
	j, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !j.TornTail || len(j.Records) != 2 || j.State().Step("001").Status != StepInFlight {
		t.Fatalf("torn %v, %d records, step %+v", j.TornTail, len(j.Records), j.State().Step("001"))
	}
	w, j, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(Record{Type: TypeResume, Resume: &Resume{RunID: "r2"}}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	j, err = Load(path)
	if err != nil || j.TornTail || len(j.Records) != 3 || j.Records[2].Seq != 3 || j.State().RunID != "r2" {
		t.Fatalf("after reopen: %v torn %v records %d", err, j.TornTail, len(j.Records))
	}
}

func TestLoadRejectsWhatIsNotAJournal(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"empty":        "",
		"not json":     "hello\n",
		"no header":    `{"type":"intent","seq":1}` + "\n",
		"future major": `{"type":"header","seq":1,"header":{"formatVersion":"2.0","runID":"x"}}` + "\n",
		"typeless":     `{"type":"header","seq":1,"header":{"formatVersion":"1.0"}}` + "\n{}\n",
	} {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
		os.WriteFile(path, []byte(content), 0o600)
		_, err := Load(path)
		var fe *FormatError
		if !errors.As(err, &fe) || !fe.BadInput() {
			t.Errorf("%s: want a bad-input FormatError, got %v", name, err)
		}
	}
	if _, err := Create(filepath.Join(dir, "empty"), Header{}); err == nil {
		t.Errorf("Create must refuse an existing file")
	}
}
