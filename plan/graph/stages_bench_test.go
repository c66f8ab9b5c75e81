package graph

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/openshift-recover/recover/internal/testing/shareddata"
)

// BenchmarkStagedPath searches a three-minor staged path on the real
// 1,085-node graph (every architecture): 4.5 -> 4.6 -> 4.7 -> 4.8 amd64.
func BenchmarkStagedPath(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(shareddata.RealData(b, capture2021), "graph-gb-raw.json"))
	if err != nil {
		b.Fatal(err)
	}
	g, err := Parse("raw.json", data)
	if err != nil {
		b.Fatal(err)
	}
	from, to := "4.5.1+amd64", ""
	for _, n := range g.Nodes() {
		if n.semver.Major == 4 && n.semver.Minor == 8 && len(n.semver.Build) > 0 && n.semver.Build[0] == "amd64" && len(n.semver.Pre) == 0 {
			to = n.Version
		}
	}
	p, err := g.StagedPath(from, to)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%s -> %s: %d stages", from, to, len(p.Stages))
	for b.Loop() {
		if _, err := g.StagedPath(from, to); err != nil {
			b.Fatal(err)
		}
	}
}
