package plan

import (
	"context"
	"testing"

	"github.com/openshift-recover/recover/internal/testing/shareddata"
	"github.com/openshift-recover/recover/plan/payload"
)

// BenchmarkStagedPlan plans a three-stage path (go test -bench StagedPlan
// -benchmem ./plan/): the real wedge (4.3.19 + 4.4.3) to 4.6.1 over 4.4.4 and
// 4.5.1, stage 1 planned in full on the real 383-file 4.4.4 payload, stages 2
// and 3 checked and outlined. Cold: an empty decoded-payload cache each time;
// warm: the cache holds the payload.
func BenchmarkStagedPlanCold(b *testing.B) { benchStagedPlan(b, cacheCold) }

func BenchmarkStagedPlanWarm(b *testing.B) { benchStagedPlan(b, cacheWarm) }

func benchStagedPlan(b *testing.B, mode cacheMode) {
	pdir := shareddata.RealData(b, realPayload)
	pl, err := payload.LoadDir(pdir, payload.Options{Version: "4.4.4"})
	if err != nil {
		b.Fatal(err)
	}
	s := realWedge(b, pl)
	g := stagedGraph(b, "4.3.19>4.4.4", "4.4.3>4.4.4", "4.4.4>4.5.1", "4.4.4>4.5.3", "4.5.1>4.6.1")
	_, payloadCache := cacheDirs(b, mode)
	do := func() {
		p, err := MakeStaged(context.Background(), StagedOptions{To: "4.6.1",
			Options: Options{Snapshot: s, Graph: g, Payload: PayloadDir{Dir: pdir, Version: "4.4.4", CacheDir: payloadCache}}})
		if err != nil {
			b.Fatal(err)
		}
		if len(p.Stages) != 3 {
			b.Fatalf("%d stages", len(p.Stages))
		}
	}
	benchCached(b, mode, do, func() { _, payloadCache = cacheDirs(b, mode) })
}
