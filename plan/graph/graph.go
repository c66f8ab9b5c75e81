package graph

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/blang/semver/v4"
)

// newGraph indexes nodes and edges. Edges must reference versions present in nodes.
func newGraph(nodes []Node, edges []Edge) *Graph {
	g := &Graph{nodes: nodes, index: make(map[string]int, len(nodes)), edges: edges}
	for i, n := range nodes {
		g.index[n.Version] = i
	}
	g.out = make([][]int32, len(nodes))
	g.in = make([][]int32, len(nodes))
	from := make([]int32, len(edges))
	to := make([]int32, len(edges))
	for i, e := range edges {
		f, t := g.index[e.From], g.index[e.To]
		from[i], to[i] = int32(f), int32(t)
		g.out[f] = append(g.out[f], int32(i))
		g.in[t] = append(g.in[t], int32(i))
	}
	// Deterministic query results: neighbours in version order.
	for i := range g.out {
		slices.SortFunc(g.out[i], func(a, b int32) int { return g.nodes[to[a]].semver.Compare(g.nodes[to[b]].semver) })
		slices.SortFunc(g.in[i], func(a, b int32) int { return g.nodes[from[a]].semver.Compare(g.nodes[from[b]].semver) })
	}
	return g
}

// Len returns the number of nodes.
func (g *Graph) Len() int { return len(g.nodes) }

// Nodes returns the nodes, sorted by version.
func (g *Graph) Nodes() []Node {
	ns := slices.Clone(g.nodes)
	sortNodes(ns)
	return ns
}

// Edges returns every edge (supported, conditional and blocked), sorted by source
// then target version.
func (g *Graph) Edges() []Edge {
	es := slices.Clone(g.edges)
	slices.SortFunc(es, func(a, b Edge) int {
		if c := g.nodes[g.index[a.From]].semver.Compare(g.nodes[g.index[b.From]].semver); c != 0 {
			return c
		}
		return g.nodes[g.index[a.To]].semver.Compare(g.nodes[g.index[b.To]].semver)
	})
	return es
}

// CountEdges returns how many edges are in each state.
func (g *Graph) CountEdges() map[EdgeState]int {
	m := map[EdgeState]int{}
	for _, e := range g.edges {
		m[e.State]++
	}
	return m
}

func sortNodes(ns []Node) {
	sort.SliceStable(ns, func(i, j int) bool { return ns[i].semver.LT(ns[j].semver) })
}

// Node returns the node of a version (see Resolve for the accepted spellings).
func (g *Graph) Node(version string) (Node, bool) {
	v, err := g.Resolve(version)
	if err != nil {
		return Node{}, false
	}
	return g.nodes[g.index[v]], true
}

// Resolve maps a version as a user writes it to the version as the graph names it:
// the exact name, else the one node whose version equals it ignoring build metadata
// (preferring the graph's architecture, "4.4.3" -> "4.4.3+amd64"). It fails with a
// QueryError naming the nearest versions when there is none.
func (g *Graph) Resolve(version string) (string, error) {
	version = strings.TrimPrefix(strings.TrimSpace(version), "v")
	if _, ok := g.index[version]; ok {
		return version, nil
	}
	want, err := semver.Parse(version)
	if err != nil {
		return "", &QueryError{Msg: fmt.Sprintf("%q is not a release version (want e.g. 4.4.3)", version)}
	}
	var matches []string
	for _, n := range g.nodes {
		if n.semver.EQ(want) && (len(want.Build) == 0 || slices.Equal(n.semver.Build, want.Build)) {
			matches = append(matches, n.Version)
		}
	}
	if len(matches) > 1 {
		arch := g.Arch
		if arch == "" {
			arch = DefaultArch
		}
		for _, m := range matches {
			if strings.HasSuffix(m, "+"+arch) {
				return m, nil
			}
		}
		sort.Strings(matches)
		return "", &QueryError{Msg: fmt.Sprintf("version %s is ambiguous in %s: %s; name one, or pass --arch", version, g.Source, strings.Join(matches, ", "))}
	}
	if len(matches) == 1 {
		return matches[0], nil
	}
	return "", &QueryError{Msg: fmt.Sprintf("version %s is not in the graph %s%s%s", version, g.Source, g.scope(), g.nearby(want))}
}

