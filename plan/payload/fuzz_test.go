package payload

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openshift-recover/recover/internal/openshift"

	"github.com/openshift-recover/recover/internal/testing/inputcheck"
)

// The fuzz targets of the payload loader (docs/reliability.md). Seeds: f.Add calls
// and testdata/fuzz/<name>/.

var examplePayload = filepath.Join("..", "..", "examples", "reconciled-4.3-to-4.4", "releases", "4.4.4")

func readExample(f *testing.F, rel string) []byte {
	f.Helper()
	data, err := os.ReadFile(filepath.Join(examplePayload, rel))
	if err != nil {
		f.Fatal(err)
	}
	return data
}

// FuzzDecodeFile feeds arbitrary bytes to the manifest parser as a .yaml or .json
// payload file. A failure must be a one-line bad-input error; every manifest read
// must carry kind, name, a valid apiVersion and a line inside the file, and the
// manifests written back as a JSON stream must parse to the same objects.
func FuzzDecodeFile(f *testing.F) {
	f.Add(readExample(f, "release-manifests/0000_20_kube-apiserver-operator_06_deployment.yaml"), false)
	f.Add(readExample(f, "release-manifests/0000_20_kube-apiserver-operator_03_rbac.yaml"), false)
	f.Add(readExample(f, "manifests/0000_00_cluster-version-operator_01_clusterversion.crd.yaml"), false)
	f.Add([]byte("# comment\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: n}\n--- # c\n\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: n, annotations: {release.openshift.io/delete: \"true\", capability.openshift.io/name: A+B}}\n"), false)
	f.Add([]byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}} {"apiVersion":"v1","kind":"Namespace","metadata":{"name":"b","annotations":{"release.openshift.io/create-only":"true"}}}`), true)
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"), false)
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations: {release.openshift.io/delete: \"yes\"}\n"), false)
	f.Add([]byte("apiVersion: a/b/c\nkind: X\nmetadata: {name: a}\n"), false)
	f.Add([]byte("- a\n- b\n"), false)
	f.Add([]byte("key: [unclosed\n"), false)
	f.Add([]byte(`{"kind":"X","metadata":{"name":1}}`), true)
	f.Add([]byte{'{', 0, 0xff}, true)
	f.Fuzz(func(t *testing.T, data []byte, asJSON bool) {
		file := "0000_50_fuzz_01_x.yaml"
		if asJSON {
			file = "0000_50_fuzz_01_x.json"
		}
		var ms []*Manifest
		var err error
		inputcheck.Within(t, 20*time.Second, "decodeFile", func() { ms, err = decodeFile("release-manifests", file, data) })
		if err != nil {
			if p := inputcheck.Problem(err); p != "" {
				t.Fatal(p)
			}
			return
		}
		lines := bytes.Count(data, []byte{'\n'}) + 1
		var stream bytes.Buffer
		for i, m := range ms {
			if m.Kind == "" || m.Name == "" || m.APIVersion == "" || m.Object == nil {
				t.Fatalf("manifest %d read without kind, name, apiVersion or object: %+v", i, m)
			}
			if m.Index != i || m.Line < 1 || m.Line > lines {
				t.Fatalf("manifest %d: index %d, line %d of a %d-line file", i, m.Index, m.Line, lines)
			}
			if m.Delete && m.Annotations[openshift.AnnotationDelete] != "true" {
				t.Fatalf("manifest %d marked Delete without the annotation", i)
			}
			if !json.Valid(m.JSON) {
				t.Fatalf("manifest %d: JSON is not valid: %q", i, m.JSON)
			}
			stream.Write(m.JSON)
			stream.WriteByte('\n')
		}
		again, err := decodeFile("release-manifests", "0000_50_fuzz_01_x.json", stream.Bytes())
		if err != nil {
			t.Fatalf("manifests written back as JSON do not parse: %v", err)
		}
		if len(again) != len(ms) {
			t.Fatalf("round trip: %d manifests, then %d", len(ms), len(again))
		}
		for i := range ms {
			if ms[i].Ref() != again[i].Ref() || !bytes.Equal(compact(t, ms[i].JSON), compact(t, again[i].JSON)) {
				t.Fatalf("round trip changed manifest %d: %s\n%s\n%s", i, ms[i].Ref(), ms[i].JSON, again[i].JSON)
			}
		}
	})
}

func compact(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, data); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// FuzzLoadDir builds a payload directory from arbitrary release-metadata,
// image-references and CVO template contents and loads it: a failure must be a
// one-line bad-input error, and a payload that loads must have a release version
// and an order that holds exactly its included manifests.
func FuzzLoadDir(f *testing.F) {
	meta := readExample(f, "release-manifests/release-metadata")
	refs := readExample(f, "release-manifests/image-references")
	tmpl := readExample(f, "manifests/0000_00_cluster-version-operator_03_deployment.yaml")
	f.Add(meta, refs, tmpl, "")
	f.Add([]byte(`{"kind":"cincinnati-metadata-v0","version":"4.4.4","metadata":{"n":1,"o":{"a":[1]}}}`), refs, []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: '{{.ReleaseImage}}x'}\n"), "")
	f.Add(meta, []byte("apiVersion: image.openshift.io/v1\nkind: ImageStream\nmetadata: {name: 4.4.4}\nspec: {tags: [{name: a}]}\n"), tmpl, "")
	f.Add([]byte("not json"), refs, tmpl, "4.4.4")
	f.Add(meta, refs, []byte("{{.Missing}}"), "")
	f.Add(meta, refs, []byte("{{range .Images}}{{.}}{{end}}"), "4.4.5")
	f.Add([]byte(`{"kind":"cincinnati-metadata-v0","version":"4.4"}`), refs, tmpl, "")
	f.Fuzz(func(t *testing.T, metadata, imageRefs, template []byte, version string) {
		if inputcheck.LineProblem("v"+version) != "" {
			t.Skip("--payload-version is typed by the user, not read from a file")
		}
		dir := t.TempDir()
		for name, data := range map[string][]byte{
			"manifests/0000_00_cluster-version-operator_03_deployment.yaml":   template,
			"release-manifests/release-metadata":                              metadata,
			"release-manifests/image-references":                              imageRefs,
			"release-manifests/0000_50_fuzz-operator_00_namespace.yaml":       []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: fuzz\n  annotations: {include.release.openshift.io/self-managed-high-availability: \"true\"}\n"),
			"release-manifests/0000_50_fuzz-operator_01_excluded.yaml":        []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: fuzz-excluded}\n"),
			"release-manifests/0000_50_fuzz-operator_02_job.yaml":             []byte("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  namespace: fuzz\n  annotations: {include.release.openshift.io/self-managed-high-availability: \"true\"}\n"),
			"release-manifests/0000_60_other-operator_00_namespace.yaml.orig": []byte("not read"),
		} {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var p *Payload
		var err error
		inputcheck.Within(t, 20*time.Second, "LoadDir", func() {
			p, err = LoadDir(dir, Options{ReleaseImage: "quay.io/openshift-release-dev/ocp-release@sha256:" + strings.Repeat("0", 64), Version: version})
		})
		if err != nil {
			if pr := inputcheck.Problem(err); pr != "" {
				t.Fatal(pr)
			}
			return
		}
		if p.Release.Version == "" {
			t.Fatal("a loaded payload has no release version")
		}
		if got, want := len(p.Order.Linear()), len(p.Included()); got != want {
			t.Fatalf("the order holds %d manifests, %d are included", got, want)
		}
		for _, m := range p.Order.Linear() {
			if !m.Decision.Included {
				t.Fatalf("%s is in the order but excluded: %s", m.Ref(), m.Decision.Reason)
			}
		}
	})
}
