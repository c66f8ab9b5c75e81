package graph

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/openshift-recover/recover/internal/dirdigest"
)

// TestLoadDigestsTheGraphDataItReads: Load's GraphDataDigest is dirdigest.Sum
// of the graph-data directory, byte for byte (the digest plans record), made in
// the pass that read the files: for the example and the real graph-data, with
// and without the graph cache, cold and warm, and for a directory with what the
// graph does not read (a README, a .git, skipped .yml files, a nested
// directory) and a channel that is a symbolic link (read for the graph, not in
// the digest). Without graph-data there is none.
func TestLoadDigestsTheGraphDataItReads(t *testing.T) {
	extra := copyDir(t, exampleGraphData)
	for name, content := range map[string]string{
		"README.md": "# graph data\n", ".git/HEAD": "ref: refs/heads/master\n", "channels/fast-4.4.yml": "name: fast-4.4\nversions: [4.4.4]\n",
		"blocked-edges/notes/old.yaml": "to: 4.4.3\nfrom: .*\n", "build-suggestions/4.4.yaml": "default: {}\n",
	} {
		p := filepath.Join(extra, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	linked := copyDir(t, exampleGraphData)
	target := filepath.Join(t.TempDir(), "stable-4.4.yaml")
	if err := os.Rename(filepath.Join(linked, "channels", "stable-4.4.yaml"), target); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(linked, "channels", "stable-4.4.yaml")); err != nil {
		t.Fatal(err)
	}
	cases := []Options{
		{Graph: exampleGraph, GraphData: extra, Channel: "stable-4.4"},
		{Graph: exampleGraph, GraphData: linked, Channel: "stable-4.4"},
	}
	for _, o := range cacheCases(t) {
		if o.GraphData != "" {
			cases = append(cases, o)
		}
	}
	for _, o := range cases {
		want, err := dirdigest.Sum(o.GraphData)
		if err != nil {
			t.Fatal(err)
		}
		fresh := load(t, o)
		if fresh.GraphDataDigest != want {
			t.Errorf("%s: GraphDataDigest %s, dirdigest.Sum %s", o.GraphData, fresh.GraphDataDigest, want)
		}
		o.CacheDir = t.TempDir()
		for _, temp := range []string{"cold", "warm"} {
			r := load(t, o)
			if r.GraphDataDigest != want || !reflect.DeepEqual(r.Graph, fresh.Graph) {
				t.Errorf("%s, %s cache: GraphDataDigest %s, dirdigest.Sum %s (graph equal: %v)", o.GraphData, temp, r.GraphDataDigest, want, reflect.DeepEqual(r.Graph, fresh.Graph))
			}
		}
	}
	if r := load(t, Options{Graph: exampleGraph, Channel: "stable-4.4"}); r.GraphDataDigest != "" {
		t.Errorf("a graph without graph-data has a graph-data digest %s", r.GraphDataDigest)
	}
}
