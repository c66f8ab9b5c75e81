package incluster_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/openshift-recover/recover/apply/incluster"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/internal/testing/faultproxy"
)

var t0 = time.Date(2020, 5, 24, 16, 0, 0, 0, time.UTC)

// records is a run's journal after its header: a disable-cvo, a relaxed budget
// with a diff, its gate, a stop and the resume that reverts it.
func records() []journal.Record {
	two := int32(2)
	diff := strings.Repeat("-  minAvailable: 2\n+  maxUnavailable: 100%\n", 12)
	var out []journal.Record
	add := func(r journal.Record) {
		r.Time = t0.Add(time.Duration(len(out)) * time.Second)
		out = append(out, r)
	}
	add(journal.Record{Type: journal.TypeBackup, Backup: &journal.Backup{Acknowledged: true, Verified: "acknowledged"}})
	add(journal.Record{Type: journal.TypeIntent, Step: "001-disable-cvo", Action: "disable-cvo", Intent: &journal.Intent{Operation: "scale", CVOReplicas: &two}})
	add(journal.Record{Type: journal.TypeOutcome, Step: "001-disable-cvo", Action: "disable-cvo", Outcome: &journal.Outcome{Result: "scaled"}})
	add(journal.Record{Type: journal.TypeGate, Step: "001-disable-cvo", Action: "disable-cvo", Gate: &journal.GateResult{Kind: "cvo-scaled-down", Result: "passed"}})
	add(journal.Record{Type: journal.TypeStep, Step: "001-disable-cvo", Action: "disable-cvo", Status: journal.StepDone})
	for i := 2; i < 6; i++ {
		id := "00" + strconv.Itoa(i) + "-relax-pdb-web"
		add(journal.Record{Type: journal.TypeIntent, Step: id, Action: "relax-pdb", Intent: &journal.Intent{Operation: "patch", Diff: diff, Temporary: true,
			Object:   journal.ObjectRef{APIVersion: "policy/v1", Kind: "PodDisruptionBudget", Namespace: "shop", Name: "web"},
			PreImage: map[string]json.RawMessage{"spec.minAvailable": json.RawMessage(`2`), "spec.maxUnavailable": json.RawMessage(`null`)},
			After:    `{"spec.maxUnavailable":"100%","spec.minAvailable":null}`}})
		add(journal.Record{Type: journal.TypeOutcome, Step: id, Action: "relax-pdb", Outcome: &journal.Outcome{Result: "patched", ResourceVersion: strconv.Itoa(100 + i)}})
		add(journal.Record{Type: journal.TypeGate, Step: id, Action: "relax-pdb", Gate: &journal.GateResult{Kind: "nodes-settled", Result: "passed", Duration: time.Second}})
		add(journal.Record{Type: journal.TypeStep, Step: id, Action: "relax-pdb", Status: journal.StepDone})
	}
	add(journal.Record{Type: journal.TypeStop, Step: "006-wait", Stop: &journal.Stop{Reason: "gate-failed", Message: "gate not met", CVODisabled: true, CVOReplicas: &two}})
	return out
}

var header = journal.Header{RunID: "run-1", Plan: journal.PlanRef{Path: "configmap:ns/recover-plan", Digest: "sha256:abc", Steps: 9}, StartedAt: t0, Holder: "pod-a"}

func write(t *testing.T, w *journal.Writer, recs []journal.Record) {
	t.Helper()
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatalf("writing %s record: %v", r.Type, err)
		}
	}
}

// chunks returns the journal's ConfigMaps in chunk order.
func chunks(t testing.TB, c kubernetes.Interface, ns, name string) []corev1.ConfigMap {
	t.Helper()
	l, err := c.CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{LabelSelector: incluster.JournalLabel + "=" + name})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(l.Items, func(i, j int) bool {
		a, _ := strconv.Atoi(l.Items[i].Annotations[incluster.ChunkAnnotation])
		b, _ := strconv.Atoi(l.Items[j].Annotations[incluster.ChunkAnnotation])
		return a < b
	})
	return l.Items
}

