package payload

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"text/template"
	"text/template/parse"

	"github.com/blang/semver/v4"
	"sigs.k8s.io/yaml"

	"github.com/openshift-recover/recover/internal/bounded"
)

// Options say how to load a payload.
type Options struct {
	// Inclusion decides which manifests the cluster applies.
	Inclusion
	// ReleaseImage is the pull spec the CVO's own manifests are rendered with
	// ({{.ReleaseImage}}); Load sets it to the pull spec when pulling.
	ReleaseImage string
	// Version loads a bare manifest tree that has no release-metadata (such as a
	// tree assembled from operator repositories): it is used as the release
	// version, and image-references becomes optional. When release-metadata exists
	// it must agree.
	Version string
	// CacheDir, when set, is the decoded-payload cache (see cache.go): a payload
	// whose manifest files, image-references, ReleaseImage and profile were seen
	// before is read from there instead of being decoded. "" disables it.
	CacheDir string
	// DirDigest sets Payload.DirDigest, dirdigest.Sum of the directory, from the same
	// reads as the manifests (the decoded-payload cache computes it anyway).
	DirDigest bool
}

// IsPullSpec reports whether source names a release image rather than a directory:
// it does not exist on disk and starts with a registry host (a first path element
// with a '.' or ':', or localhost), as in quay.io/openshift-release-dev/ocp-release@sha256:...
func IsPullSpec(source string) bool {
	if _, err := os.Stat(source); err == nil {
		return false
	}
	host, _, ok := strings.Cut(source, "/")
	return ok && !strings.HasPrefix(host, ".") && (strings.ContainsAny(host, ".:") || host == "localhost")
}

// Load loads a payload from a directory or, for a pull spec, from the release image
// (pulled into the cache, or found there by digest).
func Load(ctx context.Context, source string, o Options, po PullOptions) (*Payload, error) {
	if !IsPullSpec(source) {
		return LoadDir(source, o)
	}
	dir, digest, err := Pull(ctx, source, po)
	if err != nil {
		return nil, err
	}
	if o.ReleaseImage == "" {
		o.ReleaseImage = source
	}
	p, err := LoadDir(dir, o)
	if err != nil {
		return nil, err
	}
	p.Source, p.Digest = source, digest
	return p, nil
}

// LoadDir loads an extracted payload directory. Its manifest files are decoded in
// parallel (GOMAXPROCS workers); the result, and the error of a bad payload, are
// those of reading the files one by one in payload order.
func LoadDir(dir string, o Options) (*Payload, error) {
	return loadDir(dir, o, runtime.GOMAXPROCS(0))
}

func loadDir(dir string, o Options, workers int) (*Payload, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, &InputError{Path: dir, Msg: "cannot read payload: " + pathErrText(err), Hint: "pass an `oc adm release extract --to DIR` directory or a release image pull spec", Err: err}
	}
	if !st.IsDir() {
		return nil, &InputError{Path: dir, Msg: "not a directory", Hint: "pass an `oc adm release extract --to DIR` directory or a release image pull spec"}
	}
	for _, sub := range []string{ManifestDir, ReleaseManifestDir} {
		if st, err := os.Stat(filepath.Join(dir, sub)); err != nil || !st.IsDir() {
			return nil, &InputError{Path: filepath.Join(dir, sub), Msg: "missing directory", Hint: "a payload has manifests/ and release-manifests/ (oc adm release extract --to DIR <image>)"}
		}
	}
	p := &Payload{Source: dir, Dir: dir, ReleaseImage: o.ReleaseImage}
	relDir := filepath.Join(dir, ReleaseManifestDir)
	if err := p.readReleaseMetadata(relDir, o.Version); err != nil {
		return nil, err
	}
	if err := p.readImageReferences(relDir, o.Version != ""); err != nil {
		return nil, err
	}
	sv, _ := semver.Parse(p.Release.Version) // validated above
	in := o.Inclusion.effective()
	p.Inclusion = in

	render := renderData{ReleaseImage: o.ReleaseImage, ClusterProfile: in.Profile, Images: map[string]string{}}
	for _, r := range p.Images {
		render.Images[r.Name] = r.From
	}
	files := listManifestFiles(dir)
	var raws [][]byte
	var key [32]byte
	keyed, cached := false, false
	if o.CacheDir != "" || o.DirDigest {
		if pf, ok := readPayloadFiles(dir, files); ok {
			raws, p.DirDigest = pf.raws, pf.digest
			if o.CacheDir != "" {
				key, keyed = cacheKey(files, pf, render, p.Images), true
				p.Manifests, cached = readCache(o.CacheDir, key, workers)
			}
		}
	}
	if !cached {
		ms, err := readManifests(dir, files, raws, render, workers)
		if err != nil {
			return nil, err
		}
		p.Manifests = ms
		if keyed {
			writeCache(o.CacheDir, key, ms)
		}
	}
	if o.ReleaseImage == "" && anyRendered(p.Manifests) {
		p.Warnings = append(p.Warnings, "the CVO's own manifests were rendered without a release image ({{.ReleaseImage}} is empty); pass the release pull spec to apply them")
	}

	p.Rules = in.Rules
	if p.Rules == RulesAuto {
		p.Rules = RulesPreProfiles
		for _, m := range p.Manifests {
			if hasIncludeAnnotation(m) {
				p.Rules = RulesLibraryGo
				break
			}
		}
	}
	for _, m := range p.Manifests {
		m.Decision = Decide(m, in, p.Rules, sv.Major)
	}
	p.Order = BuildOrder(p.Included())
	return p, nil
}

