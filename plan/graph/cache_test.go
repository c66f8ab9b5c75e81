package graph

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/internal/bounded"
	"github.com/openshift-recover/recover/internal/testing/cachetest"
	"github.com/openshift-recover/recover/internal/testing/shareddata"
)

const (
	exampleGraph     = "../../examples/reconciled-4.3-to-4.4/graph.json"
	exampleGraphData = "../../examples/reconciled-4.3-to-4.4/graph-data"
)

// cacheCases are loads the cache must give back exactly: the example, and where
// the real data is present, the real graph-builder graphs with graph-data (every
// channel and one, other architectures) and served channel graphs.
func cacheCases(t *testing.T) []Options {
	t.Helper()
	cases := []Options{
		{Graph: exampleGraph, GraphData: exampleGraphData, Channel: "stable-4.4"},
		{Graph: exampleGraph, GraphData: exampleGraphData},
		{Graph: exampleGraph, Channel: "stable-4.4"},
	}
	if testing.Short() {
		return cases
	}
	dir := shareddata.RealData(t, capture2021)
	raw, gd := filepath.Join(dir, "graph-gb-raw.json"), filepath.Join(dir, "cincinnati-graph-data")
	cases = append(cases,
		Options{Graph: raw, GraphData: gd, Channel: "stable-4.4"},
		Options{Graph: raw, GraphData: gd},
		Options{Graph: raw, GraphData: gd, Arch: "s390x"},
	)
	served := shareddata.RealData(t, "cincinnati-graph/channel-graphs")
	cases = append(cases,
		Options{Graph: filepath.Join(served, "421646a6e9592b179c26b3c77d406820c479a19c_stable-4.3_amd64_v1.json"), Channel: "stable-4.3"},
		Options{Graph: filepath.Join(served, "134475077ed4eeaedf3c339f12915b9cdaf7d194_stable-4.7_amd64_v1.json")},
	)
	return cases
}

// graphEntries returns the cache's entry files, failing on anything else (a
// temporary file left behind).
func graphEntries(t *testing.T, dir string) []string {
	t.Helper()
	return cachetest.Entries(t, dir, "graph-")
}

func load(t *testing.T, o Options) *Result {
	t.Helper()
	r, err := Load(context.Background(), o)
	if err != nil {
		t.Fatalf("%+v: %v", o, err)
	}
	return r
}

// TestGraphCacheGivesTheFreshGraph: a load with the cache, cold and then warm,
// gives a graph deeply equal (indexes included) to a load without it, and the
// cold load wrote the entry the warm one read.
func TestGraphCacheGivesTheFreshGraph(t *testing.T) {
	for _, o := range cacheCases(t) {
		fresh := load(t, o)
		o.CacheDir = t.TempDir()
		cold := load(t, o)
		if n := len(graphEntries(t, o.CacheDir)); n != 1 {
			t.Fatalf("%+v: %d entries after a cold load", o, n)
		}
		warm := load(t, o)
		if !reflect.DeepEqual(cold, fresh) || !reflect.DeepEqual(warm, fresh) {
			t.Fatalf("%+v: the cached graph differs from a fresh load", o)
		}
	}
}

// TestGraphCacheIsRead shows a warm load takes the entry: a sealed entry whose
// graph was changed is believed, so "ignored" in the other tests means refused.
func TestGraphCacheIsRead(t *testing.T) {
	o := Options{Graph: exampleGraph, GraphData: exampleGraphData, Channel: "stable-4.4", CacheDir: t.TempDir()}
	fresh := load(t, o)
	key := entryKey(t, graphEntries(t, o.CacheDir)[0])
	marked := *fresh.Graph
	marked.Warnings = []string{"from the cache"}
	writeGraphCache(o.CacheDir, key, &marked)
	if got := load(t, o); !reflect.DeepEqual(got.Warnings, marked.Warnings) {
		t.Fatalf("warm load did not come from the cache: warnings %v", got.Warnings)
	}
}

func entryKey(t *testing.T, entry string) (key [32]byte) {
	t.Helper()
	data, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	copy(key[:], data[len(graphCacheMagic)+4:])
	return key
}

