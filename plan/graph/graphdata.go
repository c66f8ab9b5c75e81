package graph

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/blang/semver/v4"
	"sigs.k8s.io/yaml"

	"github.com/openshift-recover/recover/internal/bounded"
	"github.com/openshift-recover/recover/internal/dirdigest"
)

// The cincinnati-graph-data layout.
const (
	graphDataVersionFile = "version"
	graphDataRawMetadata = "raw/metadata.json"
	graphDataBlocked     = "blocked-edges"
	graphDataChannels    = "channels"
)

// supportedGraphDataVersions are the schema versions cincinnati accepts.
var supportedGraphDataVersions = []string{"1.0.0", "1.1.0", "1.2.0"}

// graphDataExt is the file-extension filter cincinnati applies in blocked-edges/ and
// channels/ (an unanchored "ya+ml": .yaml is read, .yml is not).
var graphDataExt = regexp.MustCompile(`ya+ml`)

// GraphData is a parsed cincinnati-graph-data directory.
type GraphData struct {
	Dir     string
	Version string
	// RawMetadata maps a version to metadata merged into its nodes.
	RawMetadata map[string]map[string]string
	Blocked     []BlockedEdge
	Channels    []Channel
	// Skipped are files ignored because of their extension, as cincinnati ignores them.
	Skipped []string
}

// Channel is one channels/<name>.yaml.
type Channel struct {
	File     string   `json:"file"`
	Name     string   `json:"name"`
	Versions []string `json:"versions"`

	parsed []semver.Version
}

// maxGraphDataFileBytes caps each graph-data file; the real ones are a few KiB,
// raw/metadata.json a few MiB.
const maxGraphDataFileBytes = 16 << 20

// ReadGraphData reads and validates a cincinnati-graph-data directory. The version
// file and raw/metadata.json are optional (cincinnati requires them; a hand-made
// disconnected tree often has only channels/ and blocked-edges/); every file that is
// read must be well formed.
func ReadGraphData(dir string) (*GraphData, error) {
	files, err := readGraphDataFiles(dir)
	if err != nil {
		return nil, err
	}
	return files.parse()
}

// graphDataFiles is what ReadGraphData reads of a graph-data directory, each
// read's error kept at its place, so that parse reports the first problem in the
// order of reading and parsing file by file, and a cache key can be made of the
// very bytes that are parsed.
type graphDataFiles struct {
	dir               string
	version, metadata fileRead // a missing file is an fs.ErrNotExist error
	channels, blocked dirRead
}

// fileRead is one file's content or read error.
type fileRead struct {
	rel  string
	data []byte
	err  error
}

// dirRead is one sub-directory's files that cincinnati reads, and the names it
// skips, or the error of listing it.
type dirRead struct {
	files   []fileRead
	skipped []string
	err     error
}

// readGraphDataFiles reads every file ReadGraphData parses. Only a directory that
// cannot be read at all is an error here.
func readGraphDataFiles(dir string) (*graphDataFiles, error) {
	return readGraphDataWith(dir, func(rel string) fileRead { return readGraphDataFile(dir, rel) })
}

// readGraphDataDigested is readGraphDataFiles in the one pass that digests the
// whole directory (dirdigest.Read, the digest a plan records of its graph-data):
// the digest is of the very bytes parsed, and no file is read twice. When that
// pass cannot read a file, the files are read one by one as readGraphDataFiles
// reads them, so that parse reports each error at its place, and the digest is
// "" (dirdigest.Sum then names the file it could not read).
func readGraphDataDigested(dir string) (*graphDataFiles, string, error) {
	if err := checkGraphDataDir(dir); err != nil {
		return nil, "", err
	}
	keep := map[string]bool{graphDataVersionFile: true, graphDataRawMetadata: true}
	for _, sub := range []string{graphDataChannels, graphDataBlocked} {
		names, _, err := listGraphDataDir(dir, sub)
		if err != nil {
			f, err := readGraphDataFiles(dir)
			return f, "", err
		}
		for _, rel := range names {
			keep[rel] = true
		}
	}
	digest, kept, err := dirdigest.Read(dir, func(rel string) bool { return keep[rel] }, maxGraphDataFileBytes)
	if err != nil {
		f, err := readGraphDataFiles(dir)
		return f, "", err
	}
	f, err := readGraphDataWith(dir, func(rel string) fileRead {
		if data, ok := kept[rel]; ok {
			return fileRead{rel: rel, data: data}
		}
		// Absent, or not a regular file (a symbolic link), which the digest
		// does not read.
		return readGraphDataFile(dir, rel)
	})
	if err != nil {
		return nil, "", err
	}
	return f, digest, nil
}

