package graph

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/openshift-recover/recover/internal/testing/shareddata"
)

// The loaders are compared with plain decoding of the same bytes (report both;
// go test -bench . -benchmem ./plan/graph).

func BenchmarkDecodeRawGraphJSON(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(shareddata.RealData(b, capture2021), "graph-gb-raw.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseRawGraph(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(shareddata.RealData(b, capture2021), "graph-gb-raw.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse("raw.json", data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadRawGraphWithGraphData(b *testing.B) {
	dir := shareddata.RealData(b, capture2021)
	data, err := os.ReadFile(filepath.Join(dir, "graph-gb-raw.json"))
	if err != nil {
		b.Fatal(err)
	}
	gd, err := ReadGraphData(filepath.Join(dir, "cincinnati-graph-data"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := applyGraphData("raw.json", data, gd, "amd64", ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkShortestPath queries the full 1,085-node graph (every architecture).
func BenchmarkShortestPath(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(shareddata.RealData(b, capture2021), "graph-gb-raw.json"))
	if err != nil {
		b.Fatal(err)
	}
	g, err := Parse("raw.json", data)
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range [][2]string{{"4.3.19+amd64", "4.4.4+amd64"}, {"4.1.0+amd64", "4.9.8+amd64"}} {
		b.Run(q[0]+"->"+q[1], func(b *testing.B) {
			for b.Loop() {
				if _, err := g.ShortestPath(q[0], q[1]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
