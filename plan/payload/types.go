package payload

import (
	"encoding/json"
	"fmt"

	configv1 "github.com/openshift/api/config/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The payload layout (CVO pkg/payload/payload.go).
const (
	ManifestDir         = "manifests"
	ReleaseManifestDir  = "release-manifests"
	ReleaseMetadataFile = "release-metadata"
	ImageReferencesFile = "image-references"

	// DefaultClusterProfile is the CVO's profile when CLUSTER_PROFILE is unset.
	DefaultClusterProfile = "self-managed-high-availability"
)

// The annotations that decide inclusion and apply semantics.
const (
	AnnotationExcludePrefix = "exclude.release.openshift.io/"
	AnnotationIncludePrefix = "include.release.openshift.io/"
	AnnotationCapability    = "capability.openshift.io/name"
)

// Payload is a loaded release payload.
type Payload struct {
	// Source is the directory or pull spec it was loaded from; Dir the directory read
	// (the cache directory for a pulled image); Digest the image digest, if pulled.
	Source string `json:"source"`
	Dir    string `json:"dir"`
	Digest string `json:"digest,omitempty"`
	// DirDigest is dirdigest.Sum(Dir), when Options.DirDigest or Options.CacheDir asked
	// for it and every file could be read; "" otherwise.
	DirDigest string `json:"-"`
	// Release is release-metadata; VersionFrom says where Release.Version came from:
	// "release-metadata", or "option" for a bare manifest tree loaded with
	// Options.Version.
	Release     Release `json:"release"`
	VersionFrom string  `json:"versionFrom"`
	// ReleaseImage is the pull spec the CVO templates were rendered with.
	ReleaseImage string `json:"releaseImage,omitempty"`
	// Images is image-references: component name -> pull spec, in file order.
	Images []ImageRef `json:"images,omitempty"`
	// Inclusion is the effective inclusion input (defaults filled in) and Rules the
	// rule set that was applied (RulesLibraryGo or RulesPreProfiles).
	Inclusion Inclusion `json:"inclusion"`
	Rules     RuleSet   `json:"rules"`
	// Manifests are every manifest, included or not, in payload order.
	Manifests []*Manifest `json:"manifests"`
	// Order is the CVO update order of the included manifests.
	Order Order `json:"order"`
	// Warnings are oddities that did not stop the load.
	Warnings []string `json:"warnings,omitempty"`
}

// Release is the release-metadata document (kind cincinnati-metadata-v0).
type Release struct {
	Version  string            `json:"version"`
	Previous []string          `json:"previous,omitempty"`
	Next     []string          `json:"next,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

// ImageRef is one image-references tag.
type ImageRef struct {
	Name string `json:"name"`
	From string `json:"from"`
}

// Image returns the pull spec image-references gives for a component name.
func (p *Payload) Image(name string) (string, bool) {
	for _, r := range p.Images {
		if r.Name == name {
			return r.From, true
		}
	}
	return "", false
}

// Included returns the included manifests in payload order (which is also the
// order of Order.Linear).
func (p *Payload) Included() []*Manifest {
	var out []*Manifest
	for _, m := range p.Manifests {
		if m.Decision.Included {
			out = append(out, m)
		}
	}
	return out
}

// Find returns the first manifest with the given identity (group "" for the core
// group; namespace "" for cluster-scoped objects).
func (p *Payload) Find(group, kind, namespace, name string) *Manifest {
	for _, m := range p.Manifests {
		if m.Group == group && m.Kind == kind && m.Namespace == namespace && m.Name == name {
			return m
		}
	}
	return nil
}

// Manifest is one document of a payload file.
type Manifest struct {
	// Dir is ManifestDir or ReleaseManifestDir; File the file name; Index the
	// document's position in the file (0-based); Line the line it starts on.
	Dir   string `json:"dir"`
	File  string `json:"file"`
	Index int    `json:"index"`
	Line  int    `json:"line"`
	// RunLevel ("20") and Component ("kube-apiserver-operator") come from the file
	// name; both are empty when it does not match the CVO's pattern.
	RunLevel  string `json:"runLevel,omitempty"`
	Component string `json:"component,omitempty"`
	// The object's identity.
	APIVersion string `json:"apiVersion"`
	Group      string `json:"group,omitempty"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
	// Annotations are the object's annotations.
	Annotations map[string]string `json:"annotations,omitempty"`
	// CreateOnly is release.openshift.io/create-only=true: create, never update.
	CreateOnly bool `json:"createOnly,omitempty"`
	// Delete is release.openshift.io/delete=true: the CVO deletes the object.
	Delete bool `json:"delete,omitempty"`
	// Capabilities are the capability.openshift.io/name capabilities.
	Capabilities []string `json:"capabilities,omitempty"`
	// Rendered is true for manifests/ files, which are Go templates.
	Rendered bool `json:"rendered,omitempty"`
	// Decision says whether the cluster applies it, and why.
	Decision Decision `json:"decision"`

	// Object is the decoded object; JSON the same object as compact JSON.
	Object *unstructured.Unstructured `json:"-"`
	JSON   json.RawMessage            `json:"-"`
}

// Ref names the object: "apps/v1 Deployment openshift-etcd-operator/etcd-operator".
func (m *Manifest) Ref() string {
	if m.Namespace != "" {
		return fmt.Sprintf("%s %s %s/%s", m.APIVersion, m.Kind, m.Namespace, m.Name)
	}
	return fmt.Sprintf("%s %s %s", m.APIVersion, m.Kind, m.Name)
}

// Position is "dir/file" with "#index" for documents after the first.
func (m *Manifest) Position() string {
	if m.Index > 0 {
		return fmt.Sprintf("%s/%s#%d", m.Dir, m.File, m.Index)
	}
	return m.Dir + "/" + m.File
}

// IsJob reports whether the manifest is a batch/v1 Job, which the CVO runs as a
// barrier (nothing reorders around it).
func (m *Manifest) IsJob() bool { return m.APIVersion == "batch/v1" && m.Kind == "Job" }

// Decision is the outcome of the inclusion rules for one manifest.
type Decision struct {
	Included bool `json:"included"`
	// Rule is the rule that decided (one of the Rule constants).
	Rule Rule `json:"rule"`
	// Reason says why, in library-go's words where it has them.
	Reason string `json:"reason"`
}

// Rule names an inclusion rule.
type Rule string

// The rules, in the order library-go's Include evaluates them.
const (
	RuleIncluded      Rule = "included"
	RuleNoAnnotations Rule = "no-annotations"
	RuleExclude       Rule = "exclude"
	RuleSetAndGate    Rule = "feature-set-and-gate"
	RuleFeatureSet    Rule = "feature-set"
	RuleFeatureGate   Rule = "feature-gate"
	RuleMajorVersion  Rule = "major-version"
	RuleProfile       Rule = "profile"
	RuleCapability    Rule = "capability"
	RuleOverride      Rule = "override"
)

// RuleSet selects which CVO's inclusion rules apply.
type RuleSet string

// The rule sets.
const (
	// RulesAuto (the default) picks RulesPreProfiles for payloads in which no
	// manifest carries an include.release.openshift.io/ annotation (releases built
	// before cluster profiles, such as 4.3 and 4.4), else RulesLibraryGo.
	RulesAuto RuleSet = ""
	// RulesLibraryGo is library-go's manifest.Include, every rule in its order.
	RulesLibraryGo RuleSet = "library-go"
	// RulesPreProfiles is what CVOs before cluster profiles applied:
	// exclude.release.openshift.io/<id> and ClusterVersion overrides only.
	RulesPreProfiles RuleSet = "pre-profiles"
)

// Inclusion is what decides which manifests a cluster applies. The caller fills it
// from the cluster (the CVO Deployment's CLUSTER_PROFILE and EXCLUDE_MANIFESTS,
// FeatureGate/cluster, ClusterVersion spec.overrides and status.capabilities).
type Inclusion struct {
	// ExcludeID is the CVO's EXCLUDE_MANIFESTS ("internal-openshift-hosted" on
	// hosted control planes); "" excludes nothing.
	ExcludeID string `json:"excludeID,omitempty"`
	// Profile is the CVO's CLUSTER_PROFILE; "" means DefaultClusterProfile.
	Profile string `json:"profile,omitempty"`
	// FeatureSet is FeatureGate/cluster spec.featureSet ("" is Default).
	FeatureSet string `json:"featureSet,omitempty"`
	// EnabledFeatureGates are the gates FeatureGate/cluster status reports enabled
	// for the current version.
	EnabledFeatureGates []string `json:"enabledFeatureGates,omitempty"`
	// Capabilities are ClusterVersion status.capabilities; nil skips capability
	// filtering (clusters older than capabilities, 4.11).
	Capabilities *Capabilities `json:"capabilities,omitempty"`
	// AllowUnknownCapabilities keeps manifests naming capabilities the cluster does
	// not know (library-go IncludeAllowUnknownCapabilities).
	AllowUnknownCapabilities bool `json:"allowUnknownCapabilities,omitempty"`
	// Overrides are ClusterVersion spec.overrides.
	Overrides []Override `json:"overrides,omitempty"`
	// MajorVersion is the cluster's major version for release.openshift.io/major-version;
	// nil uses the payload's own major version, as the CVO does at load time.
	MajorVersion *uint64 `json:"majorVersion,omitempty"`
	// Rules selects the rule set (default RulesAuto).
	Rules RuleSet `json:"rules,omitempty"`
}

// KnownCapabilities returns the capabilities a CVO built with recover's
// openshift/api knows: configv1.KnownClusterVersionCapabilities. The CVO's
// known set is that list less the capabilities whose feature gates are off
// (cluster-version-operator lib/capability SetCapabilities and
// excludedCapabilities, main 6e719331, 2026-07: ClusterAPI and
// CompatibilityRequirements); recover's openshift/api (2026-04) has neither of
// those, so the list is the whole set. It is the default for `recover payload
// --capabilities` without --known-capabilities: a manifest whose capability is
// known and not enabled is then "disabled capabilities: X", as the CVO says
// (library-go pkg/manifest checkResourceEnablement), not "unrecognized".
func KnownCapabilities() []string {
	out := make([]string, 0, len(configv1.KnownClusterVersionCapabilities))
	for _, c := range configv1.KnownClusterVersionCapabilities {
		out = append(out, string(c))
	}
	return out
}

// Capabilities are the cluster's enabled and known capabilities.
type Capabilities struct {
	Enabled []string `json:"enabledCapabilities"`
	Known   []string `json:"knownCapabilities"`
}

// Override is a ClusterVersion spec.overrides entry (same JSON as
// config.openshift.io/v1 ComponentOverride).
type Override struct {
	Kind      string `json:"kind"`
	Group     string `json:"group"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Unmanaged bool   `json:"unmanaged"`
}

// Order is the CVO's update order of the included manifests.
type Order struct {
	// Stages run one after another; a stage starts when every group of the previous
	// one has finished.
	Stages []Stage `json:"stages"`
}

// Stage is one step of the update order.
type Stage struct {
	Index int `json:"index"`
	// RunLevels are the run-levels of the stage's manifests, in order ("" for files
	// whose names do not match the pattern).
	RunLevels []string `json:"runLevels"`
	// Barrier is true for a Job, which nothing may run beside.
	Barrier bool `json:"barrier,omitempty"`
	// Groups may run in parallel; each is serial inside.
	Groups []Group `json:"groups"`
}

// Group is a serial chain of manifests, usually one component of one run-level.
type Group struct {
	Index int `json:"index"`
	// Component is the component of every manifest of the group, or "" when the
	// group mixes components (merged single-component chunks, unparsed names).
	Component string      `json:"component,omitempty"`
	Manifests []*Manifest `json:"-"`
	// Positions are the manifests' Position()s, for JSON output.
	Positions []string `json:"manifests"`
}

// Linear returns the manifests one at a time in an order that honours every stage
// and group constraint: the order to apply them with the CVO off.
func (o Order) Linear() []*Manifest {
	var out []*Manifest
	for _, s := range o.Stages {
		for _, g := range s.Groups {
			out = append(out, g.Manifests...)
		}
	}
	return out
}

// Locate returns the stage and group indexes of a manifest, or -1, -1.
func (o Order) Locate(m *Manifest) (stage, group int) {
	for _, s := range o.Stages {
		for _, g := range s.Groups {
			for _, x := range g.Manifests {
				if x == m {
					return s.Index, g.Index
				}
			}
		}
	}
	return -1, -1
}
