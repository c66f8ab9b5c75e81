package plan

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/mustgather"
	"github.com/openshift-recover/recover/plan/graph"
	"github.com/openshift-recover/recover/plan/payload"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The bundled examples (examples/ at the repository root).
const (
	exampleDir       = "../examples/reconciled-4.3-to-4.4"
	incident1        = exampleDir + "/must-gather"
	incident2        = "../examples/false-success-revision/must-gather"
	exampleGraph     = exampleDir + "/graph.json"
	exampleGraphData = exampleDir + "/graph-data"
	payload444       = exampleDir + "/releases/4.4.4"
	payload443       = exampleDir + "/releases/4.4.3"

	image4319 = "quay.io/openshift-release-dev/ocp-release@sha256:28c451bfb531e5af71332a933073a2d97673ed157150bacb014a4358501f05ad"
	image443  = "quay.io/openshift-release-dev/ocp-release@sha256:039a4ef7c128a049ccf916a1d68ce93e8f5494b44d5a75df60c85e9e7191dacc"
	image444  = "quay.io/openshift-release-dev/ocp-release@sha256:baa687f29b0ac155d8f4c6914056d36d68f343feb9c1e82b46eef95819d00be5"
	image445  = "quay.io/openshift-release-dev/ocp-release@sha256:4a461dc23a9d323c8bd7a8631bed078a9e5eec690ce073f78b645c83fb4cdf74"
)

var (
	snapOnce  sync.Once
	snapJSON  = map[string][]byte{}
	snapErr   error
	fixedTime = time.Date(2020, 5, 25, 9, 0, 0, 0, time.UTC)
)

