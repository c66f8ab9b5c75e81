package main

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/version"
	"sigs.k8s.io/yaml"
)

// The krew plugin manifest, as krew's pkg/index/types.go defines it (the fields
// recover fills). sigs.k8s.io/krew can't be imported: it pins a client-go far older
// than recover's.
type (
	krewPlugin struct {
		APIVersion string         `json:"apiVersion"`
		Kind       string         `json:"kind"`
		Metadata   krewMetadata   `json:"metadata"`
		Spec       krewPluginSpec `json:"spec"`
	}
	krewMetadata struct {
		Name string `json:"name"`
	}
	krewPluginSpec struct {
		Version          string         `json:"version,omitempty"`
		Homepage         string         `json:"homepage,omitempty"`
		ShortDescription string         `json:"shortDescription,omitempty"`
		Description      string         `json:"description,omitempty"`
		Caveats          string         `json:"caveats,omitempty"`
		Platforms        []krewPlatform `json:"platforms,omitempty"`
	}
	krewPlatform struct {
		Selector *metav1.LabelSelector `json:"selector,omitempty"`
		URI      string                `json:"uri,omitempty"`
		Sha256   string                `json:"sha256,omitempty"`
		Bin      string                `json:"bin"`
		Files    []krewFileOperation   `json:"files"`
	}
	krewFileOperation struct {
		From string `json:"from,omitempty"`
		To   string `json:"to,omitempty"`
	}
)

const (
	krewAPIVersion = "krew.googlecontainertools.github.com/v1alpha2"
	krewKind       = "Plugin"
)

// releaseURI is where a tagged release's archive is published.
func releaseURI(version, archive string) string {
	return homepage + "/releases/download/" + version + "/" + archive
}

// krewManifest is the plugin manifest for the archives in sums; shared are the
// archive entries besides the binary, each top-level one installed as it is.
func krewManifest(ver string, sums []archiveSum, shared []entry) krewPlugin {
	files := []krewFileOperation{{From: binName, To: "."}}
	seen := map[string]bool{}
	for _, e := range shared {
		top, _, _ := strings.Cut(e.Name, "/")
		if !seen[top] {
			seen[top] = true
			files = append(files, krewFileOperation{From: top, To: "."})
		}
	}
	m := krewPlugin{
		APIVersion: krewAPIVersion,
		Kind:       krewKind,
		Metadata:   krewMetadata{Name: binName},
		Spec: krewPluginSpec{
			Version:          ver,
			Homepage:         homepage,
			ShortDescription: "Get a wedged OpenShift cluster update back onto a safe path",
			Description: `recover inspects an OpenShift cluster (live, or offline from a must-gather or
an Insights archive), finds where the cluster's claims and reality disagree,
plans the nearest safe next-hop release with a manifest-by-manifest order, and
applies that plan with the cluster-version operator disabled: locked, journaled,
verified and resumable.
`,
			Caveats: `To run it as "oc recover" as well, link the plugin under oc's name:
  ln -s "$(command -v kubectl-recover)" "$(dirname "$(command -v kubectl-recover)")/oc-recover"
Man pages and shell completions are in the plugin's directory under
$KREW_ROOT/store/recover/<version>/ (man/, completions/).
`,
		},
	}
	for _, s := range sums {
		m.Spec.Platforms = append(m.Spec.Platforms, krewPlatform{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"os": s.Platform.OS, "arch": s.Platform.Arch}},
			URI:      releaseURI(ver, s.Name),
			Sha256:   s.SHA256,
			Bin:      binName,
			Files:    slices.Clone(files),
		})
	}
	return m
}

func marshalManifest(m krewPlugin) ([]byte, error) { return yaml.Marshal(m) }

// parseManifest reads a manifest strictly: a field krew does not know is an error.
func parseManifest(b []byte) (krewPlugin, error) {
	var m krewPlugin
	err := yaml.UnmarshalStrict(b, &m)
	return m, err
}

