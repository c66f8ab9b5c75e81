package payload

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/openshift-recover/recover/internal/openshift"

	configv1 "github.com/openshift/api/config/v1"
)

// knownFeatureSets are the feature-set annotation values library-go accepts: every
// fixed feature set openshift/api defines (configv1.AllFixedFeatureSets, ""
// spelled Default) plus CustomNoUpgrade. (features.AllFeatureSets, read here
// before, gained a level in openshift/api 2026-04, keyed by version, and its
// second level is the cluster profiles.)
var knownFeatureSets = func() []string {
	set := map[string]bool{string(configv1.CustomNoUpgrade): true}
	for _, fs := range configv1.AllFixedFeatureSets {
		if fs == "" {
			set["Default"] = true
		} else {
			set[string(fs)] = true
		}
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}()

// effective fills Inclusion defaults.
func (in Inclusion) effective() Inclusion {
	if in.Profile == "" {
		in.Profile = DefaultClusterProfile
	}
	return in
}

// Decide applies the inclusion rules to one manifest. payloadMajor is the payload's
// major version, used when in.MajorVersion is nil. rules must be RulesLibraryGo or
// RulesPreProfiles.
func Decide(m *Manifest, in Inclusion, rules RuleSet, payloadMajor uint64) Decision {
	in = in.effective()
	if rules == RulesPreProfiles {
		return decidePreProfiles(m, in)
	}
	ann := m.Annotations
	if ann == nil {
		return excluded(RuleNoAnnotations, "no annotations")
	}
	if in.ExcludeID != "" {
		key := AnnotationExcludePrefix + in.ExcludeID
		if v := ann[key]; v == "true" {
			return excluded(RuleExclude, key+"="+v)
		}
	}
	_, hasSet := ann[openshift.AnnotationFeatureSet]
	_, hasGate := ann[openshift.AnnotationFeatureGate]
	if hasSet && hasGate {
		return excluded(RuleSetAndGate, "both feature set and feature gate annotations are present: manifests may specify either a feature set or a feature gate, but not both")
	}
	if d, ok := checkFeatureSet(ann, in.FeatureSet); !ok {
		return d
	}
	if d, ok := checkFeatureGates(ann, in.EnabledFeatureGates); !ok {
		return d
	}
	major := payloadMajor
	if in.MajorVersion != nil {
		major = *in.MajorVersion
	}
	if d, ok := checkMajorVersion(m, ann, major); !ok {
		return d
	}
	profileKey := AnnotationIncludePrefix + in.Profile
	if v, ok := ann[profileKey]; ok && v != "true" {
		return excluded(RuleProfile, fmt.Sprintf("unrecognized value %s=%s", profileKey, v))
	} else if !ok {
		return excluded(RuleProfile, profileKey+" unset")
	}
	if in.Capabilities != nil {
		if d, ok := checkCapabilities(m.Capabilities, in.Capabilities, in.AllowUnknownCapabilities); !ok {
			return d
		}
	}
	if o := override(m, in.Overrides); o != nil && o.Unmanaged {
		return excluded(RuleOverride, "overridden: ClusterVersion spec.overrides marks it unmanaged")
	}
	reason := "profile " + in.Profile
	if len(m.Capabilities) > 0 && in.Capabilities != nil {
		reason += "; capabilities " + strings.Join(m.Capabilities, "+") + " enabled"
	}
	if v, ok := ann[openshift.AnnotationFeatureSet]; ok {
		reason += "; feature set " + featureSetName(in.FeatureSet) + " in " + v
	}
	if v, ok := ann[openshift.AnnotationFeatureGate]; ok {
		reason += "; feature gates " + v + " satisfied"
	}
	return Decision{Included: true, Rule: RuleIncluded, Reason: reason}
}

// decidePreProfiles is what CVOs before cluster profiles applied.
func decidePreProfiles(m *Manifest, in Inclusion) Decision {
	if in.ExcludeID != "" {
		key := AnnotationExcludePrefix + in.ExcludeID
		if v := m.Annotations[key]; v == "true" {
			return excluded(RuleExclude, key+"="+v)
		}
	}
	if o := override(m, in.Overrides); o != nil && o.Unmanaged {
		return excluded(RuleOverride, "overridden: ClusterVersion spec.overrides marks it unmanaged")
	}
	return Decision{Included: true, Rule: RuleIncluded, Reason: "payload predates cluster profiles: only exclude.release.openshift.io/<id> and overrides apply"}
}

func excluded(rule Rule, reason string) Decision {
	return Decision{Included: false, Rule: rule, Reason: reason}
}

func featureSetName(fs string) string {
	if fs == "" {
		return "Default"
	}
	return fs
}

// checkFeatureSet: an annotated manifest needs the cluster's feature set among its
// comma-separated values, all of which must be known.
func checkFeatureSet(ann map[string]string, featureSet string) (Decision, bool) {
	v, ok := ann[openshift.AnnotationFeatureSet]
	if !ok {
		return Decision{}, true
	}
	values := strings.Split(v, ",")
	for _, fs := range values {
		if !slices.Contains(knownFeatureSets, fs) {
			return excluded(RuleFeatureSet, fmt.Sprintf("unrecognized value %q in %s=%s; known values are: %s", fs, openshift.AnnotationFeatureSet, v, strings.Join(knownFeatureSets, ","))), false
		}
	}
	required := featureSetName(featureSet)
	if !slices.Contains(values, required) {
		sorted := slices.Clone(values)
		sort.Strings(sorted)
		return excluded(RuleFeatureSet, fmt.Sprintf("%q is required, and %s=%s", required, openshift.AnnotationFeatureSet, strings.Join(slices.Compact(sorted), ","))), false
	}
	return Decision{}, true
}

// checkFeatureGates: "Gate" must be enabled, "-Gate" must not be.
func checkFeatureGates(ann map[string]string, enabled []string) (Decision, bool) {
	v, ok := ann[openshift.AnnotationFeatureGate]
	if !ok {
		return Decision{}, true
	}
	for _, req := range strings.Split(v, ",") {
		req = strings.TrimSpace(req)
		if req == "" {
			continue
		}
		if gate, neg := strings.CutPrefix(req, "-"); neg {
			if slices.Contains(enabled, gate) {
				return excluded(RuleFeatureGate, fmt.Sprintf("feature gate %s is enabled but manifest requires it to be disabled", gate)), false
			}
		} else if !slices.Contains(enabled, req) {
			return excluded(RuleFeatureGate, fmt.Sprintf("feature gate %s is required but not enabled", req)), false
		}
	}
	return Decision{}, true
}

// checkMajorVersion: "N" includes major N, "-N" excludes it; only FeatureGate and
// CustomResourceDefinition manifests may carry the annotation.
func checkMajorVersion(m *Manifest, ann map[string]string, major uint64) (Decision, bool) {
	v, ok := ann[openshift.AnnotationMajorVersion]
	if !ok {
		return Decision{}, true
	}
	isFeatureGate := m.Group == "config.openshift.io" && m.Kind == "FeatureGate"
	isCRD := m.Group == "apiextensions.k8s.io" && m.Kind == "CustomResourceDefinition"
	if !isFeatureGate && !isCRD {
		return excluded(RuleMajorVersion, "major version filtering is only supported for feature gates and custom resources"), false
	}
	included, excludedSet := map[uint64]bool{}, map[uint64]bool{}
	for _, req := range strings.Split(v, ",") {
		req = strings.TrimSpace(req)
		if req == "" {
			continue
		}
		num, neg := strings.CutPrefix(req, "-")
		n, err := strconv.ParseUint(num, 10, 64)
		if err != nil {
			kind := "included"
			if neg {
				kind = "excluded"
			}
			return excluded(RuleMajorVersion, fmt.Sprintf("invalid %s major version %q in annotation: %v", kind, num, err)), false
		}
		if neg {
			excludedSet[n] = true
		} else {
			included[n] = true
		}
	}
	for n := range included {
		if excludedSet[n] {
			return excluded(RuleMajorVersion, fmt.Sprintf("inclusion and exclusion requirements overlap: [%d]", n)), false
		}
	}
	switch {
	case included[major]:
		return Decision{}, true
	case excludedSet[major]:
		return excluded(RuleMajorVersion, fmt.Sprintf("major version %d matches excluded version %d", major, major)), false
	case len(included) > 0:
		return excluded(RuleMajorVersion, fmt.Sprintf("major version %d does not match any required versions", major)), false
	}
	return Decision{}, true
}

// checkCapabilities: every capability must be known (unless allowed) and enabled;
// unknown ones are reported before disabled ones.
func checkCapabilities(caps []string, c *Capabilities, allowUnknown bool) (Decision, bool) {
	var unknown, disabled []string
	for _, name := range caps {
		if !allowUnknown && !slices.Contains(c.Known, name) {
			unknown = append(unknown, name)
			continue
		}
		if !slices.Contains(c.Enabled, name) {
			disabled = append(disabled, name)
		}
	}
	if len(unknown) > 0 {
		return excluded(RuleCapability, "unrecognized capability names: "+strings.Join(unknown, ", ")), false
	}
	if len(disabled) > 0 {
		return excluded(RuleCapability, "disabled capabilities: "+strings.Join(disabled, ", ")), false
	}
	return Decision{}, true
}

// override returns the override naming the manifest's object (the namespace is
// ignored for cluster-scoped objects), or nil.
func override(m *Manifest, overrides []Override) *Override {
	for i, o := range overrides {
		ns := o.Namespace
		if m.Namespace == "" {
			ns = ""
		}
		if o.Group == m.Group && o.Kind == m.Kind && o.Name == m.Name && ns == m.Namespace {
			return &overrides[i]
		}
	}
	return nil
}
