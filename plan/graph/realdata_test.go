package graph

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/internal/testing/shareddata"
)

const capture2021 = "cincinnati-graph/graph-builder-fixtures/20211124.083150"

func TestRealGraphBuilderWithGraphData(t *testing.T) {
	dir := shareddata.RealData(t, capture2021)
	raw := filepath.Join(dir, "graph-gb-raw.json")
	data, err := os.ReadFile(raw)
	if err != nil {
		t.Fatal(err)
	}
	w, nodes, err := decodeWire(raw, data)
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 1085 || len(w.Edges) != 19478 {
		t.Fatalf("raw graph: %d nodes, %d edges", len(nodes), len(w.Edges))
	}
	for _, ch := range []string{"", "stable-4.4"} {
		r, err := Load(context.Background(), Options{Graph: raw, GraphData: filepath.Join(dir, "cincinnati-graph-data"), Channel: ch})
		if err != nil {
			t.Fatal(err)
		}
		e, ok, err := r.Edge("4.3.19", "4.4.3")
		if err != nil || !ok || e.State != EdgeBlocked || len(e.BlockedBy) != 1 {
			t.Fatalf("%q: 4.3.19 -> 4.4.3: %+v %v", ch, e, err)
		}
		if b := e.BlockedBy[0]; b.File != "blocked-edges/4.4.3.yaml" || b.From != `4\.3\..*` || !strings.Contains(b.Reason(), "NodeInstaller_InstallerPodFailed") {
			t.Fatalf("%q: blocked by %+v", ch, b)
		}
		if e, ok, _ := r.Edge("4.3.19", "4.4.4"); !ok || e.State != EdgeSupported {
			t.Fatalf("%q: 4.3.19 -> 4.4.4: %+v", ch, e)
		}
		if p, err := r.ShortestPath("4.3.19", "4.4.4"); err != nil || len(p.Hops) != 1 {
			t.Fatalf("%q: path 4.3.19 -> 4.4.4: %v %v", ch, p.Versions(), err)
		}
	}
	r, err := Load(context.Background(), Options{Graph: raw, GraphData: filepath.Join(dir, "cincinnati-graph-data"), Channel: "stable-4.4"})
	if err != nil {
		t.Fatal(err)
	}
	vs := r.Versions("")
	if !slices.Contains(vs, "4.3.19") || !slices.Contains(vs, "4.4.4") || slices.Contains(vs, "4.4.0") {
		t.Fatalf("stable-4.4 membership: %v", vs)
	}
	// The blocked-edges 4.4.4 entry (from 4\.3\.1[23]) blocks 4.3.12 and 4.3.13.
	if e, _, _ := r.Edge("4.3.13", "4.4.4"); e.State != EdgeBlocked {
		t.Fatalf("4.3.13 -> 4.4.4: %+v", e)
	}
}

// TestRealGraphDataMatchesQuayMetadata is cincinnati's own oracle: the
// graph-builder graph plus graph-data must give the same edges as the same capture
// with the metadata once carried by quay labels, run through edge-add-remove.
func TestRealGraphDataMatchesQuayMetadata(t *testing.T) {
	dir := shareddata.RealData(t, capture2021)
	for _, arch := range []string{"amd64", "s390x", "ppc64le"} {
		ours, err := Load(context.Background(), Options{Graph: filepath.Join(dir, "graph-gb-raw.json"), GraphData: filepath.Join(dir, "cincinnati-graph-data"), Arch: arch})
		if err != nil {
			t.Fatal(err)
		}
		quayPath := filepath.Join(dir, "graph-gb-with-quay-metadata.json")
		data, err := os.ReadFile(quayPath)
		if err != nil {
			t.Fatal(err)
		}
		// No graph-data: only the nodes' own previous/next metadata applies.
		theirs, err := applyGraphData(quayPath, data, &GraphData{Dir: "(quay labels)"}, arch, "")
		if err != nil {
			t.Fatal(err)
		}
		// Conditional edges are not in the served "edges" list: cincinnati removes them
		// there (the quay labels carry the same remove_regex) and lists them in
		// conditionalEdges.
		served := func(g *Graph) []string {
			var out []string
			for _, e := range g.Edges() {
				if e.State == EdgeSupported {
					out = append(out, e.From+"->"+e.To)
				}
			}
			return out
		}
		a, b := served(ours.Graph), served(theirs)
		if len(a) == 0 || !slices.Equal(a, b) {
			t.Fatalf("%s: graph-data gives %d served edges, quay metadata %d; first difference: %s", arch, len(a), len(b), firstDiff(a, b))
		}
		for _, e := range ours.Edges() {
			if e.State == EdgeConditional && (e.To != "4.7.4" || len(e.Risks) == 0) {
				t.Fatalf("%s: unexpected conditional edge %+v", arch, e)
			}
		}
	}
}