// TestClusterJournalKeepsTheFileJournalsRecords writes the same records to a
// file journal and to a journal in the cluster whose chunks hold 1 KiB, and
// checks that both read back as the same records, the same state and the same
// summary (but for where they are and how to resume them); that the records
// are spread over several ConfigMaps, every one but the last sealed and none
// larger than a chunk; and that a reopened journal continues the numbering.
func TestClusterJournalKeepsTheFileJournalsRecords(t *testing.T) {
	c, ns := client(t)
	fileStore := journal.NewFileStore(filepath.Join(t.TempDir(), "run.journal"))
	const chunk = 1024
	clusterStore := incluster.NewJournalStoreWithChunks(c, ns, "recover-plan-journal", chunk)
	h := header
	h.Plan.Path = incluster.Ref(ns, "recover-plan")
	for _, s := range []journal.Store{fileStore, clusterStore} {
		w, err := journal.CreateIn(s, h)
		if err != nil {
			t.Fatal(err)
		}
		write(t, w, records())
		w.Close()
	}
	fromFile, err := journal.LoadFrom(fileStore)
	if err != nil {
		t.Fatal(err)
	}
	fromCluster, err := journal.LoadFrom(incluster.NewJournalStore(c, ns, "recover-plan-journal"))
	if err != nil {
		t.Fatal(err)
	}
	// The header record's own time is each writer's clock; all else is equal.
	fromCluster.Records[0].Time = fromFile.Records[0].Time
	if !reflect.DeepEqual(fromFile.Records, fromCluster.Records) || len(fromCluster.Records) != len(records())+1 {
		t.Fatalf("the cluster journal's %d records differ from the file journal's %d", len(fromCluster.Records), len(fromFile.Records))
	}
	if !reflect.DeepEqual(fromFile.State(), fromCluster.State()) {
		t.Errorf("states differ:\nfile    %+v\ncluster %+v", fromFile.State(), fromCluster.State())
	}
	fs, cs := journal.Summarize(fromFile), journal.Summarize(fromCluster)
	wantResume := "recover apply --in-cluster --namespace " + ns + " --plan-configmap recover-plan --journal recover-plan-journal --yes"
	if cs.Path != "configmap:"+ns+"/recover-plan-journal" || len(cs.Next) == 0 || cs.Next[0] != wantResume {
		t.Errorf("cluster summary: path %q, next %q; want the resume command %q first", cs.Path, cs.Next, wantResume)
	}
	for _, s := range []*journal.Summary{fs, cs} {
		s.Path, s.Next = "", nil
		for i := range s.Changes {
			s.Changes[i].Resume = ""
		}
	}
	if !reflect.DeepEqual(fs, cs) {
		t.Errorf("summaries differ:\nfile    %+v\ncluster %+v", fs, cs)
	}

	cms := chunks(t, c, ns, "recover-plan-journal")
	if len(cms) < 3 {
		t.Fatalf("%d ConfigMaps for %d bytes of records in chunks of %d bytes", len(cms), len(mustRead(t, fileStore)), chunk)
	}
	for i, cm := range cms {
		size := 0
		for _, v := range cm.Data {
			size += len(v)
		}
		if cm.Name != incluster.ChunkName("recover-plan-journal", i) || (size > chunk && len(cm.Data) > 1) {
			t.Errorf("chunk %d: %s holds %d records, %d bytes (chunks hold %d)", i, cm.Name, len(cm.Data), size, chunk)
		}
		if sealed := cm.Annotations[incluster.SealedAnnotation] == "true"; sealed != (i < len(cms)-1) {
			t.Errorf("chunk %d of %d: sealed %v", i, len(cms), sealed)
		}
	}

	w, j, err := journal.OpenIn(incluster.NewJournalStoreWithChunks(c, ns, "recover-plan-journal", chunk))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(journal.Record{Type: journal.TypeResume, Resume: &journal.Resume{RunID: "run-2", Holder: "pod-b"}}); err != nil {
		t.Fatal(err)
	}
	again, err := journal.LoadFrom(incluster.NewJournalStore(c, ns, "recover-plan-journal"))
	if err != nil {
		t.Fatal(err)
	}
	last := again.Records[len(again.Records)-1]
	if last.Type != journal.TypeResume || last.Seq != len(j.Records)+1 || again.State().RunID != "run-2" {
		t.Errorf("the resumed journal's last record: %+v (after %d records)", last, len(j.Records))
	}
}

