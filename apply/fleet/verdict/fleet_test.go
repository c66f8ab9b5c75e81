package verdict

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/fleet"
	"github.com/openshift-recover/recover/internal/testing/fleetgen"
	"github.com/openshift-recover/recover/internal/testing/golden"
)

// judgeFleet inspects and judges every cluster of dir, as recover fleet does.
func judgeFleet(t testing.TB, dir string, concurrency int) *FleetReport {
	t.Helper()
	targets, err := fleet.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	res := fleet.Run(context.Background(), targets, fleet.Options{Concurrency: concurrency},
		func(ctx context.Context, _ fleet.Target, s *inspect.Snapshot) (*Verdict, error) {
			v, _, err := Judge(ctx, s, Options{Now: fixedNow})
			return v, err
		})
	entries := make([]Entry, len(res))
	for i, r := range res {
		entries[i] = Entry{Cluster: r.Target.Name, Verdict: r.Value, Err: r.Err}
	}
	return Group(entries)
}

func generate(t testing.TB, n int) *fleetgen.Fleet {
	t.Helper()
	f, err := fleetgen.Generate(filepath.Join("..", "..", ".."), t.TempDir(), n)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestFleetGroupsGeneratedMustGathers runs over 200 generated must-gathers and
// holds the report to what was generated: clusters generated from one example
// and variation share exactly one group (other node names included), every
// other pair is apart, the broken ones are failures, and the counts add up.
func TestFleetGroupsGeneratedMustGathers(t *testing.T) {
	if testing.Short() {
		t.Skip("inspects 200 generated must-gathers")
	}
	f := generate(t, 200)
	if len(f.Clusters) < 200 {
		t.Fatalf("generated %d clusters, want at least 200", len(f.Clusters))
	}
	r := judgeFleet(t, f.Dir, 0)

	want := map[string][]string{} // expected group -> clusters
	var wantFailed []string
	wantWedged := 0
	for _, c := range f.Clusters {
		if c.Broken {
			wantFailed = append(wantFailed, c.Name)
			continue
		}
		want[c.Group] = append(want[c.Group], c.Name)
		if c.Group != "healthy" {
			wantWedged++
		}
	}
	if r.Clusters != len(f.Clusters) || r.Failed != len(wantFailed) || r.Wedged != wantWedged {
		t.Errorf("report counts %d clusters, %d failed, %d wedged; want %d, %d, %d", r.Clusters, r.Failed, r.Wedged, len(f.Clusters), len(wantFailed), wantWedged)
	}
	var gotFailed []string
	for _, fl := range r.Failures {
		gotFailed = append(gotFailed, fl.Cluster)
	}
	if !slices.Equal(gotFailed, wantFailed) {
		t.Errorf("failures %v, want %v", gotFailed, wantFailed)
	}
	// The partition: each expected group is exactly one report group.
	groupOf := map[string]string{} // cluster -> signature
	for _, g := range r.Groups {
		if g.Count != len(g.Clusters) {
			t.Errorf("group %s counts %d but lists %d clusters", g.Signature, g.Count, len(g.Clusters))
		}
		for _, c := range g.Clusters {
			groupOf[c] = g.Signature
		}
	}
	if len(r.Groups) != len(want) {
		t.Errorf("%d groups, want %d (one per example and variation)", len(r.Groups), len(want))
	}
	for name, clusters := range want {
		sig := groupOf[clusters[0]]
		var g *FleetGroup
		for i := range r.Groups {
			if r.Groups[i].Signature == sig {
				g = &r.Groups[i]
			}
		}
		if g == nil {
			t.Errorf("%s: %s is in no group", name, clusters[0])
			continue
		}
		sort.Strings(clusters)
		if !slices.Equal(g.Clusters, clusters) {
			t.Errorf("%s: group %s holds %v, want %v", name, sig, g.Clusters, clusters)
		}
	}
	// What a few groups must say.
	check := func(name string, wedged bool, answer Answer, remedies []string, subject string) {
		t.Helper()
		for _, g := range r.Groups {
			if g.Signature != groupOf[want[name][0]] {
				continue
			}
			if g.Wedged != wedged || g.Answer != answer || !slices.Equal(g.Remedies, remedies) {
				t.Errorf("%s: wedged %v answer %s remedies %v; want %v %s %v", name, g.Wedged, g.Answer, g.Remedies, wedged, answer, remedies)
			}
			if subject != "" && (len(g.Causes) == 0 || g.Causes[0].Subject != subject) {
				t.Errorf("%s: causes %+v, want the first on %s", name, g.Causes, subject)
			}
		}
	}
	check("healthy", false, AnswerNone, nil, "")
	check("pdb-blocks-drain", true, AnswerPlan, []string{"relax-pdb"}, "poddisruptionbudget/ci/deck")
	check("pdb-blocks-drain/deck-b", true, AnswerPlan, []string{"relax-pdb"}, "poddisruptionbudget/ci/deck-b")
	check("static-pod-stuck", true, AnswerNeedsAccept, []string{"force-redeployment"}, "node/*")
	if r.Groups[len(r.Groups)-1].Wedged {
		t.Error("the not-wedged group is not listed last")
	}
}

// TestFleetReportGolden pins the table, Markdown and JSON forms of a small
// generated fleet.
func TestFleetReportGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("inspects generated must-gathers")
	}
	f := generate(t, 24)
	r := judgeFleet(t, f.Dir, 2)
	var table, md, js bytes.Buffer
	if err := WriteFleetTable(&table, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteFleetMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(&js)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		t.Fatal(err)
	}
	// The failures quote the temporary directory; the golden files name it DIR.
	for _, b := range []*bytes.Buffer{&table, &md, &js} {
		s := strings.ReplaceAll(b.String(), f.Dir, "DIR")
		b.Reset()
		b.WriteString(s)
	}
	golden.Assert(t, "testdata/fleet.table.golden", table.Bytes())
	golden.Assert(t, "testdata/fleet.md.golden", md.Bytes())
	golden.Assert(t, "testdata/fleet.json.golden", js.Bytes())
}

// BenchmarkFleet inspects and judges a generated fleet of 200 must-gathers per
// iteration and reports clusters/s and the peak heap in use (sampled every
// 2 ms) for 1 goroutine and for GOMAXPROCS.
func BenchmarkFleet(b *testing.B) {
	f := generate(b, 200)
	for _, conc := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("concurrency=%d", conc), func(b *testing.B) {
			runtime.GC()
			var peak uint64
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				var ms runtime.MemStats
				tick := time.NewTicker(2 * time.Millisecond)
				defer tick.Stop()
				for {
					select {
					case <-stop:
						return
					case <-tick.C:
						runtime.ReadMemStats(&ms)
						peak = max(peak, ms.HeapInuse)
					}
				}
			}()
			start := time.Now()
			b.ResetTimer()
			for range b.N {
				if r := judgeFleet(b, f.Dir, conc); r.Clusters != len(f.Clusters) {
					b.Fatalf("%d clusters, want %d", r.Clusters, len(f.Clusters))
				}
			}
			b.StopTimer()
			close(stop)
			wg.Wait()
			b.ReportMetric(float64(b.N*len(f.Clusters))/time.Since(start).Seconds(), "clusters/s")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		})
	}
}