// validateKrew checks a plugin manifest, to be published as <name>.yaml, against
// krew's rules, and returns every rule it breaks. The rules are restated from
// kubernetes-sigs/krew at db921d5 (2026-05-16), since its module can't be imported:
//
//   - internal/index/validation/validate.go (ValidatePlugin, validatePlatform,
//     validateFiles, validateSelector): apiVersion and kind; a name matching
//     ^[\w-]+$ that is no Windows device name, equal to metadata.name; a
//     shortDescription without line breaks; a version; at least one platform; per
//     platform a uri, a sha256 of 64 lowercase hex digits, a bin, files either
//     unset or non-empty with from and to set, and a selector that is set, not
//     empty, uses only the keys os and arch, and has no empty matchLabels or
//     matchExpressions.
//   - internal/installation/semver/version.go (Parse): the version starts with v
//     and parses as semver (k8s.io/apimachinery's ParseSemantic).
//   - cmd/validate-krew-manifest/main.go: every selector selects one of krew's
//     supported os/arch pairs, no two platforms select the same pair, and an
//     installed plugin has a license file (checked when requireLicense).
//   - internal/installation/move.go and install.go: files[].to is a clean path,
//     files[].from matches something in the archive, and bin names a file of the
//     installed tree inside the plugin's directory.
//
// Two more rules are recover's own, not krew's: uri and homepage are https.
//
// archives, when not nil, maps each archive's sha256 to its entry names
// (directories end in /); a platform whose sha256 is not in it is an error, and the
// files and bin rules are checked against the archive's entries.
func validateKrew(name string, m krewPlugin, archives map[string][]string) []error {
	return validateKrewOpts(name, m, archives, false)
}

func validateKrewOpts(name string, m krewPlugin, archives map[string][]string, requireLicense bool) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if m.APIVersion != krewAPIVersion {
		bad("apiVersion %q, want %q", m.APIVersion, krewAPIVersion)
	}
	if m.Kind != krewKind {
		bad("kind %q, want %q", m.Kind, krewKind)
	}
	if !safePluginName(name) {
		bad("plugin name %q must match %s and be no Windows device name", name, safePluginRegexp)
	}
	if m.Metadata.Name != name {
		bad("metadata.name %q, want %q (the manifest's file name)", m.Metadata.Name, name)
	}
	if m.Spec.ShortDescription == "" {
		bad("spec.shortDescription is empty")
	}
	if strings.ContainsAny(m.Spec.ShortDescription, "\r\n") {
		bad("spec.shortDescription has a line break")
	}
	if len(m.Spec.Platforms) == 0 {
		bad("spec.platforms is empty")
	}
	if m.Spec.Version == "" {
		bad("spec.version is empty")
	} else if err := validKrewVersion(m.Spec.Version); err != nil {
		bad("spec.version: %v", err)
	}
	if !strings.HasPrefix(m.Spec.Homepage, "https://") {
		bad("spec.homepage %q is not https", m.Spec.Homepage)
	}
	selected := map[string][]int{}
	for i, p := range m.Spec.Platforms {
		pbad := func(format string, args ...any) { bad("spec.platforms[%d]: "+format, append([]any{i}, args...)...) }
		switch {
		case p.URI == "":
			pbad("uri is empty")
		case !strings.HasPrefix(p.URI, "https://"):
			pbad("uri %q is not https", p.URI)
		}
		if p.Sha256 == "" {
			pbad("sha256 is empty")
		} else if !validSHA256.MatchString(p.Sha256) {
			pbad("sha256 %q must match %s", p.Sha256, validSHA256)
		}
		if p.Bin == "" {
			pbad("bin is empty")
		}
		if p.Files != nil && len(p.Files) == 0 {
			pbad("files is set but empty")
		}
		for j, f := range p.Files {
			if f.From == "" {
				pbad("files[%d].from is empty", j)
			}
			if f.To == "" {
				pbad("files[%d].to is empty", j)
			} else if path.Clean(f.To) != f.To {
				pbad("files[%d].to %q is not clean (%q)", j, f.To, path.Clean(f.To))
			}
		}
		if err := validateSelector(p.Selector); err != nil {
			pbad("selector: %v", err)
		} else {
			n := 0
			for _, pair := range krewPlatforms {
				if selectorMatches(p.Selector, pair) {
					selected[pair.String()] = append(selected[pair.String()], i)
					n++
				}
			}
			if n == 0 {
				pbad("selector %v selects none of krew's platforms", p.Selector)
			}
		}
		if archives != nil {
			entries, ok := archives[p.Sha256]
			if !ok {
				pbad("sha256 %s is no archive of this release", p.Sha256)
				continue
			}
			for _, err := range checkInstall(p, entries, requireLicense) {
				pbad("%v", err)
			}
		}
	}
	for _, pair := range krewPlatforms {
		if idx := selected[pair.String()]; len(idx) > 1 {
			bad("spec.platforms %v all select %s", idx, pair)
		}
	}
	return errs
}

var (
	safePluginRegexp = regexp.MustCompile(`^[\w-]+$`)
	validSHA256      = regexp.MustCompile(`^[a-f0-9]{64}$`)
	windowsDevices   = []string{"CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9"}
	// krewPlatforms are the os/arch pairs krew's manifest validator accepts.
	krewPlatforms = []platform{
		{"windows", "386"}, {"windows", "amd64"}, {"windows", "arm64"},
		{"linux", "386"}, {"linux", "amd64"}, {"linux", "arm"}, {"linux", "arm64"}, {"linux", "ppc64le"},
		{"darwin", "386"}, {"darwin", "amd64"}, {"darwin", "arm64"},
	}
	licenseNames = []string{"license", "license.txt", "license.md", "licenses", "licenses.txt", "licenses.md", "copying", "copying.txt"}
)