// scope describes the channel and arch filter for messages.
func (g *Graph) scope() string {
	var parts []string
	if g.Channel != "" {
		parts = append(parts, "channel "+g.Channel)
	}
	if g.Arch != "" {
		parts = append(parts, "arch "+g.Arch)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// nearby lists the versions of the same minor, to help a user who mistyped.
func (g *Graph) nearby(want semver.Version) string {
	var same []Node
	for _, n := range g.nodes {
		if n.semver.Major == want.Major && n.semver.Minor == want.Minor {
			same = append(same, n)
		}
	}
	if len(same) == 0 {
		return ""
	}
	sortNodes(same)
	names := make([]string, 0, len(same))
	for _, n := range same {
		names = append(names, n.Version)
	}
	if len(names) > 8 {
		names = append(names[:3], append([]string{"..."}, names[len(names)-4:]...)...)
	}
	return fmt.Sprintf("; %d.%d versions there: %s", want.Major, want.Minor, strings.Join(names, " "))
}

// Versions returns the versions in a channel ("" for all), sorted.
func (g *Graph) Versions(channel string) []string {
	var out []Node
	for _, n := range g.nodes {
		if channel == "" || slices.Contains(n.Channels, channel) {
			out = append(out, n)
		}
	}
	sortNodes(out)
	vs := make([]string, len(out))
	for i, n := range out {
		vs[i] = n.Version
	}
	return vs
}

// Channels returns every channel some node is in, sorted.
func (g *Graph) Channels() []string {
	set := map[string]bool{}
	for _, n := range g.nodes {
		for _, c := range n.Channels {
			set[c] = true
		}
	}
	out := make([]string, 0, len(set))
	for c := range set {
		out = append(out, c)
	}
	sortChannels(out)
	return out
}

// EdgesFrom returns the edges leaving version, in target version order: supported,
// conditional (with risks) and blocked (with the entries that removed them).
func (g *Graph) EdgesFrom(version string) ([]Edge, error) {
	v, err := g.Resolve(version)
	if err != nil {
		return nil, err
	}
	return g.collect(g.out[g.index[v]]), nil
}

// EdgesTo returns the edges entering version, in source version order.
func (g *Graph) EdgesTo(version string) ([]Edge, error) {
	v, err := g.Resolve(version)
	if err != nil {
		return nil, err
	}
	return g.collect(g.in[g.index[v]]), nil
}

func (g *Graph) collect(idx []int32) []Edge {
	out := make([]Edge, len(idx))
	for i, e := range idx {
		out[i] = g.edges[e]
	}
	return out
}

// Edge returns the edge from -> to in whatever state it is, and false when the
// graph never had such an edge.
func (g *Graph) Edge(from, to string) (Edge, bool, error) {
	f, err := g.Resolve(from)
	if err != nil {
		return Edge{}, false, err
	}
	t, err := g.Resolve(to)
	if err != nil {
		return Edge{}, false, err
	}
	for _, e := range g.out[g.index[f]] {
		if g.edges[e].To == t {
			return g.edges[e], true, nil
		}
	}
	return Edge{}, false, nil
}

// ShortestPath returns a path from -> to with the fewest hops over supported edges
// and over conditional edges whose every risk is named in accepted. It returns an
// error wrapping ErrNoPath when there is none.
func (g *Graph) ShortestPath(from, to string, accepted ...string) (Path, error) {
	f, err := g.Resolve(from)
	if err != nil {
		return Path{}, err
	}
	t, err := g.Resolve(to)
	if err != nil {
		return Path{}, err
	}
	src, dst := g.index[f], g.index[t]
	if src == dst {
		return Path{From: f, To: t}, nil
	}
	usable := func(e *Edge) bool { return edgeUsable(*e, accepted) }
	// BFS; via[n] is the edge index that reached n, -1 unvisited.
	via := make([]int32, len(g.nodes))
	for i := range via {
		via[i] = -1
	}
	queue := make([]int32, 0, 64)
	queue = append(queue, int32(src))
	via[src] = -2
	for len(queue) > 0 && via[dst] == -1 {
		n := queue[0]
		queue = queue[1:]
		for _, ei := range g.out[n] {
			e := &g.edges[ei]
			next := g.index[e.To]
			if via[next] != -1 || !usable(e) {
				continue
			}
			via[next] = ei
			queue = append(queue, int32(next))
		}
	}
	if via[dst] == -1 {
		return Path{}, fmt.Errorf("%w from %s to %s in %s%s", ErrNoPath, f, t, g.Source, g.scope())
	}
	var hops []Edge
	for n := dst; n != src; {
		e := g.edges[via[n]]
		hops = append(hops, e)
		n = g.index[e.From]
	}
	slices.Reverse(hops)
	p := Path{From: f, To: t, Hops: hops}
	for _, h := range hops {
		p.Risks = append(p.Risks, h.Risks...)
	}
	return p, nil
}

// sortChannels sorts channel names by the part after the first '-' (the minor
// version, compared as a version), then by name, like cincinnati's channel metadata.
func sortChannels(cs []string) {
	sort.Slice(cs, func(i, j int) bool {
		a, b := channelSuffix(cs[i]), channelSuffix(cs[j])
		if a != b {
			return versionishLess(a, b)
		}
		return cs[i] < cs[j]
	})
}

func channelSuffix(c string) string {
	if _, after, ok := strings.Cut(c, "-"); ok {
		return after
	}
	return c
}

// versionishLess orders "4.9" before "4.10" when both parse as versions.
func versionishLess(a, b string) bool {
	va, ea := semver.ParseTolerant(a)
	vb, eb := semver.ParseTolerant(b)
	if ea == nil && eb == nil && !va.EQ(vb) {
		return va.LT(vb)
	}
	return a < b
}
