package plan

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/dirdigest"
	"github.com/openshift-recover/recover/internal/testing/shareddata"
	"github.com/openshift-recover/recover/plan/graph"
	"github.com/openshift-recover/recover/plan/payload"
	"github.com/openshift-recover/recover/plan/planfile"
)

// Benchmarks (go test -bench . -benchmem ./plan/). Figures are in docs/plan-format.md.

// BenchmarkRealPlanEndToEnd plans the modeled 4.3.19 -> 4.4.3 wedge from files, as
// recover plan does after reading the cluster: load the real 1,085-node graph with
// its graph-data (stable-4.4), load the real 383-file 4.4 payload, choose the target,
// order the steps and check the plan.
func BenchmarkRealPlanEndToEnd(b *testing.B) {
	benchRealPlan(b, cacheOff)
}

// BenchmarkRealPlanEndToEndCacheCold is BenchmarkRealPlanEndToEnd with the
// loaded-graph and decoded-payload caches on (as recover plan has them by
// default) and empty each time (the first plan of a graph and a payload).
func BenchmarkRealPlanEndToEndCacheCold(b *testing.B) {
	benchRealPlan(b, cacheCold)
}

// BenchmarkRealPlanEndToEndCacheWarm is BenchmarkRealPlanEndToEnd with both
// caches on and holding the graph and the payload (every later plan or tui
// start).
func BenchmarkRealPlanEndToEndCacheWarm(b *testing.B) {
	benchRealPlan(b, cacheWarm)
}

// cacheMode is how a benchmark uses the caches.
type cacheMode int

const (
	cacheOff  cacheMode = iota // no cache
	cacheCold                  // an empty cache for every iteration
	cacheWarm                  // a cache that holds the input
)

// cacheDirs returns the loaded-graph and decoded-payload cache directories for
// mode, under a new temporary directory ("" for cacheOff), as recover lays them
// out under --payload-cache-dir.
func cacheDirs(b *testing.B, mode cacheMode) (graphCache, payloadCache string) {
	if mode == cacheOff {
		return "", ""
	}
	root := b.TempDir()
	return filepath.Join(root, "graphs"), filepath.Join(root, "decoded")
}

// realGraphOptions are the graph options of the real wedge's plan.
func realGraphOptions(b *testing.B, cache string) graph.Options {
	dir := shareddata.RealData(b, realCapture)
	return graph.Options{Graph: filepath.Join(dir, "graph-gb-raw.json"), GraphData: filepath.Join(dir, "cincinnati-graph-data"), Channel: "stable-4.4", CacheDir: cache}
}

// benchRealPlan plans the real wedge from files, as recover plan does after
// reading the cluster, with the caches used as mode says.
func benchRealPlan(b *testing.B, mode cacheMode) {
	pdir := shareddata.RealData(b, realPayload)
	pl, err := payload.LoadDir(pdir, payload.Options{Version: "4.4.4"})
	if err != nil {
		b.Fatal(err)
	}
	s := realWedge(b, pl)
	graphCache, payloadCache := cacheDirs(b, mode)
	gopts := realGraphOptions(b, graphCache)
	plan := func() {
		g, err := graph.Load(context.Background(), gopts)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Make(context.Background(), Options{Snapshot: s, Graph: g, Payload: PayloadDir{Dir: pdir, Version: "4.4.4", CacheDir: payloadCache}}); err != nil {
			b.Fatal(err)
		}
	}
	benchCached(b, mode, plan, func() { gopts.CacheDir, payloadCache = cacheDirs(b, mode) })
}

// benchCached runs do in the benchmark loop: once before it for a warm cache,
// and with fresh caches (renew) outside the timer before each iteration for a
// cold one.
func benchCached(b *testing.B, mode cacheMode, do, renew func()) {
	if mode == cacheWarm {
		do()
	}
	for b.Loop() {
		if mode == cacheCold {
			b.StopTimer()
			renew()
			b.StartTimer()
		}
		do()
	}
}

// BenchmarkRealGraphLoad is the graph's share of BenchmarkRealPlanEndToEnd: the
// real graph-builder graph with its graph-data, stable-4.4, without the
// loaded-graph cache, with it empty, and with it holding the graph.
func BenchmarkRealGraphLoad(b *testing.B) {
	benchRealGraphLoad(b, cacheOff)
}

func BenchmarkRealGraphLoadCacheCold(b *testing.B) {
	benchRealGraphLoad(b, cacheCold)
}

func BenchmarkRealGraphLoadCacheWarm(b *testing.B) {
	benchRealGraphLoad(b, cacheWarm)
}

func benchRealGraphLoad(b *testing.B, mode cacheMode) {
	cache, _ := cacheDirs(b, mode)
	o := realGraphOptions(b, cache)
	load := func() {
		if _, err := graph.Load(context.Background(), o); err != nil {
			b.Fatal(err)
		}
	}
	benchCached(b, mode, load, func() { o.CacheDir, _ = cacheDirs(b, mode) })
}