func safePluginName(name string) bool {
	if !safePluginRegexp.MatchString(name) {
		return false
	}
	for _, d := range windowsDevices {
		if strings.EqualFold(d, name) {
			return false
		}
	}
	return true
}

// validKrewVersion is krew's version rule: a leading v, then semver.
func validKrewVersion(v string) error {
	if !strings.HasPrefix(v, "v") {
		return fmt.Errorf("%q does not start with v", v)
	}
	_, err := version.ParseSemantic(v)
	return err
}

func validateSelector(sel *metav1.LabelSelector) error {
	if sel == nil {
		return fmt.Errorf("not set")
	}
	if sel.MatchLabels == nil && len(sel.MatchExpressions) == 0 {
		return fmt.Errorf("empty")
	}
	for k := range sel.MatchLabels {
		if k != "os" && k != "arch" {
			return fmt.Errorf("key %q is not os or arch", k)
		}
	}
	for _, e := range sel.MatchExpressions {
		if e.Key != "os" && e.Key != "arch" {
			return fmt.Errorf("key %q is not os or arch", e.Key)
		}
	}
	if sel.MatchLabels != nil && len(sel.MatchLabels) == 0 {
		return fmt.Errorf("matchLabels is set but empty")
	}
	if sel.MatchExpressions != nil && len(sel.MatchExpressions) == 0 {
		return fmt.Errorf("matchExpressions is set but empty")
	}
	return nil
}

func selectorMatches(sel *metav1.LabelSelector, p platform) bool {
	s, err := metav1.LabelSelectorAsSelector(sel)
	return err == nil && s.Matches(labels.Set{"os": p.OS, "arch": p.Arch})
}

// checkInstall replays krew's file moves over an archive's entries: each from is
// a path in the archive (a file, or a directory with what it holds) or else a
// glob over the archive's paths; what it matches lands at to (to "." keeps the
// base name). bin must then name an installed file, inside the plugin directory.
func checkInstall(p krewPlatform, entries []string, requireLicense bool) []error {
	var errs []error
	files := p.Files
	if files == nil {
		files = []krewFileOperation{{From: "*", To: "."}} // krew's default
	}
	has := map[string]bool{}
	for _, e := range entries {
		has[e] = true
	}
	installed := map[string]bool{}
	place := func(src, dst string) { // src: a file, or a directory ending in /
		if !strings.HasSuffix(src, "/") {
			installed[dst] = true
			return
		}
		for _, e := range entries {
			if rest, ok := strings.CutPrefix(e, src); ok && rest != "" && !strings.HasSuffix(rest, "/") {
				installed[path.Join(dst, rest)] = true
			}
		}
	}
	for j, f := range files {
		if f.From == "" || f.To == "" {
			continue // reported by the manifest rules
		}
		from := path.Clean(f.From)
		if strings.HasPrefix(from, "../") || from == ".." || path.IsAbs(from) || strings.HasPrefix(path.Clean(f.To), "..") || path.IsAbs(f.To) {
			errs = append(errs, fmt.Errorf("files[%d] %s -> %s leaves the archive or the plugin directory", j, f.From, f.To))
			continue
		}
		direct := ""
		if has[from] {
			direct = from
		} else if has[from+"/"] {
			direct = from + "/"
		}
		if direct != "" {
			dst := f.To
			if path.Clean(f.To) == "." {
				dst = path.Base(from)
			}
			place(direct, dst)
			continue
		}
		n := 0
		for _, e := range entries {
			name := strings.TrimSuffix(e, "/")
			if ok, _ := path.Match(from, name); ok {
				place(e, path.Join(f.To, path.Base(name)))
				n++
			}
		}
		if n == 0 {
			errs = append(errs, fmt.Errorf("files[%d].from %q matches nothing in the archive", j, f.From))
		}
	}
	if p.Bin != "" {
		bin := path.Clean(p.Bin)
		switch {
		case path.IsAbs(bin) || bin == ".." || strings.HasPrefix(bin, "../"):
			errs = append(errs, fmt.Errorf("bin %q is outside the plugin directory", p.Bin))
		case !installed[bin]:
			errs = append(errs, fmt.Errorf("bin %q is not among the installed files", p.Bin))
		}
	}
	if requireLicense {
		found := false
		for f := range installed {
			if slices.Contains(licenseNames, strings.ToLower(path.Base(f))) {
				found = true
			}
		}
		if !found {
			errs = append(errs, fmt.Errorf("no license file (LICENSE or alike) is installed"))
		}
	}
	return errs
}