func anyRendered(ms []*Manifest) bool {
	for _, m := range ms {
		if m.Rendered {
			return true
		}
	}
	return false
}

func hasIncludeAnnotation(m *Manifest) bool {
	for k := range m.Annotations {
		if strings.HasPrefix(k, AnnotationIncludePrefix) {
			return true
		}
	}
	return false
}

// renderData is what the CVO's own manifests are rendered with.
type renderData struct {
	ReleaseImage   string
	ClusterProfile string
	Images         map[string]string
}

// manifestFile is one manifest file to read, at its place in payload order.
type manifestFile struct {
	sub, name string
	// err, when set, is the directory listing's error, reported at this place.
	err error
}

// listManifestFiles lists the manifest files of manifests/ then release-manifests/,
// each in os.ReadDir (file name) order: the payload order. A directory that cannot
// be listed ends the list with its error, so that a bad file before it is still
// reported first.
func listManifestFiles(root string) []manifestFile {
	var files []manifestFile
	for _, sub := range []string{ManifestDir, ReleaseManifestDir} {
		entries, err := os.ReadDir(filepath.Join(root, sub))
		if err != nil {
			return append(files, manifestFile{sub: sub, err: &InputError{Path: filepath.Join(root, sub), Msg: pathErrText(err), Err: err}})
		}
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !hasManifestExtension(name) {
				continue
			}
			if sub == ReleaseManifestDir && (name == ReleaseMetadataFile || name == ImageReferencesFile) {
				continue
			}
			files = append(files, manifestFile{sub: sub, name: name})
		}
	}
	return files
}

// readManifests reads, renders and decodes every manifest file with up to workers
// goroutines. Files are claimed in payload order and their manifests joined in
// that order, so neither the result nor the error (the first bad file's, in
// payload order) depends on which worker finished first; once a file has failed,
// files after it are not started.
// raws, when not nil, holds the files' contents already read.
func readManifests(root string, files []manifestFile, raws [][]byte, data renderData, workers int) ([]*Manifest, error) {
	type result struct {
		ms  []*Manifest
		err error
	}
	results := make([]result, len(files))
	var firstBad atomic.Int64 // the lowest index known to fail
	firstBad.Store(int64(len(files)))
	inOrder(len(files), workers, func(i int) bool {
		if int64(i) > firstBad.Load() {
			return false
		}
		f := files[i]
		err := f.err
		if err == nil {
			var raw []byte
			if raws != nil {
				raw = raws[i]
			}
			results[i].ms, err = readManifestFile(root, f.sub, f.name, raw, data)
		}
		if err != nil {
			results[i].err = err
			for {
				cur := firstBad.Load()
				if int64(i) >= cur || firstBad.CompareAndSwap(cur, int64(i)) {
					break
				}
			}
		}
		return true
	})
	var out []*Manifest
	for _, r := range results {
		if r.err != nil {
			return nil, r.err
		}
		out = append(out, r.ms...)
	}
	return out, nil
}

// inOrder calls do(i) for every i in [0, n) on up to workers goroutines (the
// caller's among them). Indices are claimed once each, in increasing order, so a
// worker that sees do return false stops claiming: with do's own check of what has
// failed, nothing after a failure in claim order is started.
func inOrder(n, workers int, do func(i int) bool) {
	var next atomic.Int64
	work := func() {
		for {
			i := int(next.Add(1) - 1)
			if i >= n || !do(i) {
				return
			}
		}
	}
	var wg sync.WaitGroup
	for range max(1, min(workers, n)) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
}

