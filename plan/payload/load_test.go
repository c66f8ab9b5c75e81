package payload

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const (
	metadata44 = `{"kind": "cincinnati-metadata-v0", "version": "4.4.9", "previous": ["4.4.8"], "metadata": {"url": "https://example.com/errata"}}`
	imageRefs  = "apiVersion: image.openshift.io/v1\nkind: ImageStream\nmetadata:\n  name: 4.4.9\nspec:\n  tags:\n  - name: cli\n    from:\n      kind: DockerImage\n      name: quay.io/x/cli@sha256:aa\n"
	annotated  = "  annotations:\n    include.release.openshift.io/self-managed-high-availability: \"true\"\n"
)

// writePayload lays out a payload from relative path -> content; the two metadata
// files are added unless given (an empty string removes one).
func writePayload(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	all := map[string]string{
		"release-manifests/release-metadata": metadata44,
		"release-manifests/image-references": imageRefs,
		"manifests/.keep":                    "",
	}
	for k, v := range files {
		all[k] = v
	}
	for name, content := range all {
		if content == "" && name != "manifests/.keep" {
			continue
		}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadDirParsesAndRenders(t *testing.T) {
	dir := writePayload(t, map[string]string{
		"manifests/0000_00_cluster-version-operator_03_deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: cvo\n  namespace: openshift-cluster-version\n" + annotated +
			"spec:\n  template:\n    spec:\n      containers:\n      - image: '{{.ReleaseImage}}'\n        env:\n        - name: CLUSTER_PROFILE\n          value: '{{.ClusterProfile}}'\n        - name: CLI\n          value: '{{index .Images \"cli\"}}'\n",
		// Multi-document, with an empty document, a comment-only one and a "--- #" separator.
		"release-manifests/0000_50_a_01_multi.yaml": "# leading comment\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n  namespace: ns\n" + annotated + "---\n---  # second\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: two\n  namespace: ns\n" + annotated,
		"release-manifests/0000_50_a_02_objects.json": `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "three", "namespace": "ns", "annotations": {"include.release.openshift.io/self-managed-high-availability": "true"}}}
{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "four", "namespace": "ns", "annotations": {"release.openshift.io/delete": "true", "include.release.openshift.io/self-managed-high-availability": "true"}}}`,
		"release-manifests/0000_50_a_03_short.yml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: five\n  namespace: ns\n  annotations:\n    release.openshift.io/create-only: \"true\"\n    include.release.openshift.io/self-managed-high-availability: \"true\"\n",
		"release-manifests/README.md":              "not a manifest",
	})
	p, err := LoadDir(dir, Options{ReleaseImage: "quay.io/x/release@sha256:bb", Inclusion: Inclusion{Profile: "self-managed-high-availability"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Release.Version != "4.4.9" || p.VersionFrom != "release-metadata" || p.Release.Metadata["url"] != "https://example.com/errata" || !slices.Equal(p.Release.Previous, []string{"4.4.8"}) {
		t.Fatalf("release: %+v from %s", p.Release, p.VersionFrom)
	}
	if img, ok := p.Image("cli"); !ok || img != "quay.io/x/cli@sha256:aa" {
		t.Fatalf("image cli: %q", img)
	}
	var names []string
	for _, m := range p.Manifests {
		names = append(names, m.Name)
	}
	if !slices.Equal(names, []string{"cvo", "one", "two", "three", "four", "five"}) {
		t.Fatalf("manifests: %v", names)
	}
	cvo := p.Manifests[0]
	c := cvo.Object.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	env := c["env"].([]any)
	if c["image"] != "quay.io/x/release@sha256:bb" || env[0].(map[string]any)["value"] != "self-managed-high-availability" || env[1].(map[string]any)["value"] != "quay.io/x/cli@sha256:aa" || !cvo.Rendered {
		t.Fatalf("rendered CVO deployment: %v", c)
	}
	if !strings.Contains(string(cvo.JSON), "quay.io/x/release@sha256:bb") {
		t.Fatalf("JSON not rendered: %s", cvo.JSON)
	}
	two := p.Find("", "ConfigMap", "ns", "two")
	if two == nil || two.Index != 1 || two.Line != 12 || two.RunLevel != "50" || two.Component != "a" || two.Position() != "release-manifests/0000_50_a_01_multi.yaml#1" {
		t.Fatalf("second document: %+v", two)
	}
	if four := p.Find("", "ConfigMap", "ns", "four"); four == nil || !four.Delete || four.Index != 1 || four.Line != 2 {
		t.Fatalf("JSON stream document: %+v", four)
	}
	if five := p.Find("", "ConfigMap", "ns", "five"); five == nil || !five.CreateOnly {
		t.Fatalf("create-only: %+v", five)
	}
	if p.Rules != RulesLibraryGo || len(p.Included()) != 6 || !slices.Equal(p.Order.Linear(), p.Included()) {
		t.Fatalf("rules %s, %d included", p.Rules, len(p.Included()))
	}
}

func TestLoadDirBadInput(t *testing.T) {
	cm := func(name string, extra string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  namespace: ns\n  annotations:\n    include.release.openshift.io/self-managed-high-availability: \"true\"\n" + extra
	}
	for _, tc := range []struct {
		name  string
		files map[string]string
		opts  Options
		want  []string
	}{
		{"no release-metadata", map[string]string{"release-manifests/release-metadata": ""}, Options{}, []string{"release-manifests/release-metadata: missing", "--payload-version"}},
		{"release-metadata kind", map[string]string{"release-manifests/release-metadata": `{"kind": "x", "version": "4.4.9"}`}, Options{}, []string{"release-metadata: kind: unrecognized Cincinnati metadata kind"}},
		{"release-metadata json", map[string]string{"release-manifests/release-metadata": "{\n\"kind\": \n}"}, Options{}, []string{"release-metadata:3: malformed JSON"}},
		{"release-metadata version", map[string]string{"release-manifests/release-metadata": `{"kind": "cincinnati-metadata-v0", "version": "4.4"}`}, Options{}, []string{"invalid Cincinnati metadata version \"4.4\""}},
		{"image-references mismatch", map[string]string{"release-manifests/image-references": strings.Replace(imageRefs, "4.4.9", "4.4.8", 1)}, Options{}, []string{"image-references: metadata.name: version from image-references (4.4.8) differs from release-metadata (4.4.9)"}},
		{"no image-references", map[string]string{"release-manifests/image-references": ""}, Options{}, []string{"image-references: no such file"}},
		{"malformed yaml line", map[string]string{"release-manifests/0000_50_a_x.yaml": cm("a", "") + "---\n" + cm("b", "data:\n  k: [unclosed\n")}, Options{}, []string{"0000_50_a_x.yaml:17:", "malformed YAML"}},
		{"malformed json", map[string]string{"release-manifests/0000_50_a_x.json": "{\"kind\":\n\"ConfigMap\",,}"}, Options{}, []string{"0000_50_a_x.json:2: malformed JSON"}},
		{"no kind", map[string]string{"release-manifests/0000_50_a_x.yaml": "apiVersion: v1\nmetadata:\n  name: a\n"}, Options{}, []string{"0000_50_a_x.yaml:1: document 0 has no kind or metadata.name"}},
		{"not an object", map[string]string{"release-manifests/0000_50_a_x.yaml": "- a\n- b\n"}, Options{}, []string{"a manifest must be an object"}},
		{"duplicate", map[string]string{"release-manifests/0000_50_a_x.yaml": cm("a", "") + "---\n" + cm("a", "")}, Options{}, []string{"duplicate resource v1 ConfigMap ns/a"}},
		{"delete value", map[string]string{"release-manifests/0000_50_a_x.yaml": strings.Replace(cm("a", ""), "annotations:\n", "annotations:\n    release.openshift.io/delete: \"yes\"\n", 1)}, Options{}, []string{"0000_50_a_x.yaml:1: metadata.annotations[release.openshift.io/delete]: value \"yes\""}},
		{"template", map[string]string{"manifests/0000_00_cvo_x.yaml": cm("a", "data:\n  x: '{{.Nope}}'\n")}, Options{}, []string{"manifests/0000_00_cvo_x.yaml: the CVO cannot render this template", "Nope"}},
		{"version disagrees", nil, Options{Version: "4.4.8"}, []string{"release-metadata says 4.4.9 but --payload-version says 4.4.8"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadDir(writePayload(t, tc.files), tc.opts)
			var ie *InputError
			if !errors.As(err, &ie) || !ie.BadInput() || strings.Contains(err.Error(), "\n") {
				t.Fatalf("want one-line *InputError, got %T %v", err, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	if _, err := LoadDir(filepath.Join(t.TempDir(), "nope"), Options{}); err == nil || !strings.Contains(err.Error(), "oc adm release extract") {
		t.Fatalf("missing dir: %v", err)
	}
}

func TestLoadBareTreeWithVersion(t *testing.T) {
	dir := writePayload(t, map[string]string{
		"release-manifests/release-metadata": "", "release-manifests/image-references": "",
		"release-manifests/0000_50_a_x.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: ns\n",
	})
	p, err := LoadDir(dir, Options{Version: "4.4.0"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Release.Version != "4.4.0" || p.VersionFrom != "option" || p.Rules != RulesPreProfiles || !p.Manifests[0].Decision.Included {
		t.Fatalf("bare tree: %+v rules %s %+v", p.Release, p.Rules, p.Manifests[0].Decision)
	}
	// Forcing library-go rules on a pre-profile payload excludes everything.
	p, err = LoadDir(dir, Options{Version: "4.4.0", Inclusion: Inclusion{Rules: RulesLibraryGo}})
	if err != nil || p.Manifests[0].Decision.Rule != RuleNoAnnotations {
		t.Fatalf("library-go rules: %v %+v", err, p.Manifests[0].Decision)
	}
}

func TestIsPullSpec(t *testing.T) {
	for s, want := range map[string]bool{
		"quay.io/openshift-release-dev/ocp-release@sha256:baa6": true,
		"localhost/release:4.4.4":                               true,
		"127.0.0.1:5000/release@sha256:aa":                      true,
		"releases/4.4.4":                                        false,
		"./payload":                                             false,
		".":                                                     false,
	} {
		if got := IsPullSpec(s); got != want {
			t.Errorf("IsPullSpec(%q) = %v", s, got)
		}
	}
}
