package plan

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openshift-recover/recover/internal/testing/golden"
	"github.com/openshift-recover/recover/internal/testing/shareddata"
	"github.com/openshift-recover/recover/plan/graph"
	"github.com/openshift-recover/recover/plan/payload"
)

// realPlanGolden holds the sha256 and length of the plan JSON of the modeled real
// wedge (about 4 MB, too large to keep whole), captured before the payload decoder,
// parallel loading, the decoded-payload cache and the loaded-graph cache were
// changed: none of those may change the plan's bytes.
const realPlanGolden = "testdata/real-plan.golden.sha256"

// TestRealPlanGolden makes the plan BenchmarkRealPlanEndToEnd makes (real graph,
// graph-data and 4.4 payload) and compares its JSON byte for byte with the golden
// file's digest; the real data's location is written as $REALDATA so the file does not
// depend on where it lives. Refresh with -update.
func TestRealPlanGolden(t *testing.T) {
	dir := shareddata.RealData(t, realCapture)
	pdir := shareddata.RealData(t, realPayload)
	pl, err := payload.LoadDir(pdir, payload.Options{Version: "4.4.4"})
	if err != nil {
		t.Fatal(err)
	}
	s := realWedge(t, pl)
	now := func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	// makeJSON loads the graph and plans, with the loaded-graph cache in
	// graphCache and the decoded-payload cache in payloadCache ("": none).
	makeJSON := func(graphCache, payloadCache string) []byte {
		g, err := graph.Load(context.Background(), graph.Options{Graph: filepath.Join(dir, "graph-gb-raw.json"), GraphData: filepath.Join(dir, "cincinnati-graph-data"), Channel: "stable-4.4", CacheDir: graphCache})
		if err != nil {
			t.Fatal(err)
		}
		p, err := Make(context.Background(), Options{Snapshot: s, Graph: g, Payload: PayloadDir{Dir: pdir, Version: "4.4.4", CacheDir: payloadCache}, Now: now, Generator: "recover-golden"})
		if err != nil {
			t.Fatal(err)
		}
		j, err := json.MarshalIndent(p, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	got := makeJSON("", "")
	// The loaded-graph and decoded-payload caches, each alone and together, cold
	// and then warm, make the same bytes.
	for _, caches := range []string{"graph", "payload", "both"} {
		root := t.TempDir()
		graphCache, payloadCache := filepath.Join(root, "graphs"), filepath.Join(root, "decoded")
		switch caches {
		case "graph":
			payloadCache = ""
		case "payload":
			graphCache = ""
		}
		for _, run := range []string{"cold", "warm"} {
			if !bytes.Equal(makeJSON(graphCache, payloadCache), got) {
				t.Fatalf("the plan made with the %s cache %s differs from the one made without", caches, run)
			}
		}
	}
	root := filepath.Dir(pdir)
	got = bytes.ReplaceAll(got, []byte(root), []byte("$REALDATA"))
	sum := sha256.Sum256(got)
	line := fmt.Sprintf("%x %d\n", sum, len(got))
	if !golden.Update() {
		if want, err := os.ReadFile(realPlanGolden); err == nil && string(want) != line {
			// Keep the plan for a diff against one made on the commit that wrote the golden.
			out := filepath.Join(os.TempDir(), "recover-real-plan.got.json")
			_ = os.WriteFile(out, got, 0o644)
			t.Logf("the plan is in %s", out)
		}
	}
	golden.Assert(t, realPlanGolden, []byte(line))
}
