package main

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const testSHA = "df92225d6570c2a1e5e16b4084c1fe75604c669084d01133c665a834eb83cfc5"

// testManifest is what the release writes for two platforms, with the archives'
// entries.
func testManifest() (krewPlugin, map[string][]string) {
	shared := []entry{{Name: "README.md"}, {Name: "man/"}, {Name: "man/man1/"}, {Name: "man/man1/recover.1"}, {Name: "completions/"}, {Name: "completions/recover.bash"}}
	other := strings.Repeat("0", 64)
	sums := []archiveSum{
		{Platform: platform{"linux", "amd64"}, Name: "a.tar.gz", SHA256: testSHA},
		{Platform: platform{"darwin", "arm64"}, Name: "b.tar.gz", SHA256: other},
	}
	files := entryNames(append([]entry{{Name: binName}}, shared...))
	return krewManifest("v0.1.0", sums, shared), map[string][]string{testSHA: files, other: files}
}

func TestKrewManifestValid(t *testing.T) {
	m, archives := testManifest()
	if errs := validateKrew("recover", m, archives); len(errs) > 0 {
		t.Fatalf("the release's manifest breaks krew's rules: %v", errs)
	}
	// It survives the YAML round trip, read strictly.
	y, err := marshalManifest(m)
	if err != nil {
		t.Fatal(err)
	}
	back, err := parseManifest(y)
	if err != nil {
		t.Fatalf("reading the manifest back: %v\n%s", err, y)
	}
	if errs := validateKrew("recover", back, archives); len(errs) > 0 {
		t.Fatalf("after the round trip: %v", errs)
	}
	// A license is required only when asked for, and then found.
	if errs := validateKrewOpts("recover", m, archives, true); len(errs) != 2 || !strings.Contains(errs[0].Error(), "license") {
		t.Errorf("without a LICENSE in the archives, want one license error per platform, got %v", errs)
	}
	for sha := range archives {
		archives[sha] = append(archives[sha], "LICENSE")
	}
	m = krewManifest("v0.1.0", []archiveSum{{Platform: platform{"linux", "amd64"}, SHA256: testSHA}}, []entry{{Name: "LICENSE"}, {Name: "README.md"}})
	if errs := validateKrewOpts("recover", m, archives, true); len(errs) > 0 {
		t.Errorf("with LICENSE installed: %v", errs)
	}
}