func mustRead(t *testing.T, s journal.Store) []byte {
	t.Helper()
	data, err := s.Read()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestClusterJournalFencesAStaleWriter runs two writers of one journal, as a
// pod that lost its lease while still alive and the Job's next pod do: once
// the new writer appended, the old one can never append again, whether the new
// writer's record went into the same chunk or sealed it and began the next;
// and a writer whose read went stale before its first append (the old one
// wrote since) is fenced until it reads again.
func TestClusterJournalFencesAStaleWriter(t *testing.T) {
	c, ns := client(t)
	big := journal.Record{Type: journal.TypeGate, Step: "002", Gate: &journal.GateResult{Kind: "nodes-settled", Result: "failed", Message: strings.Repeat("node master-0 still draining; ", 40)}}
	small := journal.Record{Type: journal.TypeStep, Step: "001", Status: journal.StepDone}
	for _, tc := range []struct {
		name string
		// newWrites is what the new writer appends first.
		newWrites journal.Record
		wantChunk int
	}{
		{"the new writer appends to the same chunk", small, 0},
		{"the new writer seals the chunk and begins the next", big, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := "fence-" + strconv.Itoa(tc.wantChunk)
			old, err := journal.CreateIn(incluster.NewJournalStoreWithChunks(c, ns, name, 1024), header)
			if err != nil {
				t.Fatal(err)
			}
			write(t, old, records()[:3])
			newer, _, err := journal.OpenIn(incluster.NewJournalStoreWithChunks(c, ns, name, 1024))
			if err != nil {
				t.Fatal(err)
			}
			if err := newer.Write(tc.newWrites); err != nil {
				t.Fatalf("the new writer's first append: %v", err)
			}
			if n := len(chunks(t, c, ns, name)); n != tc.wantChunk+1 {
				t.Fatalf("%d chunks after the new writer's append, want %d", n, tc.wantChunk+1)
			}
			err = old.Write(small)
			if !errors.Is(err, journal.ErrFenced) {
				t.Fatalf("the old writer appended after the new one: %v", err)
			}
			if err := newer.Write(small); err != nil {
				t.Fatalf("the new writer after the old one was fenced: %v", err)
			}
			j, err := journal.LoadFrom(incluster.NewJournalStore(c, ns, name))
			if err != nil {
				t.Fatal(err)
			}
			if n := len(j.Records); n != 1+3+2 {
				t.Errorf("%d records, want the header, the old writer's 3 and the new writer's 2", n)
			}
		})
	}

	t.Run("a stale read is fenced until read again", func(t *testing.T) {
		old, err := journal.CreateIn(incluster.NewJournalStore(c, ns, "stale"), header)
		if err != nil {
			t.Fatal(err)
		}
		newer, _, err := journal.OpenIn(incluster.NewJournalStore(c, ns, "stale"))
		if err != nil {
			t.Fatal(err)
		}
		write(t, old, records()[:1])
		if err := newer.Write(small); !errors.Is(err, journal.ErrFenced) {
			t.Fatalf("a writer whose read is stale appended: %v", err)
		}
		newer, j, err := journal.OpenIn(incluster.NewJournalStore(c, ns, "stale"))
		if err != nil {
			t.Fatal(err)
		}
		if err := newer.Write(small); err != nil || len(j.Records) != 2 {
			t.Fatalf("after reading again (%d records): %v", len(j.Records), err)
		}
		if err := old.Write(small); !errors.Is(err, journal.ErrFenced) {
			t.Fatalf("the old writer appended after the new one: %v", err)
		}
	})
}