// checkGraphDataDir refuses a graph-data path that is not a readable directory.
func checkGraphDataDir(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return &InputError{Source: dir, Msg: "cannot read graph-data directory: " + errText(err), Hint: "pass a cincinnati-graph-data checkout or tarball extract (channels/, blocked-edges/)", Err: err}
	}
	if !st.IsDir() {
		return &InputError{Source: dir, Msg: "not a directory", Hint: "--graph-data takes a cincinnati-graph-data directory (channels/, blocked-edges/)"}
	}
	return nil
}

// readGraphDataFile reads one graph-data file with the size limit.
func readGraphDataFile(dir, rel string) fileRead {
	data, err := bounded.ReadFile(filepath.Join(dir, rel), maxGraphDataFileBytes)
	return fileRead{rel: rel, data: data, err: err}
}

// readGraphDataWith gathers the files ReadGraphData parses through read.
func readGraphDataWith(dir string, read func(rel string) fileRead) (*graphDataFiles, error) {
	if err := checkGraphDataDir(dir); err != nil {
		return nil, err
	}
	list := func(sub string) dirRead {
		var d dirRead
		var names []string
		names, d.skipped, d.err = listGraphDataDir(dir, sub)
		for _, rel := range names {
			d.files = append(d.files, read(rel))
		}
		return d
	}
	return &graphDataFiles{dir: dir, version: read(graphDataVersionFile), metadata: read(graphDataRawMetadata),
		channels: list(graphDataChannels), blocked: list(graphDataBlocked)}, nil
}

// complete reports whether every file was read: nothing failed but an optional
// file's absence.
func (f *graphDataFiles) complete() bool {
	for _, r := range []fileRead{f.version, f.metadata} {
		if r.err != nil && !errors.Is(r.err, fs.ErrNotExist) {
			return false
		}
	}
	for _, d := range []dirRead{f.channels, f.blocked} {
		if d.err != nil {
			return false
		}
		for _, r := range d.files {
			if r.err != nil {
				return false
			}
		}
	}
	return true
}

// parse validates the files read and makes the GraphData.
func (f *graphDataFiles) parse() (*GraphData, error) {
	dir := f.dir
	gd := &GraphData{Dir: dir}
	if err := f.version.err; err == nil {
		gd.Version = strings.TrimSpace(string(f.version.data))
		if !slices.Contains(supportedGraphDataVersions, gd.Version) {
			return nil, &InputError{Source: filepath.Join(dir, graphDataVersionFile), Msg: fmt.Sprintf("unsupported graph-data schema version %q (supported: %s)", gd.Version, strings.Join(supportedGraphDataVersions, ", "))}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, &InputError{Source: filepath.Join(dir, graphDataVersionFile), Msg: errText(err), Err: err}
	}
	rawPath := filepath.Join(dir, graphDataRawMetadata)
	if err := f.metadata.err; err == nil {
		if err := json.Unmarshal(f.metadata.data, &gd.RawMetadata); err != nil {
			return nil, jsonError(rawPath, f.metadata.data, err, "raw/metadata.json maps versions to metadata objects of strings")
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, &InputError{Source: rawPath, Msg: errText(err), Err: err}
	}
	if f.channels.err != nil {
		return nil, f.channels.err
	}
	gd.Skipped = append(gd.Skipped, f.channels.skipped...)
	for _, r := range f.channels.files {
		ch, err := parseChannel(dir, r)
		if err != nil {
			return nil, err
		}
		gd.Channels = append(gd.Channels, ch)
	}
	if f.blocked.err != nil {
		return nil, f.blocked.err
	}
	gd.Skipped = append(gd.Skipped, f.blocked.skipped...)
	for _, r := range f.blocked.files {
		be, err := parseBlockedEdge(dir, r)
		if err != nil {
			return nil, err
		}
		gd.Blocked = append(gd.Blocked, be)
	}
	if len(gd.Channels) == 0 && len(gd.Blocked) == 0 {
		return nil, &InputError{Source: dir, Msg: "no channels/*.yaml and no blocked-edges/*.yaml", Hint: "pass a cincinnati-graph-data directory"}
	}
	return gd, nil
}

// listGraphDataDir lists the files of sub (sorted by name) that cincinnati would
// read, and those it would skip. A missing sub-directory is empty.
func listGraphDataDir(dir, sub string) (read, skipped []string, err error) {
	entries, err := os.ReadDir(filepath.Join(dir, sub))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, &InputError{Source: filepath.Join(dir, sub), Msg: errText(err), Err: err}
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		rel := sub + "/" + e.Name()
		if ext := strings.TrimPrefix(filepath.Ext(e.Name()), "."); ext != "" && graphDataExt.MatchString(ext) {
			read = append(read, rel)
		} else {
			skipped = append(skipped, rel)
		}
	}
	return read, skipped, nil
}

// yamlError turns a sigs.k8s.io/yaml error into an InputError with its line.
var yamlLine = regexp.MustCompile(`line (\d+):`)

func yamlError(source string, err error, hint string) error {
	ie := &InputError{Source: source, Msg: "malformed YAML: " + strings.TrimPrefix(err.Error(), "error converting YAML to JSON: "), Hint: hint, Err: err}
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		fmt.Sscanf(m[1], "%d", &ie.Line)
	}
	return ie
}

