package plan_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/openshift-recover/recover/inspect/dump"
	"github.com/openshift-recover/recover/internal/testing/realpayload"
	"github.com/openshift-recover/recover/internal/testing/shareddata"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/graph"
)

// BenchmarkPlan420Cold and BenchmarkPlan420Warm plan the real 4.20 payload
// (go test -run '^$' -bench Plan420 -benchmem ./plan/) on oc's real 4.20
// cluster ocpbugs-60768, 97% through its update to
// 4.20.0-0.nightly-2025-08-19-180353, as recover plan --take-over does after
// reading it: load the graph, load and include the payload (762 files; the
// Default feature set, the cluster's capabilities), choose the target, order
// the steps and check the plan. The payload is rendered once, before the timer,
// as oc adm release new renders it (realpayload.Render). Cold: an empty
// decoded-payload cache each time (the first plan of a payload); warm: the cache
// holds it.
func BenchmarkPlan420Cold(b *testing.B) { benchPlan420(b, false) }

func BenchmarkPlan420Warm(b *testing.B) { benchPlan420(b, true) }

// ocpbugs60768 is the cluster's desired release: the target of the push.
const (
	ocpbugs60768Current = "4.20.0-0.nightly-2025-08-12-153542"
	ocpbugs60768Target  = "4.20.0-0.nightly-2025-08-19-180353"
	ocpbugs60768Image   = "registry.build11.ci.openshift.org/ci-op-pw3ghqzh/release@sha256:6ef995f80511e6edb232430e2a28edcbc5dd32dd124c0c81d79cd78da6e2ddf6"
)

func benchPlan420(b *testing.B, warm bool) {
	real := shareddata.RealData(b, "")
	var files []string
	for _, kind := range []string{"co", "cv", "mcp", "node"} {
		files = append(files, filepath.Join(real, "oc-upgrade-status-examples", "ocpbugs-60768-"+kind+".yaml"))
	}
	s, err := dump.New(files...).Collect(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	pdir := filepath.Join(dir, "payload")
	if _, err := realpayload.ServedRendered(filepath.Join(real, "payload-release-4.20"), pdir, ocpbugs60768Target, map[string]string{"kubernetes": "1.33.5"}); err != nil {
		b.Fatal(err)
	}
	graphFile := filepath.Join(dir, "graph.json")
	g := `{"nodes":[{"version":"` + ocpbugs60768Current + `","payload":"registry.build11.ci.openshift.org/ci-op-pw3ghqzh/release@sha256:c63aa3fb2e82efdbd450c69eae7458d9e412eeaa7ff211c68bdf729d19bed89c"},` +
		`{"version":"` + ocpbugs60768Target + `","payload":"` + ocpbugs60768Image + `"}],"edges":[[0,1]]}`
	if err := os.WriteFile(graphFile, []byte(g), 0o600); err != nil {
		b.Fatal(err)
	}
	cache := b.TempDir()
	steps := 0
	do := func() {
		gr, err := graph.Load(context.Background(), graph.Options{Graph: graphFile})
		if err != nil {
			b.Fatal(err)
		}
		p, err := plan.Make(context.Background(), plan.Options{Snapshot: s, Graph: gr, TakeOver: "benchmark: the push of the real 4.20 payload",
			Payload: plan.PayloadDir{Dir: pdir, Version: ocpbugs60768Target, CacheDir: cache}})
		if err != nil {
			b.Fatal(err)
		}
		if p.Target.Version != ocpbugs60768Target || len(p.Steps) < 700 {
			b.Fatalf("planned %d steps to %s", len(p.Steps), p.Target.Version)
		}
		steps = len(p.Steps)
	}
	plan.BenchCached(b, warm, do, func() { cache = b.TempDir() })
	b.ReportMetric(float64(steps), "steps")
}