// readManifestFile reads one manifest file, rendering manifests/ as templates.
// raw, when not nil, is its content already read.
func readManifestFile(root, sub, name string, raw []byte, data renderData) ([]*Manifest, error) {
	path := filepath.Join(root, sub, name)
	var err error
	if raw == nil {
		if raw, err = bounded.ReadFile(path, maxManifestFileBytes); err != nil {
			return nil, &InputError{Path: path, Msg: pathErrText(err), Err: err}
		}
	}
	if sub == ManifestDir {
		raw, err = renderTemplate(path, raw, data)
		if err != nil {
			return nil, err
		}
	}
	ms, err := decodeFile(sub, name, raw)
	if err != nil {
		if ie, ok := err.(*InputError); ok {
			ie.Path = filepath.Join(root, ie.Path)
		}
		return nil, err
	}
	level, component, _ := ParseFileName(name)
	for _, m := range ms {
		m.RunLevel, m.Component, m.Rendered = level, component, sub == ManifestDir
	}
	return ms, nil
}

// renderTemplate renders one of the CVO's own manifests. A missing key is an error
// rather than "<no value>".
func renderTemplate(path string, raw []byte, data renderData) ([]byte, error) {
	t, err := template.New(filepath.Base(path)).Option("missingkey=error").Parse(string(raw))
	if err != nil {
		return nil, &InputError{Path: path, Msg: "the CVO cannot render this template: " + err.Error(), Err: err}
	}
	// A template could loop or print without end; what it may do is bounded so a
	// hostile payload cannot hang recover or fill its memory.
	if err := checkTemplate(t); err != nil {
		return nil, &InputError{Path: path, Msg: "the CVO cannot render this template safely: " + err.Error(), Hint: "the CVO's own manifests use .ReleaseImage, .ClusterProfile and .Images", Err: err}
	}
	w := &boundedWriter{max: maxRenderedBytes}
	if err := t.Execute(w, data); err != nil {
		return nil, &InputError{Path: path, Msg: "the CVO cannot render this template: " + err.Error(), Hint: "templates may use .ReleaseImage, .ClusterProfile and .Images", Err: err}
	}
	return w.b.Bytes(), nil
}

// maxRenderedBytes bounds one rendered template: the CVO's own manifests render
// to a few KiB.
// maxManifestFileBytes caps one manifest file; the largest real ones (CRDs with
// their schemas) are under 2 MiB.
const maxManifestFileBytes = 64 << 20

// maxMetadataFileBytes caps release-metadata and image-references; the real
// ones are a few KiB to about 100 KiB.
const maxMetadataFileBytes = 16 << 20

const maxRenderedBytes = 16 << 20

// boundedWriter stops a template's execution (text/template aborts on a write
// error) once it has written max bytes.
type boundedWriter struct {
	b   bytes.Buffer
	max int
}

func (w *boundedWriter) Write(p []byte) (int, error) {
	if w.b.Len()+len(p) > w.max {
		return 0, fmt.Errorf("it renders to more than %d bytes", w.max)
	}
	return w.b.Write(p)
}

// checkTemplate bounds what a template can execute: {{template}} calls (which can
// fan out exponentially) are refused, and {{range}} may only iterate over the
// render data's fields (such as .Images), at most two deep, so the work is bounded
// by the size of the data. The CVO's manifests need nothing more.
func checkTemplate(t *template.Template) error {
	for _, tt := range t.Templates() {
		if tt.Tree == nil {
			continue
		}
		if err := checkNode(tt.Tree.Root, 0); err != nil {
			return err
		}
	}
	return nil
}

func checkNode(n parse.Node, ranges int) error {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return nil
		}
		for _, c := range n.Nodes {
			if err := checkNode(c, ranges); err != nil {
				return err
			}
		}
	case *parse.TemplateNode:
		return fmt.Errorf("line %d: {{template %q}} is not allowed", n.Line, n.Name)
	case *parse.IfNode:
		return checkBranches(n.List, n.ElseList, ranges)
	case *parse.WithNode:
		return checkBranches(n.List, n.ElseList, ranges)
	case *parse.RangeNode:
		if ranges >= 2 {
			return fmt.Errorf("line %d: {{range}} nested more than two deep", n.Line)
		}
		if !rangesOverData(n.Pipe) {
			return fmt.Errorf("line %d: {{range %s}} may only iterate over a field of the data, such as .Images", n.Line, n.Pipe)
		}
		if err := checkNode(n.List, ranges+1); err != nil {
			return err
		}
		return checkNode(n.ElseList, ranges)
	}
	return nil
}

func checkBranches(list, elseList *parse.ListNode, ranges int) error {
	if err := checkNode(list, ranges); err != nil {
		return err
	}
	return checkNode(elseList, ranges)
}

// rangesOverData reports whether a range pipeline is a plain field reference
// (.Images, $.Images, $x.Images).
func rangesOverData(p *parse.PipeNode) bool {
	if p == nil || len(p.Cmds) != 1 || len(p.Cmds[0].Args) != 1 {
		return false
	}
	switch a := p.Cmds[0].Args[0].(type) {
	case *parse.FieldNode:
		return true
	case *parse.VariableNode:
		return len(a.Ident) > 1
	}
	return false
}

