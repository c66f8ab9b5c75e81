package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/internal/testing/imagetest"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/internal/testing/inputcheck"
)

// The bad-input corpus: for every kind of input recover reads, malformed cases
// (truncated, wrong types, huge, binary, empty, symlink loops, paths that escape,
// wrong kind or apiVersion, ...) run through the real CLI. Each must exit with its
// documented code and print exactly one "error: " line naming the problem. Huge
// and binary cases are generated here, never checked in.

// badCase is one malformed input.
type badCase struct {
	name string
	// setup writes the input into dir and returns the command line.
	setup func(t *testing.T, dir string) []string
	code  int
	// want is a substring of the error line.
	want string
}

const (
	// hugeSize is the apparent size of the huge inputs, above every reader's cap
	// (the largest is 512 MiB, for one must-gather file): sparse files, so they
	// cost no disk, and a reader must refuse them before reading them.
	hugeSize = 1 << 30
)

// write creates dir/rel with data (parents included) and returns its path.
func write(t *testing.T, dir, rel string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// huge creates a sparse file of hugeSize bytes (zeros) at dir/rel.
func huge(t *testing.T, dir, rel string) string {
	t.Helper()
	p := write(t, dir, rel, nil)
	if err := os.Truncate(p, hugeSize); err != nil {
		t.Fatal(err)
	}
	return p
}

// endless returns a device that never ends (/dev/zero), or skips the test.
func endless(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero on this machine")
	}
	return "/dev/zero"
}

// binary returns n bytes of noise from a fixed seed.
func binary(n int) []byte {
	r := rand.New(rand.NewPCG(9, 9))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.UintN(256))
	}
	return b
}

// loop makes dir/rel a symlink to itself.
func loop(t *testing.T, dir, rel string) string {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Base(p), p); err != nil {
		t.Fatal(err)
	}
	return p
}

func readExample(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(exampleDir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// copyTree copies an example directory into dir/rel.
func copyTree(t *testing.T, from, dir, rel string) string {
	t.Helper()
	to := filepath.Join(dir, rel)
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, r), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, r), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return to
}

// tarGz archives entries (name -> content; a "->target" content makes a
// symlink) as a .tar.gz at dir/rel.
func tarGz(t *testing.T, dir, rel string, entries [][2]string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		h := &tar.Header{Name: e[0], Mode: 0o644, Size: int64(len(e[1])), Typeflag: tar.TypeReg}
		if target, ok := strings.CutPrefix(e[1], "->"); ok {
			h.Typeflag, h.Linkname, h.Size = tar.TypeSymlink, target, 0
		}
		if target, ok := strings.CutPrefix(e[1], "=>"); ok {
			h.Typeflag, h.Linkname, h.Size = tar.TypeLink, target, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write([]byte(e[1])); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return write(t, dir, rel, buf.Bytes())
}

// file makes a one-file case for a command that takes the file as flag.
func file(args []string, rel string, data []byte) func(*testing.T, string) []string {
	return func(t *testing.T, dir string) []string {
		return append(append([]string{}, args...), write(t, dir, rel, data))
	}
}

func runBadCases(t *testing.T, cases []badCase) {
	t.Helper()
	if len(cases) < 10 {
		t.Fatalf("only %d cases: the corpus wants at least ten per input kind", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.setup(t, t.TempDir())
			code, _, errOut := runRecover(t, args...)
			line := strings.TrimSuffix(errOut, "\n")
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr %q", code, tc.code, errOut)
			}
			if !strings.HasPrefix(line, "error: ") || strings.Contains(line, "\n") {
				t.Errorf("stderr is not one 'error: ' line: %q", errOut)
			}
			if p := inputcheck.LineProblem(line); p != "" {
				t.Error(p)
			}
			if os.Getenv("RECOVER_SHOW_ERRORS") != "" {
				t.Logf("%s", line)
			}
			if !strings.Contains(line, tc.want) {
				t.Errorf("the error does not say %q: %q", tc.want, line)
			}
		})
	}
}

func TestBadGraphFiles(t *testing.T) {
	graph := readExample(t, "graph.json")
	g := []string{"graph", "--graph"}
	runBadCases(t, []badCase{
		{"missing", func(t *testing.T, dir string) []string { return append(g, filepath.Join(dir, "nope.json")) }, ExitBadInput, "no such file"},
		{"empty", file(g, "graph.json", nil), ExitBadInput, "malformed JSON"},
		{"truncated", file(g, "graph.json", graph[:len(graph)/2]), ExitBadInput, "malformed JSON"},
		{"wrong types", file(g, "graph.json", []byte(`{"nodes":"4.4.3","edges":{}}`)), ExitBadInput, "expected"},
		{"binary", file(g, "graph.json", binary(4096)), ExitBadInput, "malformed JSON"},
		{"huge", func(t *testing.T, dir string) []string { return append(g, huge(t, dir, "graph.json")) }, ExitBadInput, "graph.json: cannot read graph: larger than 64 MiB"},
		{"endless device", func(t *testing.T, dir string) []string { return append(g, endless(t)) }, ExitBadInput, "cannot read graph: larger than 64 MiB"},
		{"a directory", func(t *testing.T, dir string) []string { return append(g, dir) }, ExitBadInput, "cannot read graph"},
		{"symlink loop", func(t *testing.T, dir string) []string { return append(g, loop(t, dir, "graph.json")) }, ExitBadInput, "too many levels of symbolic links"},
		{"wrong kind: a plan document", file(g, "plan.json", []byte(`{"apiVersion":"recover.openshift.io/v1alpha1","kind":"RecoveryPlan","steps":[]}`)), ExitBadInput, "nodes: missing"},
		{"edge outside the nodes", file(g, "graph.json", []byte(`{"nodes":[{"version":"4.4.3"}],"edges":[[0,1]]}`)), ExitBadInput, "edges[0]"},
		{"duplicate version", file(g, "graph.json", []byte(`{"nodes":[{"version":"4.4.3"},{"version":"4.4.3"}],"edges":[]}`)), ExitBadInput, "duplicate version"},
		{"not semver", file(g, "graph.json", []byte(`{"nodes":[{"version":"four"}],"edges":[]}`)), ExitBadInput, "not a semantic version"},
		{"edge of three", file(g, "graph.json", []byte(`{"nodes":[{"version":"4.4.3"}],"edges":[[0,0,0]]}`)), ExitBadInput, "edges[0]"},
	})
}

