package graph

import (
	"fmt"
	"slices"
)

// StagePath is a path across minors, one stage per minor: the intermediate
// release of every minor between From and To, each chosen because it has an
// edge from the stage before it and an edge onward toward To (the trap of
// openshift-docs #49224: a 4.y+1.z with no edge to 4.y+2 strands the cluster).
type StagePath struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Stages are the hops in order; the last one's To is the goal.
	Stages []StageHop `json:"stages"`
	// Direct says why the one-hop path From -> To is not taken ("" when From
	// and To are one minor apart and the edge is usable: then there is one stage).
	Direct string `json:"direct,omitempty"`
}

// StageHop is one stage: From -> To over an edge the update service serves.
type StageHop struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Image is To's release image (its node's payload).
	Image string `json:"image,omitempty"`
	Edge  Edge   `json:"edge"`
	// Passed are the other releases of To's minor that were considered and why
	// each was not chosen (no edge from From, no edge onward, an older one).
	Passed []PassedRelease `json:"passed,omitempty"`
}

// PassedRelease is a release of a stage's minor that was not chosen, and why.
type PassedRelease struct {
	Version string `json:"version"`
	// Rule is "no-edge-from", "no-edge-onward" or "older".
	Rule   string `json:"rule"`
	Reason string `json:"reason"`
}

// The PassedRelease rules.
const (
	PassedNoEdgeFrom   = "no-edge-from"
	PassedNoEdgeOnward = "no-edge-onward"
	PassedOlder        = "older"
)

// StagedPath finds the path from -> to with one stage per minor (a minor update
// moves the kube-apiserver by one minor: none can be skipped), and, when from
// has no usable edge into the next minor's releases that lead onward, a first
// patch stage inside from's minor. Within each minor it takes the newest release
// that has a usable edge (supported, or conditional with every risk accepted)
// from the stage before and one onward toward to. It fails wrapping ErrNoPath
// when some minor has no such release, naming the releases passed.
func (g *Graph) StagedPath(from, to string, accepted ...string) (*StagePath, error) {
	f, err := g.Resolve(from)
	if err != nil {
		return nil, err
	}
	t, err := g.Resolve(to)
	if err != nil {
		return nil, err
	}
	fv, tv := g.nodes[g.index[f]].semver, g.nodes[g.index[t]].semver
	if fv.Major != tv.Major {
		return nil, &QueryError{Msg: fmt.Sprintf("%s -> %s crosses a major version: recover plans stages within one major", f, t)}
	}
	if !fv.LT(tv) {
		return nil, &QueryError{Msg: fmt.Sprintf("%s is not newer than %s: a staged path goes forward", t, f)}
	}
	usable := func(e Edge) bool { return edgeUsable(e, accepted) }
	// levels[k] are the releases of minor fv.Minor+k (the last level is {to}).
	n := int(tv.Minor - fv.Minor)
	if n == 0 { // within a minor: one stage over the edge, when it is usable
		fi, ti := g.index[f], g.index[t]
		if !g.usableEdge(fi, ti, accepted) {
			return nil, fmt.Errorf("%w from %s to %s in %s%s: no usable edge", ErrNoPath, f, t, g.Source, g.scope())
		}
		ei, _ := g.edgeIndex(fi, ti)
		return &StagePath{From: f, To: t, Stages: []StageHop{{From: f, To: t, Image: g.nodes[ti].Payload, Edge: g.edges[ei]}}}, nil
	}
	levels := make([][]int, n+1)
	for i, node := range g.nodes {
		if node.Payload == "" || node.semver.Major != fv.Major {
			continue
		}
		k := int(node.semver.Minor) - int(fv.Minor)
		if k >= 1 && k < n {
			levels[k] = append(levels[k], i)
		}
	}
	levels[n] = []int{g.index[t]}
	for i, node := range g.nodes {
		if node.Payload != "" && node.semver.Major == fv.Major && node.semver.Minor == fv.Minor && fv.LT(node.semver) && n > 0 {
			levels[0] = append(levels[0], i)
		}
	}
	// good[i]: release i reaches to, one minor per stage.
	good := map[int]bool{g.index[t]: true}
	for k := n - 1; k >= 1; k-- {
		for _, i := range levels[k] {
			for _, ei := range g.out[i] {
				if e := g.edges[ei]; usable(e) && good[g.index[e.To]] && int(g.nodes[g.index[e.To]].semver.Minor) == int(fv.Minor)+k+1 {
					good[i] = true
					break
				}
			}
		}
	}
	next := func(cur, k int) (int, []PassedRelease) {
		cands := slices.Clone(levels[k])
		slices.SortFunc(cands, func(a, b int) int { return g.nodes[b].semver.Compare(g.nodes[a].semver) }) // newest first
		chosen := -1
		var passed []PassedRelease
		for _, i := range cands {
			v := g.nodes[i].Version
			switch {
			case !g.usableEdge(cur, i, accepted):
				passed = append(passed, PassedRelease{Version: v, Rule: PassedNoEdgeFrom, Reason: fmt.Sprintf("no usable edge %s -> %s", g.nodes[cur].Version, v)})
			case !good[i]:
				passed = append(passed, PassedRelease{Version: v, Rule: PassedNoEdgeOnward, Reason: fmt.Sprintf("%s -> %s exists, but %s has no usable edge onward to a %d.%d release that reaches %s", g.nodes[cur].Version, v, v, fv.Major, int(fv.Minor)+k+1, t)})
			case chosen >= 0:
				passed = append(passed, PassedRelease{Version: v, Rule: PassedOlder, Reason: fmt.Sprintf("older than %s, which also leads onward", g.nodes[chosen].Version)})
			default:
				chosen = i
			}
		}
		return chosen, passed
	}
	p := &StagePath{From: f, To: t}
	cur := g.index[f]
	leads := func(i int) bool { c, _ := next(i, 1); return c >= 0 }
	if !leads(cur) {
		// A patch stage first, when from itself leads nowhere: the newest
		// release of from's minor with a usable edge from it that leads onward.
		best := -1
		for _, i := range levels[0] {
			if g.usableEdge(cur, i, accepted) && leads(i) && (best < 0 || g.nodes[best].semver.LT(g.nodes[i].semver)) {
				best = i
			}
		}
		if best < 0 {
			// None leads onward: say so from the newest one reachable,
			// where the cluster would be stranded.
			for _, i := range levels[0] {
				if g.usableEdge(cur, i, accepted) && (best < 0 || g.nodes[best].semver.LT(g.nodes[i].semver)) {
					best = i
				}
			}
		}
		if best >= 0 {
			ei, _ := g.edgeIndex(cur, best)
			p.Stages = append(p.Stages, StageHop{From: g.nodes[cur].Version, To: g.nodes[best].Version, Image: g.nodes[best].Payload, Edge: g.edges[ei]})
			cur = best
		}
	}
	for k := 1; k <= n; k++ {
		c, passed := next(cur, k)
		if c < 0 {
			return nil, fmt.Errorf("%w from %s to %s in %s%s: no %d.%d release has a usable edge from %s and one onward%s", ErrNoPath, f, t, g.Source, g.scope(), fv.Major, int(fv.Minor)+k, g.nodes[cur].Version, passedText(passed))
		}
		ei, _ := g.edgeIndex(cur, c)
		p.Stages = append(p.Stages, StageHop{From: g.nodes[cur].Version, To: g.nodes[c].Version, Image: g.nodes[c].Payload, Edge: g.edges[ei], Passed: passed})
		cur = c
	}
	if len(p.Stages) > 1 {
		e, found, _ := g.Edge(f, t)
		switch {
		case !found && n > 1:
			p.Direct = fmt.Sprintf("no edge %s -> %s: the update service serves none across %d minors (a minor update moves the kube-apiserver one minor)", f, t, n)
		case !found:
			p.Direct = fmt.Sprintf("no edge %s -> %s", f, t)
		case !usable(e):
			p.Direct = fmt.Sprintf("the edge %s -> %s is %s", f, t, e.State)
		default:
			p.Direct = fmt.Sprintf("the edge %s -> %s exists, but skips a minor: the kube-apiserver moves one minor per update", f, t)
		}
	}
	return p, nil
}

