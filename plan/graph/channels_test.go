package graph

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/blang/semver/v4"

	"github.com/openshift-recover/recover/internal/testing/shareddata"
)

// channelsOneByOne is the channel membership rule as first written: every node
// against every version of every channel. TestChannelIndexMatchesOneByOne keeps
// the indexed pipeline.channels to its results.
func channelsOneByOne(p *pipeline, gd *GraphData) {
	for _, ch := range gd.Channels {
		for i := range p.nodes {
			n := &p.nodes[i]
			if !n.concrete {
				continue
			}
			for _, v := range ch.parsed {
				if v.EQ(n.semver) && (len(v.Build) == 0 || slices.Equal(v.Build, n.semver.Build)) {
					if !slices.Contains(n.Channels, ch.Name) {
						n.Channels = append(n.Channels, ch.Name)
					}
					break
				}
			}
		}
	}
	p.joinChannels()
}

// TestChannelIndexMatchesOneByOne gives every node the same channels, in the same
// order, as checking it against every listed version: on the real captures, the
// example and a graph of prerelease and build-metadata corner cases.
func TestChannelIndexMatchesOneByOne(t *testing.T) {
	type input struct {
		name      string
		graph     []byte
		graphData *GraphData
	}
	var inputs []input
	read := func(name, graphFile, graphData string) {
		data, err := os.ReadFile(graphFile)
		if err != nil {
			t.Fatal(err)
		}
		gd, err := ReadGraphData(graphData)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, input{name, data, gd})
	}
	read("example", "../../examples/reconciled-4.3-to-4.4/graph.json", "../../examples/reconciled-4.3-to-4.4/graph-data")
	for _, capture := range []string{capture2021, "cincinnati-graph/graph-builder-fixtures/20200319.204124"} {
		if testing.Short() {
			break
		}
		dir := shareddata.RealData(t, capture)
		read(capture, filepath.Join(dir, "graph-gb-raw.json"), filepath.Join(dir, "cincinnati-graph-data"))
	}
	corner := GraphData{Dir: "corner"}
	for _, ch := range []struct {
		name     string
		versions []string
	}{
		{"candidate-4.4", []string{"4.4.3-rc.1", "4.4.3-rc.01x", "4.4.3+amd64", "4.4.3-0", "4.4.3-rc.1.2"}},
		{"stable-4.4", []string{"4.4.3+s390x", "4.4.3-rc.1+amd64", "4.4.4", "4.4.4"}},
		{"fast-4.4", []string{"4.4.3-rc.1.2+amd64", "4.4.3-alpha"}},
	} {
		c := Channel{Name: ch.name}
		for _, v := range ch.versions {
			c.Versions = append(c.Versions, v)
			sv, err := semver.Parse(v)
			if err != nil {
				t.Fatal(err)
			}
			c.parsed = append(c.parsed, sv)
		}
		corner.Channels = append(corner.Channels, c)
	}
	var nodes []string
	for _, v := range []string{"4.4.3+amd64", "4.4.3+s390x", "4.4.3-rc.1+amd64", "4.4.3-rc.1.2+amd64", "4.4.3-0+amd64", "4.4.3-rc.01x+amd64", "4.4.3-alpha+amd64", "4.4.4+amd64", "4.4.4+ppc64le", "4.4.5"} {
		nodes = append(nodes, `{"version":"`+v+`","payload":"p","metadata":{"io.openshift.upgrades.graph.release.arch":"amd64"}}`)
	}
	inputs = append(inputs, input{"corner cases", []byte(`{"nodes":[` + strings.Join(nodes, ",") + `],"edges":[]}`), &corner})

	for _, in := range inputs {
		indexed, err := newPipeline(in.name, in.graph)
		if err != nil {
			t.Fatal(err)
		}
		oneByOne, err := newPipeline(in.name, in.graph)
		if err != nil {
			t.Fatal(err)
		}
		indexed.rawMetadata(in.graphData)
		oneByOne.rawMetadata(in.graphData)
		indexed.channels(in.graphData)
		channelsOneByOne(oneByOne, in.graphData)
		member := 0
		for i := range indexed.nodes {
			if !reflect.DeepEqual(indexed.nodes[i], oneByOne.nodes[i]) {
				t.Fatalf("%s: node %s: channels %v, one by one %v", in.name, indexed.nodes[i].Version, indexed.nodes[i].Channels, oneByOne.nodes[i].Channels)
			}
			member += len(indexed.nodes[i].Channels)
		}
		if member == 0 {
			t.Fatalf("%s: no node is in any channel", in.name)
		}
	}
}
