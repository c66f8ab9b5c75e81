package graph

import (
	"github.com/blang/semver/v4"
)

// Node metadata keys the update service and graph-data use.
const (
	// MetadataChannels lists the channels a release is in, comma-separated.
	MetadataChannels = "io.openshift.upgrades.graph.release.channels"
	// MetadataArch is the architecture of a graph-builder node.
	MetadataArch = "io.openshift.upgrades.graph.release.arch"
	// MetadataURL is the release's errata URL.
	MetadataURL = "url"

	metadataPrefix = "io.openshift.upgrades.graph."
)

// DefaultArch is the architecture the update service assumes when none is asked for.
const DefaultArch = "amd64"

// EdgeState says whether the update service offers an edge.
type EdgeState string

// The edge states.
const (
	// EdgeSupported: served in `edges`; the CVO recommends it.
	EdgeSupported EdgeState = "supported"
	// EdgeConditional: served in `conditionalEdges` with risks; recommended only when
	// no risk applies to the cluster (or the risks are accepted).
	EdgeConditional EdgeState = "conditional"
	// EdgeBlocked: removed by a blocked-edge entry (or previous.remove metadata); not
	// served at all. Kept here so the reason can be shown.
	EdgeBlocked EdgeState = "blocked"
)

// Graph is an update graph for one architecture (and, when a channel was given, one
// channel), with an adjacency index for queries. It is immutable once loaded and
// safe for concurrent readers.
type Graph struct {
	// Source is the file or URL the graph came from; GraphData the graph-data
	// directory, when one was used.
	Source    string `json:"source"`
	GraphData string `json:"graphData,omitempty"`
	// Channel and Arch are what the graph was filtered by ("" channel: all).
	Channel string `json:"channel,omitempty"`
	Arch    string `json:"arch,omitempty"`
	// Warnings are oddities that did not stop the load (an edge both supported and
	// conditional, a conditional edge naming an unknown version, ...).
	Warnings []string `json:"warnings,omitempty"`

	nodes []Node
	index map[string]int // version -> node index
	edges []Edge
	out   [][]int32 // node -> edge indexes leaving it
	in    [][]int32 // node -> edge indexes entering it
}

// Node is one release.
type Node struct {
	// Version is the release name as served ("4.4.3"; a graph-builder graph read
	// without graph-data keeps its build metadata, "4.4.3+amd64").
	Version string `json:"version"`
	// Payload is the release image pull spec, by digest; empty for placeholder nodes.
	Payload string `json:"payload,omitempty"`
	// Metadata is the node's metadata as served.
	Metadata map[string]string `json:"metadata,omitempty"`
	// Channels are the channels the release is in.
	Channels []string `json:"channels,omitempty"`

	semver semver.Version
}

// Semver returns the node's parsed version.
func (n Node) Semver() semver.Version { return n.semver }

// Edge is one update edge and what the update service does with it.
type Edge struct {
	From  string    `json:"from"`
	To    string    `json:"to"`
	State EdgeState `json:"state"`
	// Risks are the conditional-update risks (State conditional), in the shape of
	// ClusterVersion status.conditionalUpdates[].risks.
	Risks []Risk `json:"risks,omitempty"`
	// BlockedBy are the blocked-edge entries that removed the edge (State blocked) or
	// made it conditional (State conditional), in file order.
	BlockedBy []BlockedEdge `json:"blockedBy,omitempty"`
	// RemovedBy names node metadata that removed the edge, such as
	// "io.openshift.upgrades.graph.previous.remove_regex=4\.1\..*" on the target.
	RemovedBy []string `json:"removedBy,omitempty"`
}

// Risk is a conditional-update risk.
type Risk struct {
	Name          string         `json:"name"`
	URL           string         `json:"url,omitempty"`
	Message       string         `json:"message,omitempty"`
	MatchingRules []MatchingRule `json:"matchingRules,omitempty"`
}

// MatchingRule decides whether a risk applies to a cluster: type Always, or PromQL
// with a query that returns 1 when the risk applies and 0 when it does not.
type MatchingRule struct {
	Type   string  `json:"type"`
	PromQL *PromQL `json:"promql,omitempty"`
}

// PromQL is the query of a PromQL matching rule.
type PromQL struct {
	PromQL string `json:"promql"`
}

// BlockedEdge is one cincinnati-graph-data blocked-edges entry.
type BlockedEdge struct {
	// File is the entry's path relative to the graph-data directory.
	File string `json:"file"`
	// To is the target release; From the regular expression over source versions
	// (matched, unanchored, against the version with its architecture appended,
	// "4.3.19+amd64").
	To   string `json:"to"`
	From string `json:"from"`
	// URL, Name and Message describe the risk (schema 1.1.0).
	URL     string `json:"url,omitempty"`
	Name    string `json:"name,omitempty"`
	Message string `json:"message,omitempty"`
	FixedIn string `json:"fixedIn,omitempty"`
	// Comment is the file's comment lines, without '#'; old entries explain
	// themselves only there.
	Comment string `json:"comment,omitempty"`
	// MatchingRules, when present, make the edge conditional instead of removing it.
	MatchingRules []MatchingRule `json:"matchingRules,omitempty"`
}

// Reason is the entry's human explanation: its message, else its comment, else
// its name, else the file.
func (b BlockedEdge) Reason() string {
	switch {
	case b.Message != "":
		return b.Message
	case b.Comment != "":
		return b.Comment
	case b.Name != "":
		return b.Name
	default:
		return "blocked by " + b.File
	}
}

// conditional reports whether the entry makes edges conditional rather than
// removing them: cincinnati reads an entry as a conditional edge only when url,
// name, message and matchingRules are all set.
func (b BlockedEdge) conditional() bool {
	return b.URL != "" && b.Name != "" && b.Message != "" && b.MatchingRules != nil
}

// risk is the entry as a conditional-update risk.
func (b BlockedEdge) risk() Risk {
	return Risk{Name: b.Name, URL: b.URL, Message: b.Message, MatchingRules: b.MatchingRules}
}

// Path is a route through the graph.
type Path struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Hops are the edges in order.
	Hops []Edge `json:"hops"`
	// Risks are the risks of the conditional hops (all accepted).
	Risks []Risk `json:"risks,omitempty"`
}

// Versions returns the versions on the path, start to end.
func (p Path) Versions() []string {
	if len(p.Hops) == 0 {
		return []string{p.From}
	}
	vs := []string{p.Hops[0].From}
	for _, h := range p.Hops {
		vs = append(vs, h.To)
	}
	return vs
}