// releaseMetadataFile is the JSON shape of release-metadata.
type releaseMetadataFile struct {
	Kind     string         `json:"kind"`
	Version  string         `json:"version"`
	Previous []string       `json:"previous"`
	Next     []string       `json:"next"`
	Metadata map[string]any `json:"metadata"`
}

func (p *Payload) readReleaseMetadata(relDir, version string) error {
	path := filepath.Join(relDir, ReleaseMetadataFile)
	data, err := bounded.ReadFile(path, maxMetadataFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		if version == "" {
			return &InputError{Path: path, Msg: "missing, so the release version is unknown", Hint: "extract the payload with `oc adm release extract --to DIR <image>`, or pass --payload-version for a bare manifest tree", Err: err}
		}
		if _, err := semver.Parse(version); err != nil {
			return &InputError{Path: "--payload-version", Msg: fmt.Sprintf("%q is not a release version: %v", version, err)}
		}
		p.Release = Release{Version: version}
		p.VersionFrom = "option"
		return nil
	}
	if err != nil {
		return &InputError{Path: path, Msg: pathErrText(err), Err: err}
	}
	var md releaseMetadataFile
	if err := json.Unmarshal(data, &md); err != nil {
		ie := &InputError{Path: path, Msg: "malformed JSON: " + err.Error(), Err: err}
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			ie.Line = bytes.Count(data[:min(int(syn.Offset), len(data))], []byte{'\n'}) + 1
		}
		return ie
	}
	if md.Kind != "cincinnati-metadata-v0" {
		return &InputError{Path: path, Field: "kind", Msg: fmt.Sprintf("unrecognized Cincinnati metadata kind %q (want cincinnati-metadata-v0)", md.Kind)}
	}
	if md.Version == "" {
		return &InputError{Path: path, Field: "version", Msg: "missing required Cincinnati metadata version"}
	}
	if _, err := semver.Parse(md.Version); err != nil {
		return &InputError{Path: path, Field: "version", Msg: fmt.Sprintf("invalid Cincinnati metadata version %q: %v", md.Version, err)}
	}
	if version != "" && version != md.Version {
		return &InputError{Path: path, Field: "version", Msg: fmt.Sprintf("release-metadata says %s but --payload-version says %s", md.Version, version)}
	}
	p.Release = Release{Version: md.Version, Previous: md.Previous, Next: md.Next}
	for k, v := range md.Metadata {
		if p.Release.Metadata == nil {
			p.Release.Metadata = map[string]string{}
		}
		if s, ok := v.(string); ok {
			p.Release.Metadata[k] = s
		} else {
			b, _ := json.Marshal(v)
			p.Release.Metadata[k] = string(b)
		}
	}
	p.VersionFrom = "release-metadata"
	return nil
}

// imageStream is the part of an image.openshift.io/v1 ImageStream we read.
type imageStream struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Tags []struct {
			Name string `json:"name"`
			From *struct {
				Kind string `json:"kind"`
				Name string `json:"name"`
			} `json:"from"`
		} `json:"tags"`
	} `json:"spec"`
}

func (p *Payload) readImageReferences(relDir string, optional bool) error {
	path := filepath.Join(relDir, ImageReferencesFile)
	data, err := bounded.ReadFile(path, maxMetadataFileBytes)
	if errors.Is(err, fs.ErrNotExist) && optional {
		p.Warnings = append(p.Warnings, "no release-manifests/image-references: component images are unknown")
		return nil
	}
	if err != nil {
		return &InputError{Path: path, Msg: pathErrText(err), Hint: "extract the payload with `oc adm release extract --to DIR <image>`", Err: err}
	}
	var is imageStream
	if err := yaml.Unmarshal(data, &is); err != nil {
		return &InputError{Path: path, Msg: "malformed image-references: " + err.Error(), Err: err}
	}
	if is.Kind != "ImageStream" || !strings.HasPrefix(is.APIVersion, "image.openshift.io/") {
		return &InputError{Path: path, Field: "kind", Msg: fmt.Sprintf("is a %s %s, not an image.openshift.io/v1 ImageStream", is.APIVersion, is.Kind)}
	}
	if p.VersionFrom == "release-metadata" && is.Metadata.Name != p.Release.Version {
		return &InputError{Path: path, Field: "metadata.name", Msg: fmt.Sprintf("version from image-references (%s) differs from release-metadata (%s)", is.Metadata.Name, p.Release.Version)}
	}
	for i, t := range is.Spec.Tags {
		if t.Name == "" || t.From == nil || t.From.Name == "" {
			return &InputError{Path: path, Field: fmt.Sprintf("spec.tags[%d]", i), Msg: "a tag needs name and from.name"}
		}
		p.Images = append(p.Images, ImageRef{Name: t.Name, From: t.From.Name})
	}
	return nil
}

func pathErrText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