// BenchmarkRealPayloadDigest is dirdigest.Sum of the real payload, which every plan
// from a --payload directory records as the payload's input digest.
func BenchmarkRealPayloadDigest(b *testing.B) {
	pdir := shareddata.RealData(b, realPayload)
	for b.Loop() {
		if _, err := dirdigest.Sum(pdir); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRealPlanner is the planner's own share of the above: the graph and the
// payload are loaded once; each iteration chooses the target, orders, checks.
func BenchmarkRealPlanner(b *testing.B) {
	pdir := shareddata.RealData(b, realPayload)
	pl, err := payload.LoadDir(pdir, payload.Options{Version: "4.4.4"})
	if err != nil {
		b.Fatal(err)
	}
	s := realWedge(b, pl)
	g := realGraph(b, "stable-4.4")
	src := preloaded(b, pdir, "4.4.4", s, image444)
	for b.Loop() {
		if _, err := Make(context.Background(), Options{Snapshot: s, Graph: g, Payload: src}); err != nil {
			b.Fatal(err)
		}
	}
}

// preloaded loads a payload directory now (before the timer runs) with the
// snapshot's inclusion inputs and the target's image, and returns a source that
// hands out that payload, so the planner is measured without YAML parsing.
func preloaded(b *testing.B, dir, version string, s *inspect.Snapshot, image string) PayloadFunc {
	src := reloadFor(dir, version)
	if _, _, err := src(context.Background(), planfile.Target{Image: image}, Inclusion(s)); err != nil {
		b.Fatal(err)
	}
	return src
}

// reloadFor loads a payload directory on first use and returns it from then on.
func reloadFor(dir, version string) PayloadFunc {
	var cached *payload.Payload
	return func(_ context.Context, t planfile.Target, in payload.Inclusion) (*payload.Payload, planfile.InputRef, error) {
		if cached == nil {
			p, err := payload.LoadDir(dir, payload.Options{Inclusion: in, ReleaseImage: t.Image, Version: version})
			if err != nil {
				return nil, planfile.InputRef{}, err
			}
			cached = p
		}
		return cached, planfile.InputRef{Source: dir, Digest: "sha256:bench"}, nil
	}
}

// BenchmarkScaleGraph shows target selection and planning grow linearly with the
// graph: a synthetic graph of the real graph's size (1,085 releases, 18 edges
// each) and ten times that, with the example payload.
func BenchmarkScaleGraph(b *testing.B) {
	s := snapshot(b, incident1)
	src := preloaded(b, payload444, "", s, image444)
	for _, n := range []int{1085, 10850} {
		g := syntheticGraph(b, n, 18)
		b.Run(fmt.Sprintf("releases=%d", n), func(b *testing.B) {
			for b.Loop() {
				p, err := Make(context.Background(), Options{Snapshot: s, Graph: g, Payload: src})
				if err != nil {
					b.Fatal(err)
				}
				if p.Target.Version != "4.4.4" {
					b.Fatalf("target %s", p.Target.Version)
				}
			}
		})
	}
}

// syntheticGraph builds a graph with n releases: 4.3.19, 4.4.3 and 4.4.4 upward,
// each with edges to the next `out` releases (4.3.19 and 4.4.3 too).
func syntheticGraph(b testing.TB, n, out int) *graph.Result {
	versions := []string{"4.3.19", "4.4.3"}
	for i := 0; len(versions) < n; i++ {
		versions = append(versions, fmt.Sprintf("4.4.%d", 4+i))
	}
	var buf bytes.Buffer
	buf.WriteString(`{"version":1,"nodes":[`)
	for i, v := range versions {
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `{"version":%q,"payload":"quay.io/openshift-release-dev/ocp-release@sha256:%064x","metadata":{"io.openshift.upgrades.graph.release.channels":"stable-4.4"}}`, v, i+1)
	}
	buf.WriteString(`],"edges":[`)
	first := true
	for i := range versions {
		from := i
		lo := i + 1
		if i < 2 {
			lo = 2 // 4.3.19 and 4.4.3 both lead to 4.4.4 and up
		}
		for j := lo; j < lo+out && j < len(versions); j++ {
			if !first {
				buf.WriteByte(',')
			}
			first = false
			fmt.Fprintf(&buf, "[%d,%d]", from, j)
		}
	}
	buf.WriteString(`],"conditionalEdges":[]}`)
	g, err := graph.Parse("synthetic.json", buf.Bytes())
	if err != nil {
		b.Fatal(err)
	}
	return &graph.Result{Graph: g, Digest: planfile.DigestBytes(buf.Bytes())}
}

// BenchmarkScalePayload shows planning grows linearly with the payload: the real
// 383-file 4.4 payload and a synthetic one ten times its size (every manifest that
// is not a ClusterOperator copied nine more times into components of its own),
// end to end, the payload loading alone (plan/payload), and the planner alone.
func BenchmarkScalePayload(b *testing.B) {
	real := shareddata.RealData(b, realPayload)
	g := exampleGraphResult(b)
	s := snapshot(b, incident1)
	for _, copies := range []int{1, 10} {
		dir := syntheticPayload(b, real, copies)
		b.Run(fmt.Sprintf("files=%dx/end-to-end", copies), func(b *testing.B) {
			for b.Loop() {
				if _, err := Make(context.Background(), Options{Snapshot: s, Graph: g, Payload: PayloadDir{Dir: dir, Version: "4.4.4"}}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("files=%dx/load-only", copies), func(b *testing.B) {
			for b.Loop() {
				if _, err := payload.LoadDir(dir, payload.Options{Inclusion: Inclusion(s), ReleaseImage: image444, Version: "4.4.4"}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("files=%dx/planner", copies), func(b *testing.B) {
			src := preloaded(b, dir, "4.4.4", s, image444)
			for b.Loop() {
				if _, err := Make(context.Background(), Options{Snapshot: s, Graph: g, Payload: src}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// syntheticPayload writes the real payload with every non-ClusterOperator file of
// release-manifests/ present `copies` times (the copies in components
// "<component>-copy<k>"), and returns its directory.
func syntheticPayload(b testing.TB, real string, copies int) string {
	dir := b.TempDir()
	for _, sub := range []string{payload.ManifestDir, payload.ReleaseManifestDir} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			b.Fatal(err)
		}
		entries, err := os.ReadDir(filepath.Join(real, sub))
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(real, sub, e.Name()))
			if err != nil {
				b.Fatal(err)
			}
			write := func(name string) {
				if err := os.WriteFile(filepath.Join(dir, sub, name), data, 0o644); err != nil {
					b.Fatal(err)
				}
			}
			write(e.Name())
			level, comp, ok := payload.ParseFileName(e.Name())
			if sub != payload.ReleaseManifestDir || !ok || bytes.Contains(data, []byte("kind: ClusterOperator")) {
				continue
			}
			rest := strings.TrimPrefix(e.Name(), "0000_"+level+"_"+comp+"_")
			for k := 1; k < copies; k++ {
				write(fmt.Sprintf("0000_%s_%s-copy%d_%s", level, comp, k, rest))
			}
		}
	}
	return dir
}

// TestSyntheticInputsPlan keeps the benchmark inputs honest: the synthetic graph
// and a 3x payload make checked plans with the expected target.
func TestSyntheticInputsPlan(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 3x payload")
	}
	dir := syntheticPayload(t, shareddata.RealData(t, realPayload), 3)
	p, err := Make(context.Background(), Options{Snapshot: snapshot(t, incident1), Graph: syntheticGraph(t, 200, 18), Payload: PayloadDir{Dir: dir, Version: "4.4.4"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Target.Version != "4.4.4" || planfile.CountAction(p, planfile.ActionApply) < 3*300 {
		t.Fatalf("target %s, %d apply steps", p.Target.Version, planfile.CountAction(p, planfile.ActionApply))
	}
	if _, err := json.Marshal(p); err != nil {
		t.Fatal(err)
	}
}

// wedged500 is a 500-node cluster (the second incident's control plane and 497
// workers) under an update, with 50 PodDisruptionBudgets each holding one
// worker's drain and 100 pending CSRs: 50 renewals of NotReady workers and 50
// client certificates of new machines.
func wedged500(b testing.TB) *inspect.Snapshot {
	s := healthyUpdating(b)
	var tmpl inspect.Node
	for _, n := range s.Nodes {
		if n.Name == "worker-0" {
			tmpl = n
		}
	}
	for i := len(s.Nodes); i < 500; i++ {
		n := tmpl
		n.Name = fmt.Sprintf("worker-%d", i)
		s.Nodes = append(s.Nodes, n)
	}
	for i := 0; i < 50; i++ {
		holdDrain(b, s, fmt.Sprintf("team-%02d", i), "web", fmt.Sprintf("worker-%d", 100+i))
	}
	for i := 0; i < 50; i++ {
		node := fmt.Sprintf("worker-%d", 200+i)
		notReady(b, s, node)
		pendingCSRs(b, s, node, csrSpec{fmt.Sprintf("csr-renew-%02d", i), node, "renew"})
		fresh := fmt.Sprintf("worker-new-%02d", i)
		pendingCSRs(b, s, fresh, csrSpec{fmt.Sprintf("csr-new-%02d", i), fresh, "new"})
	}
	return s
}

// BenchmarkRemediationPlan makes the remediation-only plan of wedged500 (50 PDB
// brackets, 100 approvals, 50 readiness waits) and checks it.
func BenchmarkRemediationPlan(b *testing.B) {
	s := wedged500(b)
	for b.Loop() {
		p, err := Make(context.Background(), Options{Snapshot: s, Now: func() time.Time { return fixedTime }})
		if err != nil {
			b.Fatal(err)
		}
		if len(p.Steps) != 2+50*3+100+50 {
			b.Fatalf("%d steps", len(p.Steps))
		}
	}
}

// BenchmarkRemediationCheck is the checker alone on that plan.
func BenchmarkRemediationCheck(b *testing.B) {
	s := wedged500(b)
	p, err := Make(context.Background(), Options{Snapshot: s, Now: func() time.Time { return fixedTime }})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := Check(p, s, nil); err != nil {
			b.Fatal(err)
		}
	}
}