// TestClusterJournalResolvesALostAnswer loses the API server's answer to an
// append's patch and to a new chunk's create (the request reached the server,
// the connection was reset before the answer): the store reads the chunk, finds
// its record there and goes on; no record is written twice, none is missing.
func TestClusterJournalResolvesALostAnswer(t *testing.T) {
	c, ns := client(t)
	var mu sync.Mutex
	counts := map[string]int{}
	// The 3rd patch and the 2nd create of a ConfigMap lose their answer.
	p, err := faultproxy.Start(faultproxy.Options{Upstream: env.Config, Rates: map[faultproxy.Kind]float64{faultproxy.ResetAfter: 1},
		Filter: func(r *http.Request) bool {
			if !strings.Contains(r.URL.Path, "/configmaps") || (r.Method != http.MethodPatch && r.Method != http.MethodPost) {
				return false
			}
			mu.Lock()
			defer mu.Unlock()
			counts[r.Method]++
			return r.Method == http.MethodPatch && counts[r.Method] == 3 || r.Method == http.MethodPost && counts[r.Method] == 2
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	pc, err := kubernetes.NewForConfig(p.Config())
	if err != nil {
		t.Fatal(err)
	}
	w, err := journal.CreateIn(incluster.NewJournalStoreWithChunks(pc, ns, "lost", 1024), header)
	if err != nil {
		t.Fatal(err)
	}
	write(t, w, records())
	var reset []faultproxy.Entry
	for _, e := range p.Log() {
		if e.Fault == faultproxy.ResetAfter {
			reset = append(reset, e)
		}
	}
	if len(reset) != 2 || !reset[0].Forwarded || !reset[1].Forwarded {
		t.Fatalf("want a patch and a create whose answers were lost after they reached the server: %+v", reset)
	}
	j, err := journal.LoadFrom(incluster.NewJournalStore(c, ns, "lost"))
	if err != nil {
		t.Fatal(err)
	}
	want := append([]journal.Record{{Type: journal.TypeHeader}}, records()...)
	if len(j.Records) != len(want) {
		t.Fatalf("%d records, want %d", len(j.Records), len(want))
	}
	for i, r := range j.Records {
		if r.Seq != i+1 || r.Type != want[i].Type {
			t.Errorf("record %d: seq %d %s, want %s", i+1, r.Seq, r.Type, want[i].Type)
		}
	}
}

// TestClusterJournalRefusesWhatItCannotKeep: a record larger than a ConfigMap
// holds is refused before anything is written (the engine then changes
// nothing), and a journal that exists is not created again.
func TestClusterJournalRefusesWhatItCannotKeep(t *testing.T) {
	c, ns := client(t)
	w, err := journal.CreateIn(incluster.NewJournalStore(c, ns, "big"), header)
	if err != nil {
		t.Fatal(err)
	}
	huge := journal.Record{Type: journal.TypeIntent, Step: "002", Intent: &journal.Intent{Operation: "update", Diff: strings.Repeat("x", incluster.MaxRecordBytes)}}
	if err := w.Write(huge); err == nil || !strings.Contains(err.Error(), "larger than a ConfigMap") {
		t.Fatalf("an oversized record: %v", err)
	}
	if err := w.Write(records()[0]); err != nil {
		t.Fatalf("the next record after a refused one: %v", err)
	}
	j, err := journal.LoadFrom(incluster.NewJournalStore(c, ns, "big"))
	if err != nil || len(j.Records) != 2 {
		t.Fatalf("journal after the refused record: %v", err)
	}
	if _, err := journal.CreateIn(incluster.NewJournalStore(c, ns, "big"), header); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("creating an existing journal: %v", err)
	}
	if _, err := journal.LoadFrom(incluster.NewJournalStore(c, ns, "missing")); err == nil || !strings.Contains(err.Error(), "no such journal") {
		t.Fatalf("loading a missing journal: %v", err)
	}
}