func TestBadGraphData(t *testing.T) {
	graph := filepath.Join(exampleDir, "graph.json")
	gd := func(files map[string][]byte) func(*testing.T, string) []string {
		return func(t *testing.T, dir string) []string {
			for rel, data := range files {
				write(t, dir, filepath.Join("gd", rel), data)
			}
			return []string{"graph", "--graph", graph, "--graph-data", filepath.Join(dir, "gd")}
		}
	}
	runBadCases(t, []badCase{
		{"missing", func(t *testing.T, dir string) []string {
			return []string{"graph", "--graph", graph, "--graph-data", filepath.Join(dir, "nope")}
		}, ExitBadInput, "cannot read graph-data"},
		{"a file", func(t *testing.T, dir string) []string {
			return []string{"graph", "--graph", graph, "--graph-data", graph}
		}, ExitBadInput, "not a directory"},
		{"empty", gd(map[string][]byte{"README.md": []byte("x")}), ExitBadInput, "no channels"},
		{"unsupported schema version", gd(map[string][]byte{"version": []byte("9.9.9"), "channels/a.yaml": []byte("name: a\n")}), ExitBadInput, "unsupported graph-data schema version"},
		{"truncated channel", gd(map[string][]byte{"channels/a.yaml": []byte("name: a\nversions: [4.4.3,")}), ExitBadInput, "malformed YAML"},
		{"channel wrong types", gd(map[string][]byte{"channels/a.yaml": []byte("name: [a]\n")}), ExitBadInput, "malformed YAML"},
		{"channel without name", gd(map[string][]byte{"channels/a.yaml": []byte("versions: [4.4.3]\n")}), ExitBadInput, "missing channel name"},
		{"binary blocked edge", gd(map[string][]byte{"blocked-edges/a.yaml": binary(2048)}), ExitBadInput, "blocked-edges/a.yaml"},
		{"blocked edge without from", gd(map[string][]byte{"blocked-edges/a.yaml": []byte("to: 4.4.3\n")}), ExitBadInput, "missing source regex"},
		{"blocked edge bad regex", gd(map[string][]byte{"blocked-edges/a.yaml": []byte("to: 4.4.3\nfrom: '(('\n")}), ExitBadInput, "invalid regex"},
		{"raw metadata wrong types", gd(map[string][]byte{"channels/a.yaml": []byte("name: a\n"), "raw/metadata.json": []byte(`{"4.4.3":{"a":1}}`)}), ExitBadInput, "raw/metadata.json"},
		{"symlink loop", func(t *testing.T, dir string) []string {
			write(t, dir, "gd/channels/a.yaml", []byte("name: a\n"))
			loop(t, dir, "gd/blocked-edges/b.yaml")
			return []string{"graph", "--graph", graph, "--graph-data", filepath.Join(dir, "gd")}
		}, ExitBadInput, "too many levels of symbolic links"},
		{"huge channel", func(t *testing.T, dir string) []string {
			huge(t, dir, "gd/channels/a.yaml")
			return []string{"graph", "--graph", graph, "--graph-data", filepath.Join(dir, "gd")}
		}, ExitBadInput, "channels/a.yaml: larger than 16 MiB"},
	})
}

// payloadCase copies the example 4.4.4 payload, lets edit change it, and runs
// recover payload on it.
func payloadCase(edit func(t *testing.T, p string)) func(*testing.T, string) []string {
	return func(t *testing.T, dir string) []string {
		p := copyTree(t, filepath.Join(exampleDir, "releases", "4.4.4"), dir, "payload")
		edit(t, p)
		return []string{"payload", "--payload", p}
	}
}

