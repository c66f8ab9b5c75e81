package plan

import (
	"testing"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift-recover/recover/inspect"
)

func TestResolveGraphSource(t *testing.T) {
	cluster := func(channel, upstream string) *inspect.Snapshot {
		return &inspect.Snapshot{ClusterVersion: &inspect.ClusterVersion{Spec: configv1.ClusterVersionSpec{
			Channel: channel, Upstream: configv1.URL(upstream)}}}
	}
	tests := []struct {
		name           string
		snap           *inspect.Snapshot
		channel, graph string
		want           GraphSource
		unnarrowed     bool
	}{
		{"flags win", cluster("stable-4.4", "https://example.com/graph"), "fast-4.4", "graph.json",
			GraphSource{Channel: "fast-4.4", Graph: "graph.json"}, false},
		{"cluster fills both", cluster("stable-4.4", "https://example.com/graph"), "", "",
			GraphSource{Channel: "stable-4.4", Graph: "https://example.com/graph", ChannelFromCluster: true}, false},
		{"no upstream: the default", cluster("stable-4.4", ""), "", "",
			GraphSource{Channel: "stable-4.4", Graph: DefaultUpstream, ChannelFromCluster: true}, false},
		{"no ClusterVersion", &inspect.Snapshot{}, "", "g.json", GraphSource{Graph: "g.json"}, true},
		{"nil snapshot", nil, "", "", GraphSource{Graph: DefaultUpstream}, false},
		{"cluster without a channel, local graph", cluster("", ""), "", "graph-data",
			GraphSource{Graph: "graph-data"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ResolveGraphSource(tt.snap, tt.channel, tt.graph)
			if got != tt.want {
				t.Errorf("ResolveGraphSource = %+v, want %+v", got, tt.want)
			}
			if got.Unnarrowed() != tt.unnarrowed {
				t.Errorf("Unnarrowed = %v, want %v", got.Unnarrowed(), tt.unnarrowed)
			}
		})
	}
}
