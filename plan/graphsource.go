package plan

import (
	"strings"

	"github.com/openshift-recover/recover/inspect"
)

// DefaultUpstream is the update service a cluster uses when ClusterVersion's
// spec.upstream is unset (the CVO's default, pkg/cvo/availableupdates.go).
const DefaultUpstream = "https://api.openshift.com/api/upgrades_info/v1/graph"

// GraphSource says where a plan's update graph comes from and which channel
// narrows it, after the cluster's own settings filled what the user left out.
type GraphSource struct {
	// Channel narrows the graph; empty means every release in it.
	Channel string
	// Graph is a file, a graph-data directory or an update-service URL.
	Graph string
	// ChannelFromCluster is true when Channel is the cluster's spec.channel
	// because none was given.
	ChannelFromCluster bool
}

// ResolveGraphSource fills an unset channel and graph the way the CVO does:
// the cluster's spec.channel and spec.upstream, and DefaultUpstream when the
// cluster names no upstream. What the user gave always wins.
func ResolveGraphSource(snap *inspect.Snapshot, channel, graph string) GraphSource {
	src := GraphSource{Channel: channel, Graph: graph}
	if snap != nil && snap.ClusterVersion != nil {
		spec := snap.ClusterVersion.Spec
		if src.Channel == "" && spec.Channel != "" {
			src.Channel, src.ChannelFromCluster = spec.Channel, true
		}
		if src.Graph == "" {
			src.Graph = string(spec.Upstream)
		}
	}
	if src.Graph == "" {
		src.Graph = DefaultUpstream
	}
	return src
}

// Unnarrowed is true when no channel narrows a local graph, so every release
// in it is a candidate. (An update service needs a channel to answer at all,
// and says so itself.)
func (g GraphSource) Unnarrowed() bool {
	return g.Channel == "" && !strings.HasPrefix(g.Graph, "http")
}
