package graph

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// served is a small update-service response: 4.6.1 -> 4.7.0 -> 4.7.1 supported,
// 4.7.0 -> 4.7.2 conditional, 4.7.1 -> 4.7.2 both supported and conditional.
const served = `{
  "version": 1,
  "nodes": [
    {"version": "4.6.1", "payload": "quay.io/r@sha256:01", "metadata": {"io.openshift.upgrades.graph.release.channels": "stable-4.6,stable-4.7"}},
    {"version": "4.7.0", "payload": "quay.io/r@sha256:02", "metadata": {"io.openshift.upgrades.graph.release.channels": "stable-4.7"}},
    {"version": "4.7.1", "payload": "quay.io/r@sha256:03", "metadata": {"io.openshift.upgrades.graph.release.channels": "stable-4.7"}},
    {"version": "4.7.2", "payload": "quay.io/r@sha256:04", "metadata": {"io.openshift.upgrades.graph.release.channels": "stable-4.7"}}
  ],
  "edges": [[0, 1], [1, 2], [2, 3]],
  "conditionalEdges": [
    {"edges": [{"from": "4.7.0", "to": "4.7.2"}, {"from": "4.7.1", "to": "4.7.2"}],
     "risks": [{"url": "https://example.com/1", "name": "SomeRisk", "message": "it breaks", "matchingRules": [{"type": "Always"}]}]}
  ]
}`

func TestParseServedGraph(t *testing.T) {
	g, err := Parse("served.json", []byte(served))
	if err != nil {
		t.Fatal(err)
	}
	if g.Len() != 4 {
		t.Fatalf("nodes: %d", g.Len())
	}
	out, err := g.EdgesFrom("4.7.0")
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0].To != "4.7.1" || out[0].State != EdgeSupported || out[1].To != "4.7.2" || out[1].State != EdgeConditional {
		t.Fatalf("edges from 4.7.0: %+v", out)
	}
	if len(out[1].Risks) != 1 || out[1].Risks[0].Name != "SomeRisk" || out[1].Risks[0].MatchingRules[0].Type != "Always" {
		t.Fatalf("risks: %+v", out[1].Risks)
	}
	// In both lists: conditional, as the CVO treats it, with a warning.
	e, ok, _ := g.Edge("4.7.1", "4.7.2")
	if !ok || e.State != EdgeConditional {
		t.Fatalf("4.7.1 -> 4.7.2: %+v", e)
	}
	if len(g.Warnings) != 1 || !strings.Contains(g.Warnings[0], "both edges and conditionalEdges") {
		t.Fatalf("warnings: %v", g.Warnings)
	}
	in, _ := g.EdgesTo("4.7.2")
	if len(in) != 2 || in[0].From != "4.7.0" || in[1].From != "4.7.1" {
		t.Fatalf("edges into 4.7.2: %+v", in)
	}
	if got := g.Versions("stable-4.6"); !slices.Equal(got, []string{"4.6.1"}) {
		t.Fatalf("stable-4.6: %v", got)
	}
	if got := g.Channels(); !slices.Equal(got, []string{"stable-4.6", "stable-4.7"}) {
		t.Fatalf("channels: %v", got)
	}
}

func TestShortestPath(t *testing.T) {
	g, err := Parse("served.json", []byte(served))
	if err != nil {
		t.Fatal(err)
	}
	p, err := g.ShortestPath("4.6.1", "4.7.1")
	if err != nil || !slices.Equal(p.Versions(), []string{"4.6.1", "4.7.0", "4.7.1"}) {
		t.Fatalf("path: %v %v", p.Versions(), err)
	}
	// 4.7.2 is reachable only over conditional edges.
	if _, err := g.ShortestPath("4.6.1", "4.7.2"); !errors.Is(err, ErrNoPath) {
		t.Fatalf("want ErrNoPath, got %v", err)
	}
	p, err = g.ShortestPath("4.6.1", "4.7.2", "SomeRisk")
	if err != nil || len(p.Hops) != 2 || len(p.Risks) != 1 || p.Risks[0].Name != "SomeRisk" {
		t.Fatalf("accepted path: %+v %v", p, err)
	}
	if _, err := g.ShortestPath("4.6.1", "4.9.9"); err == nil || !strings.Contains(err.Error(), "not in the graph") {
		t.Fatalf("unknown version: %v", err)
	}
	var qe *QueryError
	if _, err := g.Resolve("four"); !errors.As(err, &qe) || !qe.BadInput() {
		t.Fatalf("bad version: %v", err)
	}
}

