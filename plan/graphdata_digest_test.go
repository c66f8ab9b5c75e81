package plan

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/openshift-recover/recover/internal/dirdigest"
	"github.com/openshift-recover/recover/plan/graph"
)

// TestPlanRecordsTheGraphDataItWasMadeFrom: the graph-data digest a plan
// records is of the files the graph was built from, read once. It used to be
// read again for the digest when the plan was made: a graph-data directory
// that changed in between was recorded as what it had become, not as what the
// plan was made from.
func TestPlanRecordsTheGraphDataItWasMadeFrom(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "graph-data")
	if err := os.CopyFS(dir, os.DirFS(exampleGraphData)); err != nil {
		t.Fatal(err)
	}
	want, err := dirdigest.Sum(dir)
	if err != nil {
		t.Fatal(err)
	}
	g, err := graph.Load(context.Background(), graph.Options{Graph: exampleGraph, GraphData: dir, Channel: "stable-4.4"})
	if err != nil {
		t.Fatal(err)
	}
	if g.GraphDataDigest != want {
		t.Fatalf("graph.Load's graph-data digest %s, dirdigest.Sum %s", g.GraphDataDigest, want)
	}
	// The directory changes after the graph was read from it.
	if err := os.WriteFile(filepath.Join(dir, "blocked-edges", "4.4.4-later.yaml"), []byte("to: 4.4.4\nfrom: .*\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := makeExample(t, snapshot(t, incident1), payload444, func(o *Options) { o.Graph = g })
	if err != nil {
		t.Fatal(err)
	}
	if p.Inputs.GraphData == nil || p.Inputs.GraphData.Digest != want || p.Inputs.GraphData.Source != dir {
		t.Fatalf("the plan records graph-data %+v, want %s (the digest of the files the graph was built from)", p.Inputs.GraphData, want)
	}
}