// snapshot returns a fresh, mutable copy of an example must-gather's snapshot
// (collected once per test binary).
func snapshot(t testing.TB, mg string) *inspect.Snapshot {
	t.Helper()
	snapOnce.Do(func() {
		for _, dir := range []string{incident1, incident2} {
			s, err := mustgather.New(dir).Collect(context.Background())
			if err != nil {
				snapErr = err
				return
			}
			snapJSON[dir], snapErr = json.Marshal(s)
			if snapErr != nil {
				return
			}
		}
	})
	if snapErr != nil {
		t.Fatal(snapErr)
	}
	s, err := inspect.ReadSnapshot(bytes.NewReader(snapJSON[mg]))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// exampleGraphResult loads the example graph with its graph-data (stable-4.4).
func exampleGraphResult(t testing.TB) *graph.Result {
	t.Helper()
	g, err := graph.Load(context.Background(), graph.Options{Graph: exampleGraph, GraphData: exampleGraphData, Channel: "stable-4.4"})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// wireEdge is an edge of a test graph: supported, or conditional with risks.
type wireEdge struct {
	from, to string
	risks    []string
}

// testGraph builds an update-service graph from versions and edges.
func testGraph(t testing.TB, edges ...wireEdge) *graph.Result {
	t.Helper()
	images := map[string]string{"4.3.18": "quay.io/openshift-release-dev/ocp-release@sha256:" + strings.Repeat("1", 64),
		"4.3.19": image4319, "4.4.3": image443, "4.4.4": image444, "4.4.5": image445,
		"4.5.1": "quay.io/openshift-release-dev/ocp-release@sha256:" + strings.Repeat("5", 64)}
	var versions []string
	index := map[string]int{}
	add := func(v string) {
		if _, ok := index[v]; !ok {
			index[v] = len(versions)
			versions = append(versions, v)
		}
	}
	for _, e := range edges {
		add(e.from)
		add(e.to)
	}
	type node struct {
		Version  string            `json:"version"`
		Payload  string            `json:"payload"`
		Metadata map[string]string `json:"metadata"`
	}
	type risk struct {
		Name          string           `json:"name"`
		URL           string           `json:"url"`
		Message       string           `json:"message"`
		MatchingRules []map[string]any `json:"matchingRules"`
	}
	type cond struct {
		Edges []map[string]string `json:"edges"`
		Risks []risk              `json:"risks"`
	}
	doc := struct {
		Version          int     `json:"version"`
		Nodes            []node  `json:"nodes"`
		Edges            [][]int `json:"edges"`
		ConditionalEdges []cond  `json:"conditionalEdges"`
	}{Version: 1, Edges: [][]int{}}
	for _, v := range versions {
		doc.Nodes = append(doc.Nodes, node{Version: v, Payload: images[v], Metadata: map[string]string{graph.MetadataChannels: "stable-4.4"}})
	}
	for _, e := range edges {
		if len(e.risks) == 0 {
			doc.Edges = append(doc.Edges, []int{index[e.from], index[e.to]})
			continue
		}
		c := cond{Edges: []map[string]string{{"from": e.from, "to": e.to}}}
		for _, r := range e.risks {
			c.Risks = append(c.Risks, risk{Name: r, URL: "https://issues.example/" + r, Message: r + " may bite.", MatchingRules: []map[string]any{{"type": "Always"}}})
		}
		doc.ConditionalEdges = append(doc.ConditionalEdges, c)
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	g, err := graph.Parse("test-graph.json", data)
	if err != nil {
		t.Fatal(err)
	}
	sum := planfile.DigestBytes(data)
	return &graph.Result{Graph: g, Digest: sum}
}

// candidate returns the named candidate of a selection's table.
func candidateOf(t testing.TB, cands []planfile.Candidate, version string) planfile.Candidate {
	t.Helper()
	for _, c := range cands {
		if c.Version == version {
			return c
		}
	}
	t.Fatalf("no candidate %s in %v", version, versionsOf(cands))
	return planfile.Candidate{}
}

func versionsOf(cands []planfile.Candidate) []string {
	var out []string
	for _, c := range cands {
		out = append(out, fmt.Sprintf("%s:%s:%s", c.Version, c.Verdict, c.Rule))
	}
	return out
}

// makeExample makes a plan for a snapshot with the example graph and a payload
// directory, a fixed clock and generator.
func makeExample(t testing.TB, s *inspect.Snapshot, dir string, mutate func(*Options)) (*planfile.Plan, error) {
	t.Helper()
	o := Options{Snapshot: s, Graph: exampleGraphResult(t), Payload: PayloadDir{Dir: dir},
		Now: func() time.Time { return fixedTime }, Generator: "recover test"}
	if mutate != nil {
		mutate(&o)
	}
	// These tests exercise the update plan's mechanism (selection, order,
	// gates, remedies inside the bracket). Where the decision would keep the
	// CVO at the wheel (the second incident is an update in progress), the
	// admin asks for the push, as --take-over does; the decision itself has
	// its own tests (outcome_test.go).
	if o.TakeOver == "" && !Decide(s, DecideInput{Accept: o.Accept, Signatures: o.ReleaseSignatures}).Outcome.Kind.NeedsRelease() {
		o.TakeOver = "test: the update plan's mechanism"
	}
	return Make(context.Background(), o)
}

// stepIndex returns the index of the first step matching pred, -1 if none.
func stepIndex(p *planfile.Plan, pred func(*planfile.Step) bool) int {
	for i := range p.Steps {
		if pred(&p.Steps[i]) {
			return i
		}
	}
	return -1
}

func isStaticWait(component string) func(*planfile.Step) bool {
	return func(s *planfile.Step) bool {
		return s.Action == planfile.ActionWait && s.Gate != nil && s.Gate.StaticPods != nil &&
			inspect.StaticPodComponentFor(s.Gate.StaticPods.Resource) != nil &&
			inspect.StaticPodComponentFor(s.Gate.StaticPods.Resource).Component == component
	}
}

func isCOStep(name string) func(*planfile.Step) bool {
	return func(s *planfile.Step) bool {
		return s.Manifest != nil && s.Manifest.Kind == "ClusterOperator" && s.Manifest.Name == name
	}
}

func isAction(a planfile.Action, pool string) func(*planfile.Step) bool {
	return func(s *planfile.Step) bool { return s.Action == a && s.Pool == pool }
}

// payloadOf loads an example payload the way Make would for a snapshot.
func payloadOf(t testing.TB, s *inspect.Snapshot, dir, image string) *payload.Payload {
	t.Helper()
	p, err := payload.LoadDir(dir, payload.Options{Inclusion: Inclusion(s), ReleaseImage: image})
	if err != nil {
		t.Fatal(err)
	}
	return p
}