// edgeIndex is the usable-or-not edge index from node a to node b.
func (g *Graph) edgeIndex(a, b int) (int32, bool) {
	for _, ei := range g.out[a] {
		if g.index[g.edges[ei].To] == b {
			return ei, g.edges[ei].State != EdgeBlocked
		}
	}
	return -1, false
}

func (g *Graph) usableEdge(a, b int, accepted []string) bool {
	ei, ok := g.edgeIndex(a, b)
	return ok && edgeUsable(g.edges[ei], accepted)
}

// edgeUsable: supported, or conditional with every risk accepted: the one rule
// ShortestPath and StagedPath share.
func edgeUsable(e Edge, accepted []string) bool {
	switch e.State {
	case EdgeSupported:
		return true
	case EdgeConditional:
		for _, r := range e.Risks {
			if !slices.Contains(accepted, r.Name) {
				return false
			}
		}
		return true
	}
	return false
}

func passedText(ps []PassedRelease) string {
	if len(ps) == 0 {
		return ""
	}
	s := " ("
	for i, p := range ps {
		if i > 0 {
			s += "; "
		}
		s += p.Version + ": " + p.Reason
	}
	return s + ")"
}

// Restrict returns a graph of the same source with only the named versions and
// the edges among them: the per-hop planner chooses a stage's target from it.
func (g *Graph) Restrict(versions ...string) *Graph {
	var nodes []Node
	keep := map[string]bool{}
	for _, v := range versions {
		if r, err := g.Resolve(v); err == nil && !keep[r] {
			keep[r] = true
			nodes = append(nodes, g.nodes[g.index[r]])
		}
	}
	var edges []Edge
	for _, e := range g.edges {
		if keep[e.From] && keep[e.To] {
			edges = append(edges, e)
		}
	}
	r := newGraph(nodes, edges)
	r.Source, r.GraphData, r.Channel, r.Arch = g.Source, g.GraphData, g.Channel, g.Arch
	return r
}
