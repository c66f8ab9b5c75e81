package graph

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// eusGraph is a served graph over 4.18 -> 4.19 -> 4.20 built from the edges
// given as "from>to" pairs (every version named gets a node).
func eusGraph(t *testing.T, edges ...string) *Graph {
	t.Helper()
	idx := map[string]int{}
	var nodes, es []string
	node := func(v string) int {
		if i, ok := idx[v]; ok {
			return i
		}
		idx[v] = len(nodes)
		nodes = append(nodes, fmt.Sprintf(`{"version":%q,"payload":"quay.io/r@sha256:%064d","metadata":{}}`, v, len(nodes)+1))
		return idx[v]
	}
	for _, e := range edges {
		f, to, _ := strings.Cut(e, ">")
		es = append(es, fmt.Sprintf("[%d,%d]", node(f), node(to)))
	}
	g, err := Parse("eus.json", []byte(`{"version":1,"nodes":[`+strings.Join(nodes, ",")+`],"edges":[`+strings.Join(es, ",")+`]}`))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestStagedPathNamesTheIntermediateThatLeadsOnward(t *testing.T) {
	// 4.19.9 is the newest 4.19 reachable from 4.18.2 but has no edge onward
	// (openshift-docs #49224): 4.19.5 is the intermediate.
	g := eusGraph(t, "4.18.2>4.19.5", "4.18.2>4.19.9", "4.19.5>4.20.3", "4.18.2>4.18.4", "4.19.1>4.20.3")
	p, err := g.StagedPath("4.18.2", "4.20.3")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Stages) != 2 || p.Stages[0].To != "4.19.5" || p.Stages[1].To != "4.20.3" {
		t.Fatalf("stages: %+v", p.Stages)
	}
	rules := map[string]string{}
	for _, pr := range p.Stages[0].Passed {
		rules[pr.Version] = pr.Rule
	}
	if rules["4.19.9"] != PassedNoEdgeOnward || rules["4.19.1"] != PassedNoEdgeFrom {
		t.Fatalf("passed: %+v", p.Stages[0].Passed)
	}
	if !strings.Contains(p.Direct, "no edge 4.18.2 -> 4.20.3") {
		t.Fatalf("direct: %q", p.Direct)
	}
}

func TestStagedPathTakesAPatchStageFirstWhenTheStartLeadsNowhere(t *testing.T) {
	g := eusGraph(t, "4.18.2>4.18.4", "4.18.4>4.19.5", "4.19.5>4.20.3")
	p, err := g.StagedPath("4.18.2", "4.20.3")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range p.Stages {
		got = append(got, s.To)
	}
	if strings.Join(got, " ") != "4.18.4 4.19.5 4.20.3" {
		t.Fatalf("stages: %v", got)
	}
}

func TestStagedPathRefusesAnIntermediateWithNoEdgeOnward(t *testing.T) {
	g := eusGraph(t, "4.18.2>4.19.9", "4.19.1>4.20.3")
	_, err := g.StagedPath("4.18.2", "4.20.3")
	if !errors.Is(err, ErrNoPath) || !strings.Contains(err.Error(), "4.19.9 has no usable edge onward") {
		t.Fatalf("want ErrNoPath naming 4.19.9, got %v", err)
	}
}

func TestRestrictKeepsOnlyTheNamedReleases(t *testing.T) {
	g := eusGraph(t, "4.18.2>4.19.5", "4.18.2>4.19.9", "4.19.5>4.20.3")
	r := g.Restrict("4.18.2", "4.19.5")
	if r.Len() != 2 || len(r.Edges()) != 1 || r.Source != g.Source {
		t.Fatalf("restricted: %d nodes %+v", r.Len(), r.Edges())
	}
}
