package graph_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/openshift-recover/recover/internal/testing/inputcheck"
	"github.com/openshift-recover/recover/plan/graph"
)

// The fuzz targets of the graph loader. Their seed corpora are f.Add calls plus
// testdata/fuzz/<name>/; `make fuzz` runs them for longer (docs/reliability.md).

// exampleGraph is the bundled five-node graph-builder graph.
func exampleGraph(f *testing.F) []byte {
	f.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "reconciled-4.3-to-4.4", "graph.json"))
	if err != nil {
		f.Fatal(err)
	}
	return data
}

// FuzzParse feeds arbitrary bytes to graph.Parse (an update service response).
// A failure must be a one-line bad-input error; a graph that parses must answer
// every query without panicking, and writing it back in the service's wire form
// must parse to the same nodes and edges.
func FuzzParse(f *testing.F) {
	f.Add(exampleGraph(f))
	f.Add([]byte(`{"nodes":[{"version":"4.4.3"},{"version":"4.4.4"}],"edges":[[0,1]]}`))
	f.Add([]byte(`{"nodes":[{"version":"4.4.3"},{"version":"4.4.4"},{"version":"4.5.1"}],"edges":[[0,1],[0,1]],"conditionalEdges":[{"edges":[{"from":"4.4.4","to":"4.5.1"},{"from":"4.4.3","to":"4.4.4"},{"from":"9.9.9","to":"4.4.4"}],"risks":[{"name":"R","url":"https://example.com","message":"m","matchingRules":[{"type":"PromQL","promql":{"promql":"1"}}]}]}]}`))
	f.Add([]byte(`{"nodes":[{"version":"4.4.3","metadata":{"io.openshift.upgrades.graph.release.channels":"stable-4.4, fast-4.4,"}}],"edges":[]}`))
	f.Add([]byte(`{"nodes":[{"version":"4.4.3"},{"version":"4.4.3"}],"edges":[]}`))
	f.Add([]byte(`{"nodes":[{"version":"x"}],"edges":[[0,7]]}`))
	f.Add([]byte(`{"nodes":[],"edges":[[0]]}`))
	f.Add([]byte(`{"nodes":"no","edges":{}}`))
	f.Add([]byte("{\"nodes\":[{\"version\":\"4.4.3\"}],\n\"edges\":[[0,"))
	f.Add([]byte{0xff, 0xfe, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := graph.Parse("graph.json", data)
		if err != nil {
			if p := inputcheck.Problem(err); p != "" {
				t.Fatal(p)
			}
			return
		}
		exercise(t, g)
		again, err := graph.Parse("again.json", wire(t, g))
		if err != nil {
			t.Fatalf("a parsed graph written back does not parse: %v", err)
		}
		if !reflect.DeepEqual(nodesOf(g), nodesOf(again)) {
			t.Fatalf("nodes differ after a round trip:\n%v\n%v", nodesOf(g), nodesOf(again))
		}
		if !reflect.DeepEqual(g.Edges(), again.Edges()) {
			t.Fatalf("edges differ after a round trip:\n%v\n%v", g.Edges(), again.Edges())
		}
	})
}