func TestBadGraphInput(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       []string
	}{
		{"malformed", "{\n  \"nodes\": [\n    {\"version\": \"4.1.0\",}\n  ]\n}", []string{"bad.json:3:", "malformed JSON"}},
		{"wrong type", `{"nodes": [{"version": 4}], "edges": []}`, []string{"bad.json:1:", "nodes.version", "expected string"}},
		{"no nodes", `{"edges": []}`, []string{"bad.json: nodes: missing"}},
		{"no edges", `{"nodes": []}`, []string{"bad.json: edges: missing"}},
		{"edge outside", `{"nodes": [{"version": "4.1.0"}], "edges": [[0, 1]]}`, []string{"bad.json: edges[0]: node index 1 is outside the 1 nodes"}},
		{"negative", `{"nodes": [{"version": "4.1.0"}], "edges": [[-1, 0]]}`, []string{"edges[0]", "node index -1"}},
		{"triple", `{"nodes": [{"version": "4.1.0"}], "edges": [[0, 0, 0]]}`, []string{"edges[0]", "found 3 numbers"}},
		{"duplicate", `{"nodes": [{"version": "4.1.0"}, {"version": "4.1.0"}], "edges": []}`, []string{"nodes[1].version", "duplicate version 4.1.0 (also nodes[0])"}},
		{"empty version", `{"nodes": [{"version": ""}], "edges": []}`, []string{"nodes[0].version", "empty version"}},
		{"not semver", `{"nodes": [{"version": "4.1"}], "edges": []}`, []string{"nodes[0].version", "not a semantic version"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("bad.json", []byte(tc.data))
			var ie *InputError
			if !errors.As(err, &ie) || !ie.BadInput() {
				t.Fatalf("want *InputError, got %T %v", err, err)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Fatalf("multi-line error: %q", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
		})
	}
}

// raw is a graph-builder graph: amd64 and s390x builds, a placeholder node without
// payload or metadata, and 4.4.0 reached from 4.3.1 and 4.3.10.
const raw = `{
  "nodes": [
    {"version": "4.3.1+amd64", "payload": "r@sha256:a1", "metadata": {"io.openshift.upgrades.graph.release.arch": "amd64"}},
    {"version": "4.3.10+amd64", "payload": "r@sha256:a2", "metadata": {"io.openshift.upgrades.graph.release.arch": "amd64"}},
    {"version": "4.4.0+amd64", "payload": "r@sha256:a3", "metadata": {"io.openshift.upgrades.graph.release.arch": "amd64"}},
    {"version": "4.4.1+amd64", "payload": "r@sha256:a4", "metadata": {"io.openshift.upgrades.graph.release.arch": "amd64"}},
    {"version": "4.4.2+amd64", "payload": "r@sha256:a5", "metadata": {"io.openshift.upgrades.graph.release.arch": "amd64"}},
    {"version": "4.3.1+s390x", "payload": "r@sha256:s1", "metadata": {"io.openshift.upgrades.graph.release.arch": "s390x"}},
    {"version": "4.4.0+s390x", "payload": "r@sha256:s3", "metadata": {"io.openshift.upgrades.graph.release.arch": "s390x"}},
    {"version": "4.4.1+s390x", "payload": "r@sha256:s4", "metadata": {"io.openshift.upgrades.graph.release.arch": "s390x"}},
    {"version": "4.3.10+ppc64le"}
  ],
  "edges": [[0, 2], [1, 2], [2, 3], [0, 3], [1, 3], [5, 6], [6, 7], [5, 7], [3, 4], [8, 7]],
  "conditionalEdges": []
}`

// writeGraphData lays out a graph-data directory from path -> content.
func writeGraphData(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func loadRaw(t *testing.T, gd map[string]string, arch, channel string) (*Result, error) {
	t.Helper()
	rawPath := filepath.Join(t.TempDir(), "raw.json")
	if err := os.WriteFile(rawPath, []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(context.Background(), Options{Graph: rawPath, GraphData: writeGraphData(t, gd), Arch: arch, Channel: channel})
}

var baseGraphData = map[string]string{
	"version":                  "1.1.0\n",
	"channels/stable-4.4.yaml": "name: stable-4.4\nversions:\n- 4.3.1\n- 4.3.10\n- 4.4.0\n- 4.4.1\n- 4.4.2\n",
	"channels/fast-4.4.yaml":   "name: fast-4.4\nversions:\n- 4.4.0\n- 4.4.1+s390x\n",
	// Blocks 4.3.1 -> 4.4.0 only: the regex must see "4.3.1+amd64", so "4.3.1$"
	// would match nothing; "[+]" anchors the build metadata.
	"blocked-edges/4.4.0.yaml": "# 4.3.1 lost its etcd data on 4.4.0\nto: 4.4.0\nfrom: ^4\\.3\\.1[+].*$\n",
	// Conditional: 4.3.10 -> 4.4.1 carries a risk.
	"blocked-edges/4.4.1-risk.yaml": "to: 4.4.1\nfrom: 4\\.3\\.10\nurl: https://example.com/risk\nname: ProxyLeak\nmessage: Proxied clusters leak connections.\nmatchingRules:\n- type: PromQL\n  promql:\n    promql: max(cluster_proxy_enabled)\n",
	"blocked-edges/OWNERS":          "approvers: []\n",
	"blocked-edges/4.4.2.yml":       "to: 4.4.2\nfrom: .*\n",
}

func TestGraphDataPipeline(t *testing.T) {
	r, err := loadRaw(t, baseGraphData, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if r.Arch != DefaultArch || r.Len() != 5 {
		t.Fatalf("arch %q, %d nodes: %v", r.Arch, r.Len(), r.Versions(""))
	}
	// The arch filter strips the build metadata; s390x and the placeholder are gone.
	if got := r.Versions(""); !slices.Equal(got, []string{"4.3.1", "4.3.10", "4.4.0", "4.4.1", "4.4.2"}) {
		t.Fatalf("versions: %v", got)
	}
	e, ok, _ := r.Edge("4.3.1", "4.4.0")
	if !ok || e.State != EdgeBlocked || len(e.BlockedBy) != 1 || e.BlockedBy[0].File != "blocked-edges/4.4.0.yaml" || e.BlockedBy[0].Reason() != "4.3.1 lost its etcd data on 4.4.0" {
		t.Fatalf("4.3.1 -> 4.4.0: %+v", e)
	}
	if e, _, _ := r.Edge("4.3.10", "4.4.0"); e.State != EdgeSupported {
		t.Fatalf("4.3.10 -> 4.4.0 must stay supported (the regex needs 4.3.1+): %+v", e)
	}
	e, _, _ = r.Edge("4.3.10", "4.4.1")
	if e.State != EdgeConditional || len(e.Risks) != 1 || e.Risks[0].Name != "ProxyLeak" || e.Risks[0].MatchingRules[0].PromQL.PromQL != "max(cluster_proxy_enabled)" {
		t.Fatalf("4.3.10 -> 4.4.1: %+v", e)
	}
	// The .yml entry is skipped (cincinnati reads .yaml only), with a warning.
	if e, _, _ := r.Edge("4.4.1", "4.4.2"); e.State != EdgeSupported {
		t.Fatalf("4.4.1 -> 4.4.2: %+v", e)
	}
	if !slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, "4.4.2.yml: skipped") }) {
		t.Fatalf("warnings: %v", r.Warnings)
	}
	// Blocked edges are kept for queries but never used by paths.
	if _, err := r.ShortestPath("4.3.1", "4.4.0"); !errors.Is(err, ErrNoPath) {
		t.Fatalf("4.3.1 -> 4.4.0 is blocked and has no detour: %v", err)
	}
	if p, err := r.ShortestPath("4.3.1", "4.4.2"); err != nil || !slices.Equal(p.Versions(), []string{"4.3.1", "4.4.1", "4.4.2"}) {
		t.Fatalf("4.3.1 -> 4.4.2: %v %v", p.Versions(), err)
	}
	n, _ := r.Node("4.4.0")
	if !slices.Equal(n.Channels, []string{"fast-4.4", "stable-4.4"}) || n.Metadata[MetadataChannels] != "fast-4.4,stable-4.4" {
		t.Fatalf("4.4.0 channels: %v %q", n.Channels, n.Metadata[MetadataChannels])
	}
}

func TestGraphDataArchAndChannel(t *testing.T) {
	// s390x: the blocked entry without build metadata applies to every arch.
	r, err := loadRaw(t, baseGraphData, "s390x", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Versions(""); !slices.Equal(got, []string{"4.3.1", "4.4.0", "4.4.1"}) {
		t.Fatalf("s390x versions: %v", got)
	}
	if e, _, _ := r.Edge("4.3.1", "4.4.0"); e.State != EdgeBlocked {
		t.Fatalf("s390x 4.3.1 -> 4.4.0: %+v", e)
	}
	// An entry with build metadata applies to that arch only.
	gd := map[string]string{"channels/stable-4.4.yaml": baseGraphData["channels/stable-4.4.yaml"], "blocked-edges/4.4.1+s390x.yaml": "to: 4.4.1+s390x\nfrom: .*\n"}
	r, err = loadRaw(t, gd, "s390x", "")
	if err != nil {
		t.Fatal(err)
	}
	if e, _, _ := r.Edge("4.4.0", "4.4.1"); e.State != EdgeBlocked {
		t.Fatalf("s390x 4.4.0 -> 4.4.1: %+v", e)
	}
	r, err = loadRaw(t, gd, "amd64", "")
	if err != nil {
		t.Fatal(err)
	}
	if e, _, _ := r.Edge("4.4.0", "4.4.1"); e.State != EdgeSupported {
		t.Fatalf("amd64 4.4.0 -> 4.4.1: %+v", e)
	}
	// Channel filter: fast-4.4 holds 4.4.0 on every arch, 4.4.1 on s390x only.
	r, err = loadRaw(t, baseGraphData, "amd64", "fast-4.4")
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Versions(""); !slices.Equal(got, []string{"4.4.0"}) {
		t.Fatalf("fast-4.4 amd64: %v", got)
	}
	r, err = loadRaw(t, baseGraphData, "s390x", "fast-4.4")
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Versions(""); !slices.Equal(got, []string{"4.4.0", "4.4.1"}) {
		t.Fatalf("fast-4.4 s390x: %v", got)
	}
	if _, err := loadRaw(t, baseGraphData, "amd64", "candidate-9.9"); err == nil || !strings.Contains(err.Error(), "channels in graph-data: stable-4.4, fast-4.4") && !strings.Contains(err.Error(), "channels in graph-data: fast-4.4, stable-4.4") {
		t.Fatalf("unknown channel: %v", err)
	}
}

func TestGraphDataMetadataEdges(t *testing.T) {
	gd := map[string]string{
		"channels/stable-4.4.yaml": baseGraphData["channels/stable-4.4.yaml"],
		// previous.add is annotated with the target's arch; previous.remove too.
		"raw/metadata.json": `{"4.4.2": {"io.openshift.upgrades.graph.previous.add": "4.3.1", "io.openshift.upgrades.graph.previous.remove": "4.4.1"}}`,
	}
	r, err := loadRaw(t, gd, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if e, ok, _ := r.Edge("4.3.1", "4.4.2"); !ok || e.State != EdgeSupported {
		t.Fatalf("added 4.3.1 -> 4.4.2: %v %+v", ok, e)
	}
	e, _, _ := r.Edge("4.4.1", "4.4.2")
	if e.State != EdgeBlocked || len(e.RemovedBy) != 1 || !strings.Contains(e.RemovedBy[0], "previous.remove=4.4.1 on 4.4.2+amd64") {
		t.Fatalf("removed 4.4.1 -> 4.4.2: %+v", e)
	}
}

func TestBadGraphData(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"malformed blocked edge", map[string]string{"blocked-edges/4.4.0.yaml": "to: 4.4.0\nfrom: [unclosed\n"}, []string{"4.4.0.yaml", "malformed YAML"}},
		{"no from", map[string]string{"blocked-edges/4.4.0.yaml": "to: 4.4.0\n"}, []string{"4.4.0.yaml: from: missing source regex"}},
		{"bad regex", map[string]string{"blocked-edges/4.4.0.yaml": "to: 4.4.0\nfrom: \"(\"\n"}, []string{"from: invalid regex"}},
		{"bad to", map[string]string{"blocked-edges/x.yaml": "to: four\nfrom: .*\n"}, []string{"x.yaml: to:", "not a semantic version"}},
		{"bad channel version", map[string]string{"channels/a.yaml": "name: a\nversions:\n- 4.4\n"}, []string{"a.yaml: versions[0]"}},
		{"channel without name", map[string]string{"channels/a.yaml": "versions: []\n"}, []string{"a.yaml: name: missing"}},
		{"schema version", map[string]string{"version": "9.0.0\n", "channels/a.yaml": "name: a\n"}, []string{"version: unsupported graph-data schema version \"9.0.0\""}},
		{"raw metadata", map[string]string{"raw/metadata.json": "{\"4.4.0\": [}", "channels/a.yaml": "name: a\n"}, []string{"metadata.json:1:", "malformed JSON"}},
		{"empty", map[string]string{"README.md": "hi"}, []string{"no channels/*.yaml and no blocked-edges/*.yaml"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadRaw(t, tc.files, "", "")
			var ie *InputError
			if !errors.As(err, &ie) || !ie.BadInput() || strings.Contains(err.Error(), "\n") {
				t.Fatalf("want one-line *InputError, got %T %v", err, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestResolveBuildMetadata(t *testing.T) {
	// A graph-builder graph read without graph-data keeps build metadata; users may
	// still name versions plainly.
	g, err := Parse("raw.json", []byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := g.Resolve("4.4.0"); err != nil || v != "4.4.0+amd64" {
		t.Fatalf("4.4.0 -> %q %v", v, err)
	}
	if v, err := g.Resolve("4.4.0+s390x"); err != nil || v != "4.4.0+s390x" {
		t.Fatalf("4.4.0+s390x -> %q %v", v, err)
	}
	g.Arch = "s390x"
	if v, _ := g.Resolve("4.4.1"); v != "4.4.1+s390x" {
		t.Fatalf("arch preference: %q", v)
	}
	if n, ok := g.Node("4.3.10+ppc64le"); !ok || n.Payload != "" || n.Metadata != nil {
		t.Fatalf("placeholder node: %+v %v", n, ok)
	}
}