func TestGraphCacheIgnoresBadEntries(t *testing.T) {
	base := Options{Graph: exampleGraph, GraphData: exampleGraphData, Channel: "stable-4.4"}
	fresh := load(t, base)
	hl := bounded.SealedHeaderLength(graphCacheMagic)
	for name, spoil := range map[string]func(key [32]byte, b []byte) []byte{
		"truncated":      func(_ [32]byte, b []byte) []byte { return b[:len(b)/2] },
		"header only":    func(_ [32]byte, b []byte) []byte { return b[:hl] },
		"empty":          func([32]byte, []byte) []byte { return nil },
		"flipped byte":   func(_ [32]byte, b []byte) []byte { b[len(b)-10] ^= 0x40; return b },
		"other magic":    func(_ [32]byte, b []byte) []byte { b[0] = 'X'; return b },
		"other version":  func(_ [32]byte, b []byte) []byte { b[len(graphCacheMagic)+3]++; return b },
		"other key":      func(_ [32]byte, b []byte) []byte { b[len(graphCacheMagic)+4] ^= 1; return b },
		"appended bytes": func(_ [32]byte, b []byte) []byte { return append(b, 0) },
		"not gob":        func(key [32]byte, _ []byte) []byte { return sealed(key, []byte("garbage")) },
		"foreign edge": func(key [32]byte, _ []byte) []byte {
			g := *fresh.Graph
			g.edges = append([]Edge{{From: "4.3.19", To: "9.9.9", State: EdgeSupported}}, g.edges...)
			body, err := encodeGraph(&g)
			if err != nil {
				t.Fatal(err)
			}
			return sealed(key, body)
		},
	} {
		t.Run(name, func(t *testing.T) {
			o := base
			o.CacheDir = t.TempDir()
			load(t, o)
			entry := graphEntries(t, o.CacheDir)[0]
			good, err := os.ReadFile(entry)
			if err != nil {
				t.Fatal(err)
			}
			key := entryKey(t, entry)
			if err := os.WriteFile(entry, spoil(key, append([]byte(nil), good...)), 0o600); err != nil {
				t.Fatal(err)
			}
			if got := load(t, o); !reflect.DeepEqual(got, fresh) {
				t.Fatal("a spoiled entry was trusted")
			}
			g, ok := readGraphCache(o.CacheDir, key)
			if !ok || !reflect.DeepEqual(g, fresh.Graph) {
				t.Fatal("the spoiled entry was not rewritten")
			}
		})
	}
}

// sealed is the entry for key with body as its body.
func sealed(key [32]byte, body []byte) []byte {
	return append(bounded.SealedHeader(graphCacheMagic, graphCacheFormat, key, body), body...)
}

// copyDir copies a directory tree into a new temporary directory.
func copyDir(t *testing.T, from string) string {
	t.Helper()
	to := t.TempDir()
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
	return to
}

