package graph

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/blang/semver/v4"
)

// wireGraph is the update service's graph response (cincinnati's Graph schema;
// version, nodes, edges as index pairs, conditionalEdges with version strings).
type wireGraph struct {
	Version          int               `json:"version"`
	Nodes            []wireNode        `json:"nodes"`
	Edges            [][]int           `json:"edges"`
	ConditionalEdges []wireConditional `json:"conditionalEdges"`
}

type wireNode struct {
	Version  string            `json:"version"`
	Payload  string            `json:"payload"`
	Metadata map[string]string `json:"metadata"`
}

type wireConditional struct {
	Edges []struct {
		From string `json:"from"`
		To   string `json:"to"`
	} `json:"edges"`
	Risks []Risk `json:"risks"`
}

// decodeWire decodes and validates a graph document: it must have nodes and edges,
// unique non-empty semver versions, and edges that point at existing nodes.
func decodeWire(source string, data []byte) (*wireGraph, []Node, error) {
	var w wireGraph
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, nil, jsonError(source, data, err, "the file must be an update service graph (nodes, edges, conditionalEdges)")
	}
	if w.Nodes == nil {
		return nil, nil, &InputError{Source: source, Field: "nodes", Msg: "missing", Hint: "the file must be an update service graph (nodes, edges, conditionalEdges)"}
	}
	if w.Edges == nil {
		return nil, nil, &InputError{Source: source, Field: "edges", Msg: "missing", Hint: "the file must be an update service graph (nodes, edges, conditionalEdges)"}
	}
	nodes := make([]Node, len(w.Nodes))
	seen := make(map[string]int, len(w.Nodes))
	for i, wn := range w.Nodes {
		field := fmt.Sprintf("nodes[%d].version", i)
		if wn.Version == "" {
			return nil, nil, &InputError{Source: source, Field: field, Msg: "empty version"}
		}
		if j, dup := seen[wn.Version]; dup {
			return nil, nil, &InputError{Source: source, Field: field, Msg: fmt.Sprintf("duplicate version %s (also nodes[%d])", wn.Version, j), Hint: "every node must name a distinct release"}
		}
		seen[wn.Version] = i
		v, err := semver.Parse(wn.Version)
		if err != nil {
			return nil, nil, &InputError{Source: source, Field: field, Msg: fmt.Sprintf("%q is not a semantic version: %v", wn.Version, err)}
		}
		nodes[i] = Node{Version: wn.Version, Payload: wn.Payload, Metadata: wn.Metadata, semver: v}
		if ch := wn.Metadata[MetadataChannels]; ch != "" {
			nodes[i].Channels = splitList(ch)
		}
	}
	for i, e := range w.Edges {
		field := fmt.Sprintf("edges[%d]", i)
		if len(e) != 2 {
			return nil, nil, &InputError{Source: source, Field: field, Msg: fmt.Sprintf("an edge is a [from, to] pair of node indexes, found %d numbers", len(e))}
		}
		for _, x := range e {
			if x < 0 || x >= len(nodes) {
				return nil, nil, &InputError{Source: source, Field: field, Msg: fmt.Sprintf("node index %d is outside the %d nodes", x, len(nodes)), Hint: "the graph is truncated or corrupt; fetch it again"}
			}
		}
	}
	return &w, nodes, nil
}

// Parse reads an update service graph response, as served for one channel and
// architecture. source names it in errors.
func Parse(source string, data []byte) (*Graph, error) {
	w, nodes, err := decodeWire(source, data)
	if err != nil {
		return nil, err
	}
	var warnings []string
	type pair struct{ f, t int }
	at := make(map[pair]int, len(w.Edges))
	edges := make([]Edge, 0, len(w.Edges))
	for _, e := range w.Edges {
		p := pair{e[0], e[1]}
		if _, dup := at[p]; dup {
			continue
		}
		at[p] = len(edges)
		edges = append(edges, Edge{From: nodes[e[0]].Version, To: nodes[e[1]].Version, State: EdgeSupported})
	}
	index := make(map[string]int, len(nodes))
	for i, n := range nodes {
		index[n.Version] = i
	}
	for ci, ce := range w.ConditionalEdges {
		for ei, ve := range ce.Edges {
			f, okf := index[ve.From]
			t, okt := index[ve.To]
			if !okf || !okt {
				warnings = append(warnings, fmt.Sprintf("conditionalEdges[%d].edges[%d]: %s -> %s names a version that is not a node; ignored", ci, ei, ve.From, ve.To))
				continue
			}
			p := pair{f, t}
			if k, ok := at[p]; ok {
				if edges[k].State == EdgeSupported {
					// The CVO prefers the conditional edge and logs an error.
					warnings = append(warnings, fmt.Sprintf("%s -> %s is in both edges and conditionalEdges; treated as conditional, as the CVO does", ve.From, ve.To))
					edges[k].State = EdgeConditional
				}
				edges[k].Risks = appendRisks(edges[k].Risks, ce.Risks...)
				continue
			}
			at[p] = len(edges)
			edges = append(edges, Edge{From: ve.From, To: ve.To, State: EdgeConditional, Risks: appendRisks(nil, ce.Risks...)})
		}
	}
	g := newGraph(nodes, edges)
	g.Source = source
	g.Warnings = warnings
	return g, nil
}

// appendRisks adds risks not already present (by name).
func appendRisks(have []Risk, add ...Risk) []Risk {
	for _, r := range add {
		if !slices.ContainsFunc(have, func(h Risk) bool { return h.Name == r.Name }) {
			have = append(have, r)
		}
	}
	return have
}

// splitList splits a comma-separated metadata value, trimming blanks.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