// TestKrewValidatorRejects proves each rule bites: one breakage per case, and the
// error must name it.
func TestKrewValidatorRejects(t *testing.T) {
	sel := func(labels map[string]string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: labels}
	}
	cases := []struct {
		name   string
		plugin string // default recover
		break_ func(m *krewPlugin)
		want   string
	}{
		{"apiVersion", "", func(m *krewPlugin) { m.APIVersion = "krew.googlecontainertools.github.com/v1alpha1" }, "apiVersion"},
		{"kind", "", func(m *krewPlugin) { m.Kind = "Plugins" }, "kind"},
		{"unsafe name", "re/cover", func(m *krewPlugin) { m.Metadata.Name = "re/cover" }, "plugin name"},
		{"windows device name", "nul", func(m *krewPlugin) { m.Metadata.Name = "nul" }, "plugin name"},
		{"name differs from file", "", func(m *krewPlugin) { m.Metadata.Name = "recover2" }, "metadata.name"},
		{"no short description", "", func(m *krewPlugin) { m.Spec.ShortDescription = "" }, "shortDescription is empty"},
		{"short description on two lines", "", func(m *krewPlugin) { m.Spec.ShortDescription = "a\nb" }, "line break"},
		{"no version", "", func(m *krewPlugin) { m.Spec.Version = "" }, "version is empty"},
		{"version without v", "", func(m *krewPlugin) { m.Spec.Version = "0.1.0" }, "start with v"},
		{"version not semver", "", func(m *krewPlugin) { m.Spec.Version = "v0.1" }, "spec.version"},
		{"bare git hash", "", func(m *krewPlugin) { m.Spec.Version = "4074b17" }, "spec.version"},
		{"homepage http", "", func(m *krewPlugin) { m.Spec.Homepage = "http://example.com" }, "homepage"},
		{"no platforms", "", func(m *krewPlugin) { m.Spec.Platforms = nil }, "platforms is empty"},
		{"no uri", "", func(m *krewPlugin) { m.Spec.Platforms[0].URI = "" }, "uri is empty"},
		{"http uri", "", func(m *krewPlugin) { m.Spec.Platforms[0].URI = "http://example.com/a.tar.gz" }, "not https"},
		{"no sha256", "", func(m *krewPlugin) { m.Spec.Platforms[0].Sha256 = "" }, "sha256 is empty"},
		{"uppercase sha256", "", func(m *krewPlugin) { m.Spec.Platforms[0].Sha256 = strings.ToUpper(testSHA) }, "must match"},
		{"short sha256", "", func(m *krewPlugin) { m.Spec.Platforms[0].Sha256 = testSHA[:63] }, "must match"},
		{"sha256 of no archive", "", func(m *krewPlugin) { m.Spec.Platforms[0].Sha256 = strings.Repeat("1", 64) }, "no archive"},
		{"no bin", "", func(m *krewPlugin) { m.Spec.Platforms[0].Bin = "" }, "bin is empty"},
		{"bin not installed", "", func(m *krewPlugin) { m.Spec.Platforms[0].Bin = "kubectl-recover" }, "not among the installed"},
		{"bin outside", "", func(m *krewPlugin) { m.Spec.Platforms[0].Bin = "../recover" }, "outside"},
		{"files empty", "", func(m *krewPlugin) { m.Spec.Platforms[0].Files = []krewFileOperation{} }, "files is set but empty"},
		{"files from empty", "", func(m *krewPlugin) { m.Spec.Platforms[0].Files[1].From = "" }, "from is empty"},
		{"files to empty", "", func(m *krewPlugin) { m.Spec.Platforms[0].Files[1].To = "" }, "to is empty"},
		{"files to not clean", "", func(m *krewPlugin) { m.Spec.Platforms[0].Files[1].To = "./docs/" }, "not clean"},
		{"files from missing", "", func(m *krewPlugin) { m.Spec.Platforms[0].Files[1].From = "LICENSE" }, "matches nothing"},
		{"files escape", "", func(m *krewPlugin) { m.Spec.Platforms[0].Files[1].To = "../x" }, "leaves"},
		{"no selector", "", func(m *krewPlugin) { m.Spec.Platforms[0].Selector = nil }, "selector: not set"},
		{"empty selector", "", func(m *krewPlugin) { m.Spec.Platforms[0].Selector = &metav1.LabelSelector{} }, "selector: empty"},
		{"empty matchLabels", "", func(m *krewPlugin) {
			m.Spec.Platforms[0].Selector = &metav1.LabelSelector{MatchLabels: map[string]string{}, MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "os", Operator: metav1.LabelSelectorOpIn, Values: []string{"linux"}}}}
		}, "matchLabels is set but empty"},
		{"unsupported key", "", func(m *krewPlugin) {
			m.Spec.Platforms[0].Selector = sel(map[string]string{"os": "linux", "distro": "rhel"})
		}, `key "distro"`},
		{"selects nothing", "", func(m *krewPlugin) {
			m.Spec.Platforms[0].Selector = sel(map[string]string{"os": "plan9", "arch": "amd64"})
		}, "selects none"},
		{"overlapping selectors", "", func(m *krewPlugin) { m.Spec.Platforms[1].Selector = sel(map[string]string{"os": "linux"}) }, "all select linux/amd64"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, archives := testManifest()
			c.break_(&m)
			name := c.plugin
			if name == "" {
				name = "recover"
			}
			errs := validateKrew(name, m, archives)
			for _, err := range errs {
				if strings.Contains(err.Error(), c.want) {
					return
				}
			}
			t.Errorf("want an error containing %q, got %v", c.want, errs)
		})
	}
}

func TestReleaseVersion(t *testing.T) {
	for describe, want := range map[string]string{
		"v0.3.0":                  "v0.3.0",
		"v0.3.0-2-gabc1234-dirty": "v0.3.0-2-gabc1234-dirty",
		"4074b17":                 "v0.0.0-g4074b17",
		"4074b17-dirty":           "v0.0.0-g4074b17-dirty",
		"0123456":                 "v0.0.0-g0123456",
	} {
		got := releaseVersion(describe)
		if got != want {
			t.Errorf("releaseVersion(%q) = %q, want %q", describe, got, want)
		}
		if err := validKrewVersion(got); err != nil {
			t.Errorf("releaseVersion(%q) = %q, which krew refuses: %v", describe, got, err)
		}
	}
}