func parseChannel(dir string, r fileRead) (Channel, error) {
	rel, data, path := r.rel, r.data, filepath.Join(dir, r.rel)
	if r.err != nil {
		return Channel{}, &InputError{Source: path, Msg: errText(r.err), Err: r.err}
	}
	var ch Channel
	if err := yaml.Unmarshal(data, &ch); err != nil {
		return Channel{}, yamlError(path, err, "a channel file has name: and versions: [...]")
	}
	ch.File = rel
	if ch.Name == "" {
		return Channel{}, &InputError{Source: path, Field: "name", Msg: "missing channel name"}
	}
	for i, v := range ch.Versions {
		sv, err := semver.Parse(strings.TrimSpace(v))
		if err != nil {
			return Channel{}, &InputError{Source: path, Field: fmt.Sprintf("versions[%d]", i), Msg: fmt.Sprintf("%q is not a semantic version", v)}
		}
		ch.parsed = append(ch.parsed, sv)
	}
	return ch, nil
}

// blockedEdgeFile is the YAML shape of a blocked-edges entry.
type blockedEdgeFile struct {
	To            string         `json:"to"`
	From          *string        `json:"from"`
	URL           string         `json:"url"`
	Name          string         `json:"name"`
	Message       string         `json:"message"`
	FixedIn       string         `json:"fixedIn"`
	MatchingRules []MatchingRule `json:"matchingRules"`
}

func parseBlockedEdge(dir string, r fileRead) (BlockedEdge, error) {
	rel, data, path := r.rel, r.data, filepath.Join(dir, r.rel)
	if r.err != nil {
		return BlockedEdge{}, &InputError{Source: path, Msg: errText(r.err), Err: r.err}
	}
	var f blockedEdgeFile
	if err := yaml.Unmarshal(data, &f); err != nil {
		return BlockedEdge{}, yamlError(path, err, "a blocked edge has to: <version> and from: <regex>")
	}
	if f.To == "" {
		return BlockedEdge{}, &InputError{Source: path, Field: "to", Msg: "missing target version"}
	}
	if _, err := semver.Parse(f.To); err != nil {
		return BlockedEdge{}, &InputError{Source: path, Field: "to", Msg: fmt.Sprintf("%q is not a semantic version", f.To)}
	}
	if f.From == nil {
		return BlockedEdge{}, &InputError{Source: path, Field: "from", Msg: "missing source regex", Hint: "use from: .* to block every edge into the target"}
	}
	if _, err := regexp.Compile(*f.From); err != nil {
		return BlockedEdge{}, &InputError{Source: path, Field: "from", Msg: fmt.Sprintf("invalid regex %q: %v", *f.From, err)}
	}
	for i, r := range f.MatchingRules {
		if r.Type == "" {
			return BlockedEdge{}, &InputError{Source: path, Field: fmt.Sprintf("matchingRules[%d].type", i), Msg: "missing rule type (Always or PromQL)"}
		}
	}
	return BlockedEdge{
		File: rel, To: f.To, From: *f.From, URL: f.URL, Name: f.Name, Message: strings.TrimSpace(f.Message),
		FixedIn: f.FixedIn, MatchingRules: f.MatchingRules, Comment: comments(data),
	}, nil
}

// comments joins a YAML file's comment lines.
func comments(data []byte) string {
	var parts []string
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		line = bytes.TrimSpace(line)
		if c, ok := bytes.CutPrefix(line, []byte("#")); ok {
			if c = bytes.TrimSpace(c); len(c) > 0 {
				parts = append(parts, string(c))
			}
		}
	}
	return strings.Join(parts, " ")
}

