package journal

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/openshift-recover/recover/internal/testing/inputcheck"
)

// FuzzLoad feeds arbitrary bytes to the journal reader (recover journal, apply
// --resume). A failure must be a one-line bad-input error. A journal that loads
// must give a State without panicking, its records written back must load to the
// same records, and Open must cut a torn last line so the journal loads whole.
func FuzzLoad(f *testing.F) {
	header := `{"type":"header","seq":1,"time":"2020-05-24T16:02:51Z","header":{"formatVersion":"1.0","runID":"r1","plan":{"path":"/p.json","digest":"sha256:x","steps":3},"startedAt":"2020-05-24T16:02:51Z"}}` + "\n"
	f.Add([]byte(header))
	f.Add([]byte(header +
		`{"type":"backup","seq":2,"time":"2020-05-24T16:02:52Z","backup":{"acknowledged":true}}` + "\n" +
		`{"type":"intent","seq":3,"time":"2020-05-24T16:02:53Z","step":"001-disable-cvo","action":"disable-cvo","intent":{"operation":"scale-down","object":{"apiVersion":"apps/v1","kind":"Deployment","namespace":"openshift-cluster-version","name":"cluster-version-operator"},"cvoReplicas":1}}` + "\n" +
		`{"type":"outcome","seq":4,"time":"2020-05-24T16:02:54Z","step":"001-disable-cvo","action":"disable-cvo","outcome":{"result":"scaled"}}` + "\n" +
		`{"type":"gate","seq":5,"time":"2020-05-24T16:02:55Z","step":"001-disable-cvo","action":"disable-cvo","gate":{"kind":"cvo-scaled-down","result":"passed","duration":1000}}` + "\n" +
		`{"type":"step","seq":6,"time":"2020-05-24T16:02:56Z","step":"001-disable-cvo","action":"disable-cvo","status":"done"}` + "\n" +
		`{"type":"stop","seq":7,"time":"2020-05-24T16:02:57Z","step":"002-x","stop":{"reason":"aborted","cvoDisabled":true,"cvoReplicas":1}}` + "\n" +
		`{"type":"resume","seq":8,"time":"2020-05-24T16:03:57Z","resume":{"runID":"r2","inFlight":"002-x"}}` + "\n" +
		`{"type":"intent","seq":9,"time":"2020-05-24T16:03:58Z","step":"003-restore-cvo","action":"restore-cvo","intent":{"operation":"scale-up"`))
	f.Add([]byte(header + `{"type":"outcome","step":"s","outcome":{"result":"failed","error":"boom"}}` + "\n" + `{"type":"gate","step":"s","gate":{"result":"timeout"}}` + "\n" + `{"type":"finish"}` + "\n"))
	f.Add([]byte(header +
		`{"type":"intent","seq":2,"step":"002-relax-pdb-web","action":"relax-pdb","intent":{"operation":"patch","object":{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","namespace":"shop","name":"web"},"preImage":{"spec.minAvailable":2,"spec.maxUnavailable":null},"after":"{\"spec.maxUnavailable\":\"100%\"}","temporary":true}}` + "\n" +
		`{"type":"outcome","seq":3,"step":"002-relax-pdb-web","action":"relax-pdb","outcome":{"result":"patched"}}` + "\n" +
		`{"type":"intent","seq":4,"step":"002-relax-pdb-web","action":"relax-pdb","intent":{"operation":"revert","revertOf":"002-relax-pdb-web"}}` + "\n" +
		`{"type":"outcome","seq":5,"step":"002-relax-pdb-web","action":"relax-pdb","outcome":{"result":"reverted"}}` + "\n" +
		`{"type":"reverted","seq":6,"step":"002-relax-pdb-web","action":"relax-pdb"}` + "\n" +
		`{"type":"intent","seq":7,"step":"003-revert-web","action":"revert","intent":{"operation":"revert","revertOf":"002-relax-pdb-web"}}` + "\n" +
		`{"type":"step","seq":8,"step":"003-revert-web","status":"done"}` + "\n"))
	f.Add([]byte(`{"type":"header","header":{"formatVersion":"2.0"}}` + "\n"))
	f.Add([]byte(`{"type":"step"}` + "\n"))
	f.Add([]byte(`{"seq":1}` + "\n"))
	f.Add([]byte("[]\n"))
	f.Add([]byte{})
	f.Add([]byte{0, 0xff, '\n'})
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "run.journal")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		j, err := Load(path)
		if err != nil {
			if p := inputcheck.Problem(err); p != "" {
				t.Fatal(p)
			}
			return
		}
		st := j.State()
		for _, s := range st.Steps {
			if st.Step(s.ID) != s {
				t.Fatalf("State().Step(%q) does not find the step", s.ID)
			}
		}
		var out bytes.Buffer
		for _, r := range j.Records {
			line, err := json.Marshal(r)
			if err != nil {
				t.Fatalf("a loaded record does not encode: %v", err)
			}
			out.Write(line)
			out.WriteByte('\n')
		}
		again, err := parse(path, out.Bytes())
		if err != nil {
			t.Fatalf("records written back do not load: %v", err)
		}
		if !reflect.DeepEqual(normalized(t, j.Records), normalized(t, again.Records)) || again.TornTail {
			t.Fatalf("records changed over a round trip")
		}
		w, opened, err := Open(path)
		if err != nil {
			t.Fatalf("a journal that loads does not open for resuming: %v", err)
		}
		w.Close()
		if len(opened.Records) != len(j.Records) {
			t.Fatalf("Open read %d records, Load %d", len(opened.Records), len(j.Records))
		}
		cut, err := Load(path)
		if err != nil || cut.TornTail || len(cut.Records) != len(j.Records) {
			t.Fatalf("after Open the journal must load whole: %v, torn %v", err, cut != nil && cut.TornTail)
		}
	})
}

// normalized re-encodes records so that equal content compares equal whatever
// the time zone or pointer identity.
func normalized(t *testing.T, rs []Record) []string {
	t.Helper()
	var out []string
	for _, r := range rs {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}
