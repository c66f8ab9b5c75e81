package graph

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"path/filepath"
	"reflect"

	"github.com/blang/semver/v4"

	"github.com/openshift-recover/recover/internal/bounded"
)

// The loaded-graph cache (Options.CacheDir) keeps the graph a Load made, so that
// the same inputs are not decoded and run through graph-data again. An entry is
// one file, <CacheDir>/graph-<key>, where key is the sha256 of graphCacheFormat,
// the options that shape the result (the graph and graph-data locations as given,
// which the result names, the architecture and the channel), the sha256 of the
// graph document and every graph-data file Load parses (name and content; which
// optional files are absent; the names it skips): the same inputs give the same
// key, other inputs another one. The graph-data files are read once, for the key
// and, on a miss, the parsing.
//
// The file is sealed (bounded.WriteSealed): graphCacheMagic, the format version,
// the key, the body's checksum, then the body, a gob of cachedGraph. An entry
// that is truncated, corrupted, of another format version or for another key, or
// that does not decode, is ignored: the graph is loaded afresh and the entry
// rewritten. An entry is written only when it decodes to a graph deeply equal to
// the one just loaded, so a cached load is indistinguishable from a fresh one.
// Errors are never cached.
//
// graphCacheFormat must change whenever Load would make another graph from the
// same inputs (the pipeline's rules) or cachedGraph changes.

const (
	graphCacheMagic  = "recover loaded graph\n"
	graphCacheFormat = 1
	// maxGraphCacheEntryBytes bounds an entry read back; the real 2021 amd64
	// graph's is 620 KiB with every channel, 55 KiB for stable-4.4.
	maxGraphCacheEntryBytes = 256 << 20
)

// cachedGraph is what an entry keeps of a Graph: everything but the indexes,
// which newGraph rebuilds.
type cachedGraph struct {
	Source, GraphData, Channel, Arch string
	Warnings                         []string
	Nodes                            []cachedNode
	Edges                            []Edge
}

// cachedNode is a Node with its parsed version, which gob would not see.
type cachedNode struct {
	Node
	Semver semver.Version
}

// graphCacheKey is the entry key of a load with o of the graph document whose
// sha256 is digest, with the graph-data files gdf (nil without graph-data;
// complete).
func graphCacheKey(o Options, digest string, gdf *graphDataFiles) [sha256.Size]byte {
	kh := bounded.NewKeyHash()
	kh.Uint(graphCacheFormat)
	for _, s := range []string{o.Graph, o.GraphData, o.Arch, o.Channel, digest} {
		kh.String(s)
	}
	if gdf != nil {
		for _, r := range []fileRead{gdf.version, gdf.metadata} {
			keyFile(kh, r)
		}
		for _, d := range []dirRead{gdf.channels, gdf.blocked} {
			kh.Uint(uint64(len(d.files)))
			for _, r := range d.files {
				keyFile(kh, r)
			}
			kh.Uint(uint64(len(d.skipped)))
			for _, s := range d.skipped {
				kh.String(s)
			}
		}
	}
	return kh.Key()
}

// keyFile writes a file's name, whether it is there, and its content.
func keyFile(kh *bounded.KeyHash, r fileRead) {
	kh.String(r.rel)
	if r.err != nil { // absent (complete allows nothing else)
		kh.Uint(0)
		return
	}
	kh.Uint(1)
	kh.Bytes(r.data)
}

// errBadEntry is an entry whose edges name versions it has no node for.
var errBadEntry = errors.New("an edge names a version that is not a node")

func graphCachePath(dir string, key [sha256.Size]byte) string {
	return filepath.Join(dir, "graph-"+hex.EncodeToString(key[:]))
}

// readGraphCache returns the graph of a valid entry for key, or false.
func readGraphCache(dir string, key [sha256.Size]byte) (*Graph, bool) {
	body, ok := bounded.ReadSealed(graphCachePath(dir, key), graphCacheMagic, graphCacheFormat, key, maxGraphCacheEntryBytes)
	if !ok {
		return nil, false
	}
	g, err := decodeGraph(body)
	if err != nil {
		return nil, false
	}
	return g, true
}

// writeGraphCache stores g under key when it reads back as g. It is best effort:
// a cache that cannot be written only costs the next load the work.
func writeGraphCache(dir string, key [sha256.Size]byte, g *Graph) {
	body, err := encodeGraph(g)
	if err != nil {
		return
	}
	// gob, for one, gives back an empty slice as nil: a graph that would not come
	// back exactly is not cached.
	if back, err := decodeGraph(body); err != nil || !reflect.DeepEqual(back, g) {
		return
	}
	_ = bounded.WriteSealed(graphCachePath(dir, key), graphCacheMagic, graphCacheFormat, key, body)
}

func encodeGraph(g *Graph) ([]byte, error) {
	c := cachedGraph{Source: g.Source, GraphData: g.GraphData, Channel: g.Channel, Arch: g.Arch, Warnings: g.Warnings, Edges: g.edges}
	c.Nodes = make([]cachedNode, len(g.nodes))
	for i, n := range g.nodes {
		c.Nodes[i] = cachedNode{Node: n, Semver: n.semver}
	}
	var body bytes.Buffer
	if err := gob.NewEncoder(&body).Encode(c); err != nil {
		return nil, err
	}
	return body.Bytes(), nil
}

func decodeGraph(body []byte) (*Graph, error) {
	var c cachedGraph
	if err := gob.NewDecoder(bytes.NewReader(body)).Decode(&c); err != nil {
		return nil, err
	}
	nodes := make([]Node, len(c.Nodes))
	index := make(map[string]bool, len(c.Nodes))
	for i, n := range c.Nodes {
		nodes[i] = n.Node
		nodes[i].semver = n.Semver
		index[n.Version] = true
	}
	for _, e := range c.Edges {
		if !index[e.From] || !index[e.To] {
			return nil, errBadEntry
		}
	}
	g := newGraph(nodes, c.Edges)
	g.Source, g.GraphData, g.Channel, g.Arch, g.Warnings = c.Source, c.GraphData, c.Channel, c.Arch, c.Warnings
	return g, nil
}