func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// rawNode is a graph-builder node during processing.
type rawNode struct {
	Node
	concrete bool // has payload and metadata (cincinnati's ConcreteRelease)
	keep     bool
}

// rawEdge is an edge during processing.
type rawEdge struct {
	from, to  int
	removedBy []string
	blocked   []BlockedEdge // unconditional entries
	cond      []BlockedEdge // conditional entries
}

// pipeline applies graph-data to a graph-builder graph.
type pipeline struct {
	source   string
	nodes    []rawNode
	index    map[string]int
	edges    []*rawEdge
	at       map[[2]int]*rawEdge
	in       [][]*rawEdge // built once edges are only removed, no longer added
	warnings []string
}

// apply runs the plugins and the filters on a new pipeline.
func (p *pipeline) apply(gd *GraphData, arch, channel string) (*Graph, error) {
	p.rawMetadata(gd)
	p.channels(gd)
	p.edgeAddRemove()
	p.blockedEdges(gd)
	return p.filter(gd, arch, channel)
}

// newPipeline decodes a graph-builder graph into a pipeline that graph-data has
// not touched yet.
func newPipeline(source string, data []byte) (*pipeline, error) {
	w, nodes, err := decodeWire(source, data)
	if err != nil {
		return nil, err
	}
	p := &pipeline{source: source, index: make(map[string]int, len(nodes)), at: make(map[[2]int]*rawEdge, len(w.Edges))}
	p.nodes = make([]rawNode, len(nodes))
	for i, n := range nodes {
		concrete := w.Nodes[i].Payload != "" && w.Nodes[i].Metadata != nil
		if concrete {
			n.Metadata = make(map[string]string, len(w.Nodes[i].Metadata))
			for k, v := range w.Nodes[i].Metadata {
				n.Metadata[k] = v
			}
		}
		n.Channels = nil // channel membership comes from graph-data
		p.nodes[i] = rawNode{Node: n, concrete: concrete}
		p.index[n.Version] = i
	}
	for _, e := range w.Edges {
		p.addEdge(e[0], e[1])
	}
	if len(w.ConditionalEdges) > 0 {
		p.warnings = append(p.warnings, fmt.Sprintf("%s: %d conditionalEdges in a graph-builder graph ignored; graph-data blocked-edges decide them", source, len(w.ConditionalEdges)))
	}
	return p, nil
}

func (p *pipeline) addEdge(f, t int) *rawEdge {
	k := [2]int{f, t}
	if e, ok := p.at[k]; ok {
		return e
	}
	e := &rawEdge{from: f, to: t}
	p.at[k] = e
	p.edges = append(p.edges, e)
	return e
}