// TestGraphCacheFollowsInputs: whatever changes the graph Load makes is another
// key, so a stale entry is never used: a graph-data file's content, a file that
// is added (read or skipped), an optional file removed, the graph document.
func TestGraphCacheFollowsInputs(t *testing.T) {
	gd := copyDir(t, exampleGraphData)
	graphFile := filepath.Join(t.TempDir(), "graph.json")
	data, err := os.ReadFile(exampleGraph)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(graphFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	o := Options{Graph: graphFile, GraphData: gd, Channel: "stable-4.4", CacheDir: t.TempDir()}
	write := func(rel, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(gd, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, change := range []struct {
		name string
		do   func()
	}{
		{"nothing", func() {}},
		{"a blocked edge lifted", func() { write("blocked-edges/4.4.3.yaml", "to: 4.4.3\nfrom: ^$\n") }},
		{"a skipped file added", func() { write("channels/extra.yml", "name: x\n") }},
		{"the version file removed", func() { os.Remove(filepath.Join(gd, "version")) }},
		{"raw metadata added", func() { write("raw/metadata.json", `{"4.4.4": {"url": "https://example.com/4.4.4"}}`) }},
		{"every channel", func() { o.Channel = "" }},
		{"the graph changed", func() {
			if err := os.WriteFile(graphFile, []byte(strings.Replace(string(data), "4.3.18", "4.3.17", -1)), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		if err := os.MkdirAll(filepath.Join(gd, "raw"), 0o755); err != nil {
			t.Fatal(err)
		}
		change.do()
		fresh, err := Load(context.Background(), Options{Graph: o.Graph, GraphData: o.GraphData, Channel: o.Channel})
		if err == nil && len(fresh.Versions("")) < 3 {
			t.Fatalf("%s: %v", change.name, fresh.Versions(""))
		}
		if err != nil {
			t.Fatalf("%s: %v", change.name, err)
		}
		for _, run := range []string{"cold", "warm"} {
			if got := load(t, o); !reflect.DeepEqual(got, fresh) {
				t.Fatalf("%s, %s: the cache gave another graph than a fresh load", change.name, run)
			}
		}
	}
	if n := len(graphEntries(t, o.CacheDir)); n != 7 {
		t.Fatalf("%d entries for seven different inputs", n)
	}
}

// TestGraphCacheRefusesWhatWouldNotComeBack: an entry that would not decode to
// the very graph loaded (here a blocked-edges entry with an empty, not absent,
// matchingRules list, which gob gives back as nil) is not written; the load is
// fresh every time and still right. Errors are not cached either.
func TestGraphCacheRefusesWhatWouldNotComeBack(t *testing.T) {
	gd := copyDir(t, exampleGraphData)
	if err := os.WriteFile(filepath.Join(gd, "blocked-edges/4.4.3.yaml"), []byte("to: 4.4.3\nfrom: 4\\.3\\..*\nurl: https://example.com\nname: Risk\nmessage: m\nmatchingRules: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := Options{Graph: exampleGraph, GraphData: gd, Channel: "stable-4.4"}
	fresh := load(t, o)
	if e, _, _ := fresh.Edge("4.3.19", "4.4.3"); e.State != EdgeConditional || e.BlockedBy[0].MatchingRules == nil {
		t.Fatalf("4.3.19 -> 4.4.3: %+v", e)
	}
	o.CacheDir = filepath.Join(t.TempDir(), "graphs")
	for range 2 {
		if got := load(t, o); !reflect.DeepEqual(got, fresh) {
			t.Fatal("the load with the cache differs")
		}
	}
	if n := len(graphEntries(t, o.CacheDir)); n != 0 {
		t.Fatalf("%d entries for a graph gob cannot give back", n)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"nodes": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(context.Background(), Options{Graph: bad, CacheDir: o.CacheDir}); err == nil {
		t.Fatal("a malformed graph loaded")
	}
	if n := len(graphEntries(t, o.CacheDir)); n != 0 {
		t.Fatalf("%d entries after an error", n)
	}
}

func TestGraphCachePermissionsAndConcurrentWriters(t *testing.T) {
	o := Options{Graph: exampleGraph, GraphData: exampleGraphData, Channel: "stable-4.4", CacheDir: filepath.Join(t.TempDir(), "a", "graphs")}
	fresh := load(t, Options{Graph: o.Graph, GraphData: o.GraphData, Channel: o.Channel})
	cachetest.ConcurrentWriters(t, 8, o.CacheDir, "graph-", func() error {
		_, err := Load(context.Background(), o)
		return err
	})
	if got := load(t, o); !reflect.DeepEqual(got, fresh) {
		t.Fatal("after concurrent writers the cached graph differs")
	}
}

// TestLoadReportsGraphDataErrorFirst: with both a bad graph-data file and a bad
// graph, the graph-data error is the one reported, as when they were read one
// after the other, though the two are now parsed at the same time.
func TestLoadReportsGraphDataErrorFirst(t *testing.T) {
	gd := copyDir(t, exampleGraphData)
	if err := os.WriteFile(filepath.Join(gd, "channels/stable-4.4.yaml"), []byte("name: [unclosed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"nodes": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		_, err := Load(context.Background(), Options{Graph: bad, GraphData: gd, Channel: "stable-4.4"})
		if err == nil || !strings.Contains(err.Error(), "stable-4.4.yaml") {
			t.Fatalf("error %v, want the channel file's", err)
		}
	}
	if _, err := Load(context.Background(), Options{Graph: bad, GraphData: exampleGraphData}); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Fatalf("error %v, want the graph's", err)
	}
}