// FuzzGraphData feeds an arbitrary graph-builder graph, channel file and
// blocked-edges file through graph.Load with graph-data, as `recover graph
// --graph-data` does: failures are one-line bad-input errors, and a graph that
// loads answers every query.
func FuzzGraphData(f *testing.F) {
	base := filepath.Join("..", "..", "examples", "reconciled-4.3-to-4.4", "graph-data")
	channel, err := os.ReadFile(filepath.Join(base, "channels", "stable-4.4.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	blocked, err := os.ReadFile(filepath.Join(base, "blocked-edges", "4.4.3.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	g := exampleGraph(f)
	f.Add(g, channel, blocked, "stable-4.4")
	f.Add(g, channel, []byte("to: 4.4.4\nfrom: .*\n"), "")
	f.Add(g, []byte("name: stable-4.4\nversions: [4.4.4+amd64, 4.3.19]\n"), []byte("to: 4.4.4+amd64\nfrom: 4\\.3\\.19\nurl: u\nname: N\nmessage: m\nmatchingRules: [{type: Always}]\n"), "stable-4.4")
	f.Add(g, []byte("name: [x]\n"), blocked, "stable-4.4")
	f.Add(g, channel, []byte("to: 4.4.3\nfrom: '(('\n"), "")
	f.Add(g, channel, []byte("to: 4.4.3\nfrom: .*\nmatchingRules: [{}]\n"), "")
	f.Add([]byte(`{"nodes":[{"version":"4.4.3+amd64","payload":"p","metadata":{"io.openshift.upgrades.graph.release.arch":"amd64","io.openshift.upgrades.graph.previous.remove_regex":"(","io.openshift.upgrades.graph.next.add":"4.4.3"}}],"edges":[]}`), channel, blocked, "")
	f.Fuzz(func(t *testing.T, graphJSON, channelYAML, blockedYAML []byte, ch string) {
		dir := t.TempDir()
		gd := filepath.Join(dir, "graph-data")
		for name, data := range map[string][]byte{
			"graph.json":                          graphJSON,
			"graph-data/channels/c.yaml":          channelYAML,
			"graph-data/blocked-edges/b.yaml":     blockedYAML,
			"graph-data/blocked-edges/skip.yml":   blockedYAML,
			"graph-data/channels/not-yaml.txt":    channelYAML,
			"graph-data/raw/metadata.json.unused": nil,
		} {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var res *graph.Result
		var err error
		inputcheck.Within(t, 20*time.Second, "graph.Load", func() {
			res, err = graph.Load(context.Background(), graph.Options{Graph: filepath.Join(dir, "graph.json"), GraphData: gd, Channel: ch})
		})
		if err != nil {
			if p := inputcheck.Problem(err); p != "" {
				t.Fatal(p)
			}
			return
		}
		exercise(t, res.Graph)
		for _, e := range res.Edges() {
			if e.State == graph.EdgeBlocked && len(e.BlockedBy) == 0 && len(e.RemovedBy) == 0 {
				t.Fatalf("blocked edge %s -> %s says nothing about why", e.From, e.To)
			}
			if e.State == graph.EdgeConditional && len(e.Risks) == 0 {
				t.Fatalf("conditional edge %s -> %s has no risk", e.From, e.To)
			}
		}
	})
}

// exercise runs every query of a loaded graph: answers name known versions, and
// failures are QueryErrors (or ErrNoPath).
func exercise(t *testing.T, g *graph.Graph) {
	t.Helper()
	nodes := g.Nodes()
	known := map[string]bool{}
	for _, n := range nodes {
		known[n.Version] = true
	}
	for _, e := range g.Edges() {
		if !known[e.From] || !known[e.To] {
			t.Fatalf("edge %s -> %s names a version that is not a node", e.From, e.To)
		}
	}
	_ = g.Channels()
	for _, c := range g.Channels() {
		_ = g.Versions(c)
	}
	if len(nodes) == 0 {
		return
	}
	first, last := nodes[0].Version, nodes[len(nodes)-1].Version
	for _, v := range []string{first, last, "4.4", "not-a-version", ""} {
		if _, err := g.EdgesFrom(v); err != nil && !known[v] {
			if p := inputcheck.Problem(err); p != "" {
				t.Fatalf("EdgesFrom(%q): %s", v, p)
			}
		}
		_, _ = g.EdgesTo(v)
		_, _ = g.Resolve(v)
	}
	if _, _, err := g.Edge(first, last); err != nil {
		t.Fatalf("Edge(%s, %s) between known versions: %v", first, last, err)
	}
	p, err := g.ShortestPath(first, last, "R", "N")
	if err != nil {
		if !errors.Is(err, graph.ErrNoPath) {
			if pr := inputcheck.Problem(err); pr != "" {
				t.Fatalf("ShortestPath: %s", pr)
			}
		}
		return
	}
	vs := p.Versions()
	if vs[0] != first || vs[len(vs)-1] != last {
		t.Fatalf("path %v does not run from %s to %s", vs, first, last)
	}
}

// wire writes a parsed graph back in the update service's response format.
func wire(t *testing.T, g *graph.Graph) []byte {
	t.Helper()
	type node struct {
		Version  string            `json:"version"`
		Payload  string            `json:"payload,omitempty"`
		Metadata map[string]string `json:"metadata,omitempty"`
	}
	type ft struct {
		From string `json:"from"`
		To   string `json:"to"`
	}
	type cond struct {
		Edges []ft         `json:"edges"`
		Risks []graph.Risk `json:"risks"`
	}
	var w struct {
		Nodes            []node   `json:"nodes"`
		Edges            [][2]int `json:"edges"`
		ConditionalEdges []cond   `json:"conditionalEdges,omitempty"`
	}
	w.Edges, w.Nodes = [][2]int{}, []node{}
	index := map[string]int{}
	for i, n := range g.Nodes() {
		index[n.Version] = i
		w.Nodes = append(w.Nodes, node{Version: n.Version, Payload: n.Payload, Metadata: n.Metadata})
	}
	for _, e := range g.Edges() {
		switch e.State {
		case graph.EdgeSupported:
			w.Edges = append(w.Edges, [2]int{index[e.From], index[e.To]})
		case graph.EdgeConditional:
			w.ConditionalEdges = append(w.ConditionalEdges, cond{Edges: []ft{{e.From, e.To}}, Risks: e.Risks})
		}
	}
	data, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// nodesOf is what a round trip must keep of the nodes.
func nodesOf(g *graph.Graph) []graph.Node {
	ns := g.Nodes()
	for i := range ns {
		if len(ns[i].Metadata) == 0 {
			ns[i].Metadata = nil
		}
	}
	return ns
}