func firstDiff(a, b []string) string {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] + " vs " + b[i]
		}
	}
	return "length"
}

func TestRealChannelGraphs(t *testing.T) {
	dir := shareddata.RealData(t, "cincinnati-graph/channel-graphs")
	r, err := Load(context.Background(), Options{Graph: filepath.Join(dir, "421646a6e9592b179c26b3c77d406820c479a19c_stable-4.3_amd64_v1.json"), Channel: "stable-4.3"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Len() != 41 || r.CountEdges()[EdgeSupported] != 327 {
		t.Fatalf("stable-4.3: %d nodes, %v", r.Len(), r.CountEdges())
	}
	if _, err := r.ShortestPath("4.2.16", "4.3.40"); err != nil {
		t.Fatal(err)
	}
	r, err = Load(context.Background(), Options{Graph: filepath.Join(dir, "134475077ed4eeaedf3c339f12915b9cdaf7d194_stable-4.7_amd64_v1.json")})
	if err != nil {
		t.Fatal(err)
	}
	e, ok, _ := r.Edge("4.7.2", "4.7.4")
	if !ok || e.State != EdgeConditional || e.Risks[0].Name != "VSphereNodeNameChanges" {
		t.Fatalf("4.7.2 -> 4.7.4: %+v", e)
	}
	e, _, _ = r.Edge("4.6.15", "4.7.4")
	if len(e.Risks) != 3 {
		t.Fatalf("4.6.15 -> 4.7.4 should carry three risks: %+v", e.Risks)
	}
}

func TestReal2020CaptureSchema100(t *testing.T) {
	dir := shareddata.RealData(t, "cincinnati-graph/graph-builder-fixtures/20200319.204124")
	r, err := Load(context.Background(), Options{Graph: filepath.Join(dir, "graph-gb-raw.json"), GraphData: filepath.Join(dir, "cincinnati-graph-data"), Channel: "stable-4.3"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Len() == 0 || r.CountEdges()[EdgeSupported] == 0 {
		t.Fatalf("stable-4.3 of 2020: %d nodes %v", r.Len(), r.CountEdges())
	}
}

func TestExampleGraph(t *testing.T) {
	r, err := Load(context.Background(), Options{Graph: "../../examples/reconciled-4.3-to-4.4/graph.json", GraphData: "../../examples/reconciled-4.3-to-4.4/graph-data", Channel: "stable-4.4"})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Versions(""); !slices.Equal(got, []string{"4.3.18", "4.3.19", "4.4.3", "4.4.4", "4.4.5"}) {
		t.Fatalf("versions: %v", got)
	}
	e, _, _ := r.Edge("4.3.19", "4.4.3")
	if e.State != EdgeBlocked || e.BlockedBy[0].Name != "EtcdInstallerPodFailed" {
		t.Fatalf("4.3.19 -> 4.4.3: %+v", e)
	}
	for _, pair := range [][2]string{{"4.3.19", "4.4.4"}, {"4.4.3", "4.4.4"}} {
		if e, _, _ := r.Edge(pair[0], pair[1]); e.State != EdgeSupported {
			t.Fatalf("%v: %+v", pair, e)
		}
	}
	n, _ := r.Node("4.4.4")
	if n.Payload != "quay.io/openshift-release-dev/ocp-release@sha256:baa687f29b0ac155d8f4c6914056d36d68f343feb9c1e82b46eef95819d00be5" {
		t.Fatalf("4.4.4 payload %q", n.Payload)
	}
}