// rawMetadata merges raw/metadata.json into every concrete node whose version
// equals the key ignoring build metadata; an existing key gets ",value" appended.
func (p *pipeline) rawMetadata(gd *GraphData) {
	keys := make([]string, 0, len(gd.RawMetadata))
	for k := range gd.RawMetadata {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, version := range keys {
		want, err := semver.Parse(version)
		if err != nil {
			p.warnings = append(p.warnings, fmt.Sprintf("%s: %q is not a semantic version; ignored", graphDataRawMetadata, version))
			continue
		}
		md := gd.RawMetadata[version]
		mkeys := make([]string, 0, len(md))
		for k := range md {
			mkeys = append(mkeys, k)
		}
		sort.Strings(mkeys)
		for i := range p.nodes {
			n := &p.nodes[i]
			if !n.concrete || !n.semver.EQ(want) {
				continue
			}
			for _, k := range mkeys {
				if old, ok := n.Metadata[k]; ok {
					n.Metadata[k] = old + "," + md[k]
				} else {
					n.Metadata[k] = md[k]
				}
			}
		}
	}
}

// channels adds each channel to the concrete nodes it lists (a listed version
// without build metadata names every architecture).
//
// A channel's versions are indexed by their version without build metadata, the
// part semver's EQ compares, so each node is checked only against the versions
// it can equal rather than against the whole list.
func (p *pipeline) channels(gd *GraphData) {
	keys := make([]string, len(p.nodes))
	for i := range p.nodes {
		if p.nodes[i].concrete {
			keys[i] = eqKey(p.nodes[i].semver)
		}
	}
	for _, ch := range gd.Channels {
		listed := make(map[string][]semver.Version, len(ch.parsed))
		for _, v := range ch.parsed {
			k := eqKey(v)
			listed[k] = append(listed[k], v)
		}
		for i := range p.nodes {
			n := &p.nodes[i]
			if !n.concrete {
				continue
			}
			for _, v := range listed[keys[i]] {
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

// joinChannels sorts each node's channels and writes them into its metadata.
func (p *pipeline) joinChannels() {
	for i := range p.nodes {
		sortChannels(p.nodes[i].Channels)
		if len(p.nodes[i].Channels) > 0 {
			p.nodes[i].Metadata[MetadataChannels] = strings.Join(p.nodes[i].Channels, ",")
		}
	}
}

// eqKey is v without its build metadata, as text: two parsed versions that semver's
// EQ calls equal have the same key (major, minor, patch and each prerelease part,
// numeric or not, are what EQ compares).
func eqKey(v semver.Version) string {
	v.Build = nil
	return v.String()
}

// annotate gives version the architecture of ref, as cincinnati's
// try_annotate_semver_build does for previous/next add and remove lists.
func (p *pipeline) annotate(version string, ref int) string {
	arch, ok := p.nodes[ref].Metadata[MetadataArch]
	if !ok {
		return version
	}
	v, err := semver.Parse(version)
	if err != nil {
		return version
	}
	v.Build = []string{arch}
	return v.String()
}

// edgeAddRemove applies the previous/next add and remove node metadata: adds first
// (previous, then next), then removals (previous, previous regex, next), so removals
// win, as cincinnati's edge-add-remove plugin does.
func (p *pipeline) edgeAddRemove() {
	const (
		prevAdd   = metadataPrefix + "previous.add"
		nextAdd   = metadataPrefix + "next.add"
		prevRm    = metadataPrefix + "previous.remove"
		prevRmRe  = metadataPrefix + "previous.remove_regex"
		nextRm    = metadataPrefix + "next.remove"
		removeAll = "*"
	)
	for i, n := range p.nodes {
		for _, v := range splitList(n.Metadata[prevAdd]) {
			if f, ok := p.index[p.annotate(v, i)]; ok {
				p.addEdge(f, i)
			}
		}
	}
	for i, n := range p.nodes {
		for _, v := range splitList(n.Metadata[nextAdd]) {
			if t, ok := p.index[p.annotate(v, i)]; ok {
				p.addEdge(i, t)
			}
		}
	}
	p.in = make([][]*rawEdge, len(p.nodes))
	for _, e := range p.edges {
		p.in[e.to] = append(p.in[e.to], e)
	}
	remove := func(f, t int, why string) {
		if e, ok := p.at[[2]int{f, t}]; ok {
			e.removedBy = append(e.removedBy, why)
		}
	}
	for i, n := range p.nodes {
		val, ok := n.Metadata[prevRm]
		if !ok {
			continue
		}
		why := fmt.Sprintf("%s=%s on %s", prevRm, val, n.Version)
		if strings.TrimSpace(val) == removeAll {
			for _, e := range p.in[i] {
				remove(e.from, i, why)
			}
			continue
		}
		for _, v := range splitList(val) {
			if f, ok := p.index[p.annotate(v, i)]; ok {
				remove(f, i, why)
			}
		}
	}
	for i, n := range p.nodes {
		val, ok := n.Metadata[prevRmRe]
		if !ok {
			continue
		}
		re, err := regexp.Compile(val)
		if err != nil {
			p.warnings = append(p.warnings, fmt.Sprintf("%s: %s=%q is not a valid regex; ignored", n.Version, prevRmRe, val))
			continue
		}
		why := fmt.Sprintf("%s=%s on %s", prevRmRe, val, n.Version)
		for _, e := range p.in[i] {
			if re.MatchString(p.nodes[e.from].Version) {
				remove(e.from, i, why)
			}
		}
	}
	for i, n := range p.nodes {
		val, ok := n.Metadata[nextRm]
		if !ok {
			continue
		}
		why := fmt.Sprintf("%s=%s on %s", nextRm, val, n.Version)
		for _, v := range splitList(val) {
			if t, ok := p.index[p.annotate(v, i)]; ok {
				remove(i, t, why)
			}
		}
	}
}

// blockedEdges applies every blocked-edges entry: its target names the release with
// that exact build metadata, or (without) the release on every architecture the
// graph has; an edge into a target is blocked (or made conditional, for entries with
// matchingRules) when the entry's regex matches the source version with its
// architecture ("4.3.19+amd64").
func (p *pipeline) blockedEdges(gd *GraphData) {
	var builds [][]string
	seen := map[string]bool{}
	for _, n := range p.nodes {
		key := strings.Join(n.semver.Build, ".")
		if !seen[key] {
			seen[key] = true
			builds = append(builds, n.semver.Build)
		}
	}
	for _, be := range gd.Blocked {
		to := semver.MustParse(be.To)
		var targets []string
		switch {
		case len(to.Build) > 0:
			targets = []string{to.String()}
		case len(to.Pre) == 1 && to.Pre[0].String() == "s390x":
			// cincinnati's special case: s390x once spelled with '-' instead of '+'.
			t := to
			t.Build = []string{"s390x"}
			targets = []string{t.String()}
		default:
			for _, b := range builds {
				t := to
				t.Build = b
				targets = append(targets, t.String())
			}
		}
		re := regexp.MustCompile(be.From) // validated when read
		for _, target := range targets {
			ti, ok := p.index[target]
			if !ok || !p.nodes[ti].concrete {
				continue
			}
			for _, e := range p.in[ti] {
				if !re.MatchString(p.nodes[e.from].Version) {
					continue
				}
				if be.conditional() {
					e.cond = append(e.cond, be)
				} else {
					e.blocked = append(e.blocked, be)
				}
			}
		}
	}
}

// filter keeps the concrete nodes of arch (stripping it from their versions) and,
// when channel is set, those in the channel; it builds the Graph.
func (p *pipeline) filter(gd *GraphData, arch, channel string) (*Graph, error) {
	newIndex := make([]int, len(p.nodes))
	var nodes []Node
	for i := range p.nodes {
		newIndex[i] = -1
		n := &p.nodes[i]
		if !n.concrete || !slices.Contains(splitList(n.Metadata[MetadataArch]), arch) {
			continue
		}
		if channel != "" && !slices.Contains(n.Channels, channel) {
			continue
		}
		out := n.Node
		out.Metadata = make(map[string]string, len(n.Metadata))
		for k, v := range n.Metadata {
			if k != MetadataArch { // the arch filter consumes the key
				out.Metadata[k] = v
			}
		}
		sv := n.semver
		sv.Build = slices.DeleteFunc(slices.Clone(sv.Build), func(b string) bool { return b == arch })
		if len(sv.Build) == 0 {
			sv.Build = nil // as semver.Parse leaves a version without build metadata
		}
		out.semver = sv
		out.Version = sv.String()
		newIndex[i] = len(nodes)
		nodes = append(nodes, out)
	}
	if len(nodes) == 0 {
		if channel != "" {
			var names []string
			for _, c := range gd.Channels {
				names = append(names, c.Name)
			}
			sortChannels(names)
			return nil, &InputError{Source: gd.Dir, Field: "channels", Msg: fmt.Sprintf("channel %q has no %s releases in %s", channel, arch, p.source), Hint: "channels in graph-data: " + strings.Join(names, ", ")}
		}
		return nil, &InputError{Source: p.source, Msg: fmt.Sprintf("no %s releases in the graph", arch), Hint: "check --arch"}
	}
	dup := map[string]bool{}
	for _, n := range nodes {
		if dup[n.Version] {
			return nil, &InputError{Source: p.source, Msg: fmt.Sprintf("two %s nodes become %s once the architecture is stripped", arch, n.Version)}
		}
		dup[n.Version] = true
	}
	var edges []Edge
	for _, e := range p.edges {
		f, t := newIndex[e.from], newIndex[e.to]
		if f < 0 || t < 0 {
			continue
		}
		out := Edge{From: nodes[f].Version, To: nodes[t].Version, State: EdgeSupported, RemovedBy: e.removedBy}
		switch {
		case len(e.blocked) > 0 || len(e.removedBy) > 0:
			out.State = EdgeBlocked
			out.BlockedBy = append(slices.Clone(e.blocked), e.cond...)
		case len(e.cond) > 0:
			out.State = EdgeConditional
			out.BlockedBy = slices.Clone(e.cond)
			for _, be := range e.cond {
				out.Risks = appendRisks(out.Risks, be.risk())
			}
		}
		edges = append(edges, out)
	}
	g := newGraph(nodes, edges)
	g.Source, g.GraphData, g.Arch, g.Channel = p.source, gd.Dir, arch, channel
	g.Warnings = p.warnings
	for _, s := range gd.Skipped {
		g.Warnings = append(g.Warnings, fmt.Sprintf("%s: skipped, cincinnati reads only .yaml files there", filepath.Join(gd.Dir, s)))
	}
	return g, nil
}