func TestBadPayloadDirectories(t *testing.T) {
	rm := "release-manifests/release-metadata"
	refs := "release-manifests/image-references"
	manifest := "release-manifests/0000_50_fuzz-operator_00_x.yaml"
	runBadCases(t, []badCase{
		{"missing", func(t *testing.T, dir string) []string {
			return []string{"payload", "--payload", filepath.Join(dir, "nope")}
		}, ExitBadInput, "cannot read payload"},
		{"a file", func(t *testing.T, dir string) []string {
			return []string{"payload", "--payload", write(t, dir, "payload.tar", []byte("x"))}
		}, ExitBadInput, "not a directory"},
		{"empty", func(t *testing.T, dir string) []string { return []string{"payload", "--payload", dir} }, ExitBadInput, "missing directory"},
		{"no release-manifests", payloadCase(func(t *testing.T, p string) { os.RemoveAll(filepath.Join(p, "release-manifests")) }), ExitBadInput, "missing directory"},
		{"no release-metadata", payloadCase(func(t *testing.T, p string) { os.Remove(filepath.Join(p, rm)) }), ExitBadInput, "--payload-version"},
		{"truncated release-metadata", payloadCase(func(t *testing.T, p string) { write(t, p, rm, []byte(`{"kind":"cincinnati-metadata-v0","ver`)) }), ExitBadInput, "malformed JSON"},
		{"release-metadata wrong kind", payloadCase(func(t *testing.T, p string) { write(t, p, rm, []byte(`{"kind":"ImageStream","version":"4.4.4"}`)) }), ExitBadInput, "unrecognized Cincinnati metadata kind"},
		{"release-metadata wrong types", payloadCase(func(t *testing.T, p string) {
			write(t, p, rm, []byte(`{"kind":"cincinnati-metadata-v0","version":4.4}`))
		}), ExitBadInput, "release-metadata"},
		{"image-references wrong kind", payloadCase(func(t *testing.T, p string) {
			write(t, p, refs, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: 4.4.4}\n"))
		}), ExitBadInput, "not an image.openshift.io/v1 ImageStream"},
		{"malformed manifest", payloadCase(func(t *testing.T, p string) { write(t, p, manifest, []byte("apiVersion: v1\nkind: [ConfigMap\n")) }), ExitBadInput, "malformed YAML"},
		{"manifest without name", payloadCase(func(t *testing.T, p string) { write(t, p, manifest, []byte("apiVersion: v1\nkind: ConfigMap\n")) }), ExitBadInput, "no kind or metadata.name"},
		{"binary manifest", payloadCase(func(t *testing.T, p string) { write(t, p, manifest, binary(4096)) }), ExitBadInput, "0000_50_fuzz-operator_00_x.yaml"},
		{"huge manifest", payloadCase(func(t *testing.T, p string) { huge(t, p, manifest) }), ExitBadInput, "0000_50_fuzz-operator_00_x.yaml: larger than 64 MiB"},
		{"symlink loop", payloadCase(func(t *testing.T, p string) { loop(t, p, manifest) }), ExitBadInput, "too many levels of symbolic links"},
		{"duplicate object", payloadCase(func(t *testing.T, p string) {
			write(t, p, manifest, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"))
		}), ExitBadInput, "duplicate resource"},
		{"bad delete annotation", payloadCase(func(t *testing.T, p string) {
			write(t, p, manifest, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, annotations: {release.openshift.io/delete: 'yes'}}\n"))
		}), ExitBadInput, "release.openshift.io/delete"},
		{"invalid apiVersion", payloadCase(func(t *testing.T, p string) {
			write(t, p, manifest, []byte("apiVersion: a/b/c\nkind: X\nmetadata: {name: a}\n"))
		}), ExitBadInput, "invalid apiVersion"},
		{"template bomb", payloadCase(func(t *testing.T, p string) {
			write(t, p, "manifests/0000_00_cluster-version-operator_03_deployment.yaml", []byte(strings.Repeat("{{range $.Images}}", 5)+"x"+strings.Repeat("{{end}}", 5)))
		}), ExitBadInput, "cannot render this template"},
	})
}

// registryImage pushes img to an in-memory registry on loopback (behind wrap, if
// given) and returns the registry host.
func registryImage(t *testing.T, img v1.Image, wrap func(http.Handler) http.Handler) (host string, digest v1.Hash) {
	t.Helper()
	var h http.Handler = registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	host = strings.TrimPrefix(srv.URL, "http://")
	ref, err := name.ParseReference(host+"/ocp/release:4.4.4", name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(ref, img); err != nil {
		t.Fatal(err)
	}
	digest, err = img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return host, digest
}

// imageOf builds an image with one layer of files.
func imageOf(t *testing.T, files [][2]string) v1.Image {
	t.Helper()
	out := make([]imagetest.File, 0, len(files))
	for _, f := range files {
		out = append(out, imagetest.File{Path: f[0], Content: f[1]})
	}
	return imagetest.Image(t, imagetest.Layer(t, out...))
}

func TestBadPayloadImages(t *testing.T) {
	good := imageOf(t, [][2]string{
		{"release-manifests/release-metadata", string(readExample(t, "releases/4.4.4/release-manifests/release-metadata"))},
		{"release-manifests/image-references", string(readExample(t, "releases/4.4.4/release-manifests/image-references"))},
		{"manifests/0000_00_cluster-version-operator_00_namespace.yaml", string(readExample(t, "releases/4.4.4/manifests/0000_00_cluster-version-operator_00_namespace.yaml"))},
	})
	pull := func(img v1.Image, wrap func(http.Handler) http.Handler, extra ...string) func(*testing.T, string) []string {
		return func(t *testing.T, dir string) []string {
			host, d := registryImage(t, img, wrap)
			return append([]string{"payload", "--payload-cache-dir", filepath.Join(dir, "cache"), "--payload", host + "/ocp/release@" + d.String()}, extra...)
		}
	}
	status := func(code int, path string) func(http.Handler) http.Handler {
		return func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet && strings.Contains(r.URL.Path, path) {
					http.Error(w, http.StatusText(code), code)
					return
				}
				h.ServeHTTP(w, r)
			})
		}
	}
	// corruptBlobs flips the bytes of every layer blob the registry serves.
	corruptBlobs := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || !strings.Contains(r.URL.Path, "/blobs/") {
				h.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			body := rec.Body.Bytes()
			for i := range body {
				body[i] ^= 0x5a
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			_, _ = w.Write(body)
		})
	}
	// otherManifest serves another image's manifest under the requested digest.
	other := imageOf(t, [][2]string{{"manifests/x.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n"}})
	otherManifest := func(h http.Handler) http.Handler {
		raw, err := other.RawManifest()
		if err != nil {
			t.Fatal(err)
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/manifests/sha256:") {
				w.Header().Set("Content-Type", "application/vnd.docker.distribution.manifest.v2+json")
				_, _ = w.Write(raw)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	runBadCases(t, []badCase{
		{"by tag", func(t *testing.T, dir string) []string {
			host, _ := registryImage(t, good, nil)
			return []string{"payload", "--payload", host + "/ocp/release:4.4.4"}
		}, ExitBadInput, "pull spec is by tag"},
		{"invalid digest", func(t *testing.T, dir string) []string {
			return []string{"payload", "--payload", "127.0.0.1:1/ocp/release@sha256:xyz"}
		}, ExitBadInput, "invalid pull spec"},
		{"unknown digest", func(t *testing.T, dir string) []string {
			host, _ := registryImage(t, good, nil)
			return []string{"payload", "--payload-cache-dir", filepath.Join(dir, "c"), "--payload", host + "/ocp/release@sha256:" + strings.Repeat("ab", 32)}
		}, ExitBadInput, "not found in the registry"},
		{"digest mismatch", pull(good, otherManifest), ExitBadInput, "digest"},
		{"corrupt layer", pull(good, corruptBlobs), ExitBadInput, "release image"},
		{"not a release image", pull(imageOf(t, [][2]string{{"usr/bin/true", "x"}}), nil), ExitBadInput, "not a release image"},
		{"paths that escape", pull(imageOf(t, [][2]string{{"../../manifests/x.yaml", "x"}, {"/etc/passwd", "x"}}), nil), ExitBadInput, "unsafe tar path"},
		{"malformed manifests inside", pull(imageOf(t, [][2]string{{"release-manifests/release-metadata", "{"}, {"manifests/a.yaml", "x"}}), nil), ExitBadInput, "release-metadata"},
		{"unauthorized", pull(good, status(http.StatusUnauthorized, "/manifests/")), ExitBadInput, "refused access"},
		{"malformed registry config", func(t *testing.T, dir string) []string {
			args := pull(good, nil)(t, dir)
			return append(args, "--registry-config", write(t, dir, "auth.json", []byte("{auths")))
		}, ExitBadInput, "malformed registry config"},
		{"missing registry config", func(t *testing.T, dir string) []string {
			return append(pull(good, nil)(t, dir), "--registry-config", filepath.Join(dir, "nope.json"))
		}, ExitBadInput, "cannot read registry config"},
		{"registry failing (a network problem, not bad input)", pull(good, status(http.StatusInternalServerError, "/blobs/")), ExitError, "release image"},
	})
}

// exampleMustGather copies the first incident's must-gather into dir/mg.
func exampleMustGather(t *testing.T, dir string) string {
	t.Helper()
	return copyTree(t, filepath.Join(exampleDir, "must-gather"), dir, "mg")
}

func mustGatherCase(edit func(t *testing.T, mg string)) func(*testing.T, string) []string {
	return func(t *testing.T, dir string) []string {
		mg := exampleMustGather(t, dir)
		edit(t, mg)
		return []string{"inspect", "--must-gather", mg}
	}
}

func TestBadMustGatherDirectories(t *testing.T) {
	cv := "cluster-scoped-resources/config.openshift.io/clusterversions/version.yaml"
	runBadCases(t, []badCase{
		{"missing", func(t *testing.T, dir string) []string {
			return []string{"inspect", "--must-gather", filepath.Join(dir, "nope")}
		}, ExitBadInput, "no such file"},
		{"empty", func(t *testing.T, dir string) []string { return []string{"inspect", "--must-gather", dir} }, ExitBadInput, "not a must-gather"},
		{"truncated ClusterVersion", mustGatherCase(func(t *testing.T, mg string) {
			data := readExample(t, "must-gather/"+cv)
			cut := 600 + bytes.IndexByte(data[600:], '\'') + 3 // inside a quoted timestamp
			write(t, mg, cv, data[:cut])
		}), ExitBadInput, "version.yaml"},
		{"wrong kind", mustGatherCase(func(t *testing.T, mg string) {
			write(t, mg, cv, []byte("apiVersion: v1\nkind: Node\nmetadata: {name: version}\n"))
		}), ExitBadInput, "expected a ClusterVersion"},
		{"wrong types", mustGatherCase(func(t *testing.T, mg string) {
			write(t, mg, cv, []byte("apiVersion: config.openshift.io/v1\nkind: ClusterVersion\nmetadata: {name: version}\nstatus: {history: yes}\n"))
		}), ExitBadInput, "invalid ClusterVersion"},
		{"binary", mustGatherCase(func(t *testing.T, mg string) { write(t, mg, cv, binary(4096)) }), ExitBadInput, "version.yaml"},
		{"huge", mustGatherCase(func(t *testing.T, mg string) { huge(t, mg, cv) }), ExitBadInput, "version.yaml: larger than 256 MiB"},
		{"symlink loop", mustGatherCase(func(t *testing.T, mg string) { os.Remove(filepath.Join(mg, cv)); loop(t, mg, cv) }), ExitBadInput, "version.yaml"},
		{"not Kubernetes objects", mustGatherCase(func(t *testing.T, mg string) { write(t, mg, cv, []byte("- a\n- b\n")) }), ExitBadInput, "not a Kubernetes object"},
		{"list item of another kind", mustGatherCase(func(t *testing.T, mg string) {
			write(t, mg, "namespaces/openshift-etcd/core/pods.yaml", []byte("apiVersion: v1\nkind: PodList\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: x}}\n"))
		}), ExitBadInput, "expected a Pod"},
		{"two must-gathers", func(t *testing.T, dir string) []string {
			copyTree(t, filepath.Join(exampleDir, "must-gather"), dir, "a/mg")
			copyTree(t, filepath.Join(exampleDir, "must-gather"), dir, "b/mg")
			return []string{"inspect", "--must-gather", dir}
		}, ExitBadInput, "several must-gathers"},
		{"escape sequence in a file name", mustGatherCase(func(t *testing.T, mg string) {
			write(t, mg, "cluster-scoped-resources/config.openshift.io/clusterversions/\x1b]0;owned\x07\x1b[2J.yaml", []byte("kind: [\n"))
		}), ExitBadInput, "clusterversions/?]0;owned??[2J.yaml"},
		{"a plain file", func(t *testing.T, dir string) []string {
			return []string{"inspect", "--must-gather", write(t, dir, "mg.txt", []byte("hello\n"))}
		}, ExitBadInput, "not a tar"},
	})
}

func TestBadMustGatherArchives(t *testing.T) {
	cv := string(readExample(t, "must-gather/cluster-scoped-resources/config.openshift.io/clusterversions/version.yaml"))
	cvPath := "mg/cluster-scoped-resources/config.openshift.io/clusterversions/version.yaml"
	arch := func(entries ...[2]string) func(*testing.T, string) []string {
		return func(t *testing.T, dir string) []string {
			return []string{"inspect", "--must-gather", tarGz(t, dir, "mg.tar.gz", entries)}
		}
	}
	runBadCases(t, []badCase{
		{"empty file", func(t *testing.T, dir string) []string {
			return []string{"inspect", "--must-gather", write(t, dir, "mg.tar.gz", nil)}
		}, ExitBadInput, "mg.tar.gz"},
		{"truncated", func(t *testing.T, dir string) []string {
			full := tarGz(t, dir, "full.tar.gz", [][2]string{{cvPath, cv}, {"mg/namespaces/x", strings.Repeat("x", 10000)}})
			data, _ := os.ReadFile(full)
			return []string{"inspect", "--must-gather", write(t, dir, "mg.tar.gz", data[:len(data)/2])}
		}, ExitBadInput, "mg.tar.gz"},
		{"gzip of something else", func(t *testing.T, dir string) []string {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			_, _ = zw.Write([]byte("just text, not a tar archive"))
			_ = zw.Close()
			return []string{"inspect", "--must-gather", write(t, dir, "mg.tar.gz", b.Bytes())}
		}, ExitBadInput, "not a tar"},
		{"binary", func(t *testing.T, dir string) []string {
			return []string{"inspect", "--must-gather", write(t, dir, "mg.tar.gz", binary(8192))}
		}, ExitBadInput, "mg.tar.gz"},
		{"path escaping with ..", arch([2]string{cvPath, cv}, [2]string{"mg/../../etc/cron.d/x", "x"}), ExitBadInput, "escapes the archive root"},
		{"absolute path", arch([2]string{"/etc/passwd", "x"}, [2]string{cvPath, cv}), ExitBadInput, "absolute path"},
		{"symlink out of the archive", arch([2]string{cvPath, cv}, [2]string{"mg/namespaces/link", "->/etc/shadow"}), ExitBadInput, "outside the archive"},
		{"symlink climbing out", arch([2]string{cvPath, cv}, [2]string{"mg/namespaces/link", "->../../../root"}), ExitBadInput, "outside the archive"},
		{"hard link out of the archive", arch([2]string{cvPath, cv}, [2]string{"mg/namespaces/link", "=>../../etc/shadow"}), ExitBadInput, "outside the archive"},
		{"no must-gather inside", arch([2]string{"notes/readme.txt", "hello"}), ExitBadInput, "not a must-gather"},
		{"malformed resource inside", arch([2]string{cvPath, "kind: [ClusterVersion\n"}), ExitBadInput, "version.yaml"},
		{"entry claims a huge size", func(t *testing.T, dir string) []string {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			tw := tar.NewWriter(zw)
			_ = tw.WriteHeader(&tar.Header{Name: cvPath, Mode: 0o644, Size: 600 << 20, Typeflag: tar.TypeReg})
			_, _ = tw.Write([]byte(cv))
			_ = zw.Close()
			return []string{"inspect", "--must-gather", write(t, dir, "mg.tar.gz", b.Bytes())}
		}, ExitBadInput, "more than the"},
		{"five 480 MiB resource files in 4 MB", crafted(craftedArchives[0]), craftedArchives[0].code, craftedArchives[0].want},
		{"eight 200 MiB resource files", crafted(craftedArchives[1]), craftedArchives[1].code, craftedArchives[1].want},
	})
}

// crafted is the case of a crafted archive (crafted_test.go).
func crafted(a craftedArchive) func(*testing.T, string) []string {
	return func(t *testing.T, _ string) []string {
		if testing.Short() {
			t.Skip("generating the crafted archives expands 4 GB through gzip; skipped with -short")
		}
		return []string{"inspect", "--must-gather", craftedPath(t, a.name)}
	}
}

func TestBadInsightsArchives(t *testing.T) {
	ins := func(files map[string][]byte) func(*testing.T, string) []string {
		return func(t *testing.T, dir string) []string {
			for rel, data := range files {
				write(t, dir, filepath.Join("ins", rel), data)
			}
			return []string{"inspect", "--insights-archive", filepath.Join(dir, "ins")}
		}
	}
	version := []byte(`{"metadata":{"name":"version"},"status":{"desired":{"version":"4.4.3"}}}`)
	runBadCases(t, []badCase{
		{"missing", func(t *testing.T, dir string) []string {
			return []string{"inspect", "--insights-archive", filepath.Join(dir, "nope")}
		}, ExitBadInput, "no such file"},
		{"empty directory", func(t *testing.T, dir string) []string { return []string{"inspect", "--insights-archive", dir} }, ExitBadInput, "not an Insights archive"},
		{"a must-gather instead", func(t *testing.T, dir string) []string {
			return []string{"inspect", "--insights-archive", exampleMustGather(t, dir)}
		}, ExitBadInput, "not an Insights archive"},
		{"truncated version", ins(map[string][]byte{"config/version": version[:20]}), ExitBadInput, "config/version"},
		{"version of another kind", ins(map[string][]byte{"config/version": []byte(`{"kind":"Node","metadata":{"name":"x"}}`)}), ExitBadInput, "expected a ClusterVersion"},
		{"wrong types", ins(map[string][]byte{"config/version": []byte(`{"kind":"ClusterVersion","status":{"history":7}}`)}), ExitBadInput, "invalid ClusterVersion"},
		{"binary node", ins(map[string][]byte{"config/version": version, "config/node/n.json": binary(2048)}), ExitBadInput, "config/node/n.json"},
		{"huge version", func(t *testing.T, dir string) []string {
			huge(t, dir, "ins/config/version")
			return []string{"inspect", "--insights-archive", filepath.Join(dir, "ins")}
		}, ExitBadInput, "config/version: larger than 256 MiB"},
		{"symlink loop", func(t *testing.T, dir string) []string {
			write(t, dir, "ins/config/version", version)
			loop(t, dir, "ins/config/clusteroperator/dns.json")
			return []string{"inspect", "--insights-archive", filepath.Join(dir, "ins")}
		}, ExitBadInput, "dns.json"},
		{"truncated tar.gz", func(t *testing.T, dir string) []string {
			full := tarGz(t, dir, "full.tar.gz", [][2]string{{"config/version", string(version)}, {"config/id", strings.Repeat("x", 20000)}})
			data, _ := os.ReadFile(full)
			return []string{"inspect", "--insights-archive", write(t, dir, "insights.tar.gz", data[:len(data)/2])}
		}, ExitBadInput, "insights.tar.gz"},
		{"tar.gz path escaping", func(t *testing.T, dir string) []string {
			return []string{"inspect", "--insights-archive", tarGz(t, dir, "insights.tar.gz", [][2]string{{"config/version", string(version)}, {"../config/x", "x"}})}
		}, ExitBadInput, "escapes the archive root"},
		{"operator CR wrong types", ins(map[string][]byte{"config/version": version, "config/clusteroperator/operator.openshift.io/kubeapiserver/cluster.json": []byte(`{"status":{"nodeStatuses":"all good"}}`)}), ExitBadInput, "invalid KubeAPIServer"},
	})
}

func TestBadSnapshots(t *testing.T) {
	s := []string{"inspect", "--snapshot"}
	var good bytes.Buffer
	if code, out, errOut := runRecover(t, "inspect", "--must-gather", filepath.Join(exampleDir, "must-gather"), "-o", "json"); code != 0 {
		t.Fatalf("inspect -o json: %d %s", code, errOut)
	} else {
		good.WriteString(out)
	}
	runBadCases(t, []badCase{
		{"missing", func(t *testing.T, dir string) []string { return append(s, filepath.Join(dir, "nope.json")) }, ExitBadInput, "no such file"},
		{"empty", file(s, "snap.json", nil), ExitBadInput, "not a recover snapshot"},
		{"truncated", file(s, "snap.json", good.Bytes()[:good.Len()/2]), ExitBadInput, "not a recover snapshot"},
		{"YAML, not JSON", file(s, "snap.yaml", readExample(t, "must-gather/cluster-scoped-resources/config.openshift.io/clusterversions/version.yaml")), ExitBadInput, "not a recover snapshot"},
		{"no formatVersion", file(s, "snap.json", []byte(`{"clusterVersion":{}}`)), ExitBadInput, "no formatVersion"},
		{"future format", file(s, "snap.json", []byte(`{"formatVersion":"2.0"}`)), ExitBadInput, "not supported"},
		{"wrong types", file(s, "snap.json", []byte(`{"formatVersion":"1.0","nodes":"master-0"}`)), ExitBadInput, "not a recover snapshot"},
		{"wrong kind: a plan", file(s, "snap.json", []byte(`{"apiVersion":"recover.openshift.io/v1alpha1","kind":"RecoveryPlan"}`)), ExitBadInput, "no formatVersion"},
		{"binary", file(s, "snap.json", binary(4096)), ExitBadInput, "not a recover snapshot"},
		{"huge", func(t *testing.T, dir string) []string { return append(s, huge(t, dir, "snap.json")) }, ExitBadInput, "snap.json: larger than 512 MiB"},
		{"a directory", func(t *testing.T, dir string) []string { return append(s, dir) }, ExitBadInput, "is a directory"},
		{"symlink loop", func(t *testing.T, dir string) []string { return append(s, loop(t, dir, "snap.json")) }, ExitBadInput, "too many levels of symbolic links"},
	})
}

// planJSON returns the full test plan, edited by edit, as JSON.
func planJSON(t *testing.T, edit func(p map[string]any)) []byte {
	t.Helper()
	b, _ := applytest.FullPlan("bad")
	data, err := json.Marshal(b.Plan())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(m)
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func step(p map[string]any, i int) map[string]any { return p["steps"].([]any)[i].(map[string]any) }

func TestBadPlans(t *testing.T) {
	a := []string{"apply", "--yes", "--kubeconfig", "/nonexistent/kubeconfig", "--plan"}
	runBadCases(t, []badCase{
		{"missing", func(t *testing.T, dir string) []string { return append(a, filepath.Join(dir, "nope.json")) }, ExitBadInput, "no such file"},
		{"empty", file(a, "plan.json", nil), ExitBadInput, "not a plan document"},
		{"truncated", func(t *testing.T, dir string) []string {
			data := planJSON(t, nil)
			return append(a, write(t, dir, "plan.json", data[:len(data)/2]))
		}, ExitBadInput, "not a plan document"},
		{"wrong kind: a snapshot", file(a, "plan.json", []byte(`{"formatVersion":"1.0","clusterVersion":{}}`)), ExitBadInput, "not a recover plan"},
		{"wrong apiVersion", file(a, "plan.json", planJSON(t, func(p map[string]any) { p["apiVersion"] = "recover.openshift.io/v2" })), ExitBadInput, "not a recover plan"},
		{"future format", file(a, "plan.json", planJSON(t, func(p map[string]any) { p["formatVersion"] = "2.0" })), ExitBadInput, "not supported"},
		{"wrong types", file(a, "plan.json", planJSON(t, func(p map[string]any) { p["steps"] = "all of them" })), ExitBadInput, "not a plan document"},
		{"edited manifest", file(a, "plan.json", planJSON(t, func(p map[string]any) {
			step(p, 5)["manifest"].(map[string]any)["object"].(map[string]any)["data"] = map[string]any{"token": "ZXZpbA=="}
		})), ExitBadInput, "digest"},
		{"change before disable-cvo", file(a, "plan.json", planJSON(t, func(p map[string]any) {
			steps := p["steps"].([]any)
			steps[0], steps[1] = steps[1], steps[0]
		})), ExitBadInput, "before a disable-cvo step"},
		{"no restore-cvo", file(a, "plan.json", planJSON(t, func(p map[string]any) {
			steps := p["steps"].([]any)
			p["steps"] = steps[:len(steps)-1]
		})), ExitBadInput, "leave the CVO disabled"},
		{"desired update by tag", file(a, "plan.json", planJSON(t, func(p map[string]any) {
			steps := p["steps"].([]any)
			steps[len(steps)-2].(map[string]any)["desiredUpdate"].(map[string]any)["image"] = "quay.io/openshift-release-dev/ocp-release:4.4.4-x86_64"
		})), ExitBadInput, "by digest"},
		{"unknown action", file(a, "plan.json", planJSON(t, func(p map[string]any) { step(p, 1)["action"] = "reboot" })), ExitBadInput, "unknown action"},
		{"duplicate step id", file(a, "plan.json", planJSON(t, func(p map[string]any) { step(p, 2)["id"] = step(p, 1)["id"] })), ExitBadInput, "duplicate step id"},
		{"binary", file(a, "plan.json", binary(4096)), ExitBadInput, "not a plan document"},
		{"huge", func(t *testing.T, dir string) []string { return append(a, huge(t, dir, "plan.json")) }, ExitBadInput, "plan.json: larger than 256 MiB"},
		{"symlink loop", func(t *testing.T, dir string) []string { return append(a, loop(t, dir, "plan.json")) }, ExitBadInput, "too many levels of symbolic links"},
	})
}

func TestBadJournals(t *testing.T) {
	j := []string{"journal"}
	header := `{"type":"header","seq":1,"time":"2020-05-24T16:02:51Z","header":{"formatVersion":"1.0","runID":"r","plan":{"path":"/p.json","digest":"sha256:x","steps":1},"startedAt":"2020-05-24T16:02:51Z"}}` + "\n"
	runBadCases(t, []badCase{
		{"missing", func(t *testing.T, dir string) []string { return append(j, filepath.Join(dir, "nope.journal")) }, ExitBadInput, "no such file"},
		{"empty", file(j, "run.journal", nil), ExitBadInput, "no header record"},
		{"no header", file(j, "run.journal", []byte(`{"type":"step","seq":1,"step":"a","status":"done"}`+"\n")), ExitBadInput, "no header record"},
		{"torn header", file(j, "run.journal", []byte(header[:60])), ExitBadInput, "no header record"},
		{"future format", file(j, "run.journal", []byte(strings.Replace(header, `"1.0"`, `"2.0"`, 1))), ExitBadInput, "not supported"},
		{"record without a type", file(j, "run.journal", []byte(header+`{"seq":2}`+"\n")), ExitBadInput, "record without a type"},
		{"garbage line", file(j, "run.journal", []byte(header+"not json\n")), ExitBadInput, "line 2"},
		{"wrong types", file(j, "run.journal", []byte(header+`{"type":"step","seq":"two"}`+"\n")), ExitBadInput, "line 2"},
		{"wrong kind: a plan", file(j, "run.journal", append(planJSON(t, nil), '\n')), ExitBadInput, "journal"},
		{"binary", file(j, "run.journal", append(binary(4096), '\n')), ExitBadInput, "line 1"},
		{"huge", func(t *testing.T, dir string) []string { return append(j, huge(t, dir, "run.journal")) }, ExitBadInput, "run.journal: larger than 256 MiB"},
		{"a directory", func(t *testing.T, dir string) []string { return append(j, dir) }, ExitBadInput, "is a directory"},
		{"symlink loop", func(t *testing.T, dir string) []string { return append(j, loop(t, dir, "run.journal")) }, ExitBadInput, "too many levels of symbolic links"},
		{"resume a garbage journal", func(t *testing.T, dir string) []string {
			return []string{"apply", "--yes", "--resume", write(t, dir, "run.journal", []byte("garbage\n"))}
		}, ExitBadInput, "not a journal record"},
	})
}

func TestBadPolicies(t *testing.T) {
	pol := append(append([]string{}, quickstart...), "--policy")
	head := "apiVersion: recover.openshift.io/v1alpha1\nkind: TransitionPolicy\n"
	runBadCases(t, []badCase{
		{"missing", func(t *testing.T, dir string) []string { return append(pol, filepath.Join(dir, "nope.yaml")) }, ExitBadInput, "cannot read policy"},
		{"empty", file(pol, "policy.yaml", nil), ExitBadInput, "want recover.openshift.io/v1alpha1 TransitionPolicy"},
		{"truncated", file(pol, "policy.yaml", []byte(head+"downgrades: [Nev")), ExitBadInput, "not a TransitionPolicy"},
		{"wrong types", file(pol, "policy.yaml", []byte(head+"maxMinorHop: one\n")), ExitBadInput, "not a TransitionPolicy"},
		{"unknown field", file(pol, "policy.yaml", []byte(head+"maxMajorHop: 1\n")), ExitBadInput, "unknown field"},
		{"duplicate field", file(pol, "policy.yaml", []byte(head+"downgrades: Never\ndowngrades: WithinMinor\n")), ExitBadInput, "not a TransitionPolicy"},
		{"wrong kind", file(pol, "policy.yaml", []byte("apiVersion: v1\nkind: ConfigMap\n")), ExitBadInput, "want recover.openshift.io/v1alpha1 TransitionPolicy"},
		{"wrong apiVersion", file(pol, "policy.yaml", []byte("apiVersion: recover.openshift.io/v2\nkind: TransitionPolicy\n")), ExitBadInput, "want recover.openshift.io/v1alpha1"},
		{"two minors per hop", file(pol, "policy.yaml", []byte(head+"maxMinorHop: 2\n")), ExitBadInput, "maxMinorHop 2"},
		{"unknown mode", file(pol, "policy.yaml", []byte(head+"downgrades: Sometimes\n")), ExitBadInput, "downgrades \"Sometimes\""},
		{"binary", file(pol, "policy.yaml", binary(4096)), ExitBadInput, "policy.yaml"},
		{"huge", func(t *testing.T, dir string) []string { return append(pol, huge(t, dir, "policy.yaml")) }, ExitBadInput, "policy.yaml: cannot read policy: larger than 1 MiB"},
		{"endless device", func(t *testing.T, dir string) []string { return append(pol, endless(t)) }, ExitBadInput, "cannot read policy: larger than 1 MiB"},
		{"a directory", func(t *testing.T, dir string) []string { return append(pol, dir) }, ExitBadInput, "is a directory"},
		{"symlink loop", func(t *testing.T, dir string) []string { return append(pol, loop(t, dir, "policy.yaml")) }, ExitBadInput, "too many levels of symbolic links"},
	})
}
