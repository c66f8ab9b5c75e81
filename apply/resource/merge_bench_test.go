package resource

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/openshift-recover/recover/internal/testing/referee"
)

// BenchmarkMergeRealPayload merges every update pair of a real payload once
// per iteration, as the referee holds them: 4.4 (528 manifests over their live
// 4.3 objects) and 4.20 (922 manifests over their live 4.19 objects); the
// CVO's per-kind rules, typed decode and encode included.
func BenchmarkMergeRealPayload(b *testing.B) {
	b.Run("4.3-to-4.4", func(b *testing.B) { benchmarkMergeCases(b, referee.MergeCasesFile) })
	b.Run("4.19-to-4.20", func(b *testing.B) { benchmarkMergeCases(b, referee.MergeCases420File) })
}

func benchmarkMergeCases(b *testing.B, file string) {
	ctx, cases := referee.LoadMergeCases(b, file)
	facts := refereeFacts(ctx)
	type pair struct{ required, live *unstructured.Unstructured }
	var pairs []pair
	for _, c := range cases {
		if c.Mode == "update" {
			pairs = append(pairs, pair{c.Required.Unstructured, c.Live.Unstructured})
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	writes := 0
	for b.Loop() {
		writes = 0
		for _, p := range pairs {
			res, err := Merge(p.required, p.live, facts)
			if err != nil {
				b.Fatal(err)
			}
			if res.Operation == OpUpdate {
				writes++
			}
		}
	}
	b.ReportMetric(float64(len(pairs)), "pairs/op")
	b.ReportMetric(float64(writes), "writes/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(pairs))/1e3, "µs/pair")
}
