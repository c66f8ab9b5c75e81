package payload

import (
	"strings"
	"testing"

	"github.com/openshift-recover/recover/internal/openshift"
)

const (
	hosted  = "exclude.release.openshift.io/internal-openshift-hosted"
	selfHA  = "include.release.openshift.io/self-managed-high-availability"
	sno     = "include.release.openshift.io/single-node-developer"
	techPre = "TechPreviewNoUpgrade"
)

func manifest(kind, group, ns, name string, annotations ...string) *Manifest {
	m := &Manifest{Kind: kind, Group: group, Namespace: ns, Name: name}
	if len(annotations) > 0 {
		m.Annotations = map[string]string{}
		for i := 0; i+1 < len(annotations); i += 2 {
			m.Annotations[annotations[i]] = annotations[i+1]
		}
		if v := m.Annotations[AnnotationCapability]; v != "" {
			m.Capabilities = strings.Split(v, "+")
		}
	}
	return m
}

func u64(v uint64) *uint64 { return &v }

// TestDecideLibraryGo covers every rule of library-go's Include with a case that
// includes and one that excludes, and the order in which the rules apply.
func TestDecideLibraryGo(t *testing.T) {
	caps := &Capabilities{Enabled: []string{"Console", "openshift-samples"}, Known: []string{"Console", "openshift-samples", "Insights"}}
	for _, tc := range []struct {
		name     string
		m        *Manifest
		in       Inclusion
		included bool
		rule     Rule
		reason   string
	}{
		{"no annotations", manifest("ConfigMap", "", "ns", "a"), Inclusion{}, false, RuleNoAnnotations, "no annotations"},
		{"empty annotations are not no annotations", func() *Manifest {
			m := manifest("ConfigMap", "", "ns", "a")
			m.Annotations = map[string]string{}
			return m
		}(), Inclusion{}, false, RuleProfile, selfHA + " unset"},
		{"profile", manifest("ConfigMap", "", "ns", "a", selfHA, "true"), Inclusion{}, true, RuleIncluded, "profile self-managed-high-availability"},
		{"profile unset", manifest("ConfigMap", "", "ns", "a", sno, "true"), Inclusion{}, false, RuleProfile, selfHA + " unset"},
		{"profile other value", manifest("ConfigMap", "", "ns", "a", selfHA, "false"), Inclusion{}, false, RuleProfile, "unrecognized value " + selfHA + "=false"},
		{"other profile", manifest("ConfigMap", "", "ns", "a", sno, "true"), Inclusion{Profile: "single-node-developer"}, true, RuleIncluded, "profile single-node-developer"},
		{"exclude id", manifest("Deployment", "apps", "ns", "a", selfHA, "true", hosted, "true"), Inclusion{ExcludeID: "internal-openshift-hosted"}, false, RuleExclude, hosted + "=true"},
		{"exclude id not set", manifest("Deployment", "apps", "ns", "a", selfHA, "true", hosted, "true"), Inclusion{}, true, RuleIncluded, ""},
		{"exclude value not true", manifest("Deployment", "apps", "ns", "a", selfHA, "true", hosted, "false"), Inclusion{ExcludeID: "internal-openshift-hosted"}, true, RuleIncluded, ""},
		{"exclude before profile", manifest("Deployment", "apps", "ns", "a", hosted, "true"), Inclusion{ExcludeID: "internal-openshift-hosted"}, false, RuleExclude, ""},
		{"set and gate", manifest("ConfigMap", "", "ns", "a", selfHA, "true", openshift.AnnotationFeatureSet, techPre, openshift.AnnotationFeatureGate, "GateA"), Inclusion{FeatureSet: techPre, EnabledFeatureGates: []string{"GateA"}}, false, RuleSetAndGate, "both feature set and feature gate"},
		{"feature set required", manifest("Namespace", "", "", "capi", selfHA, "true", openshift.AnnotationFeatureSet, techPre), Inclusion{}, false, RuleFeatureSet, `"Default" is required, and release.openshift.io/feature-set=TechPreviewNoUpgrade`},
		{"feature set matches", manifest("Namespace", "", "", "capi", selfHA, "true", openshift.AnnotationFeatureSet, techPre), Inclusion{FeatureSet: techPre}, true, RuleIncluded, "feature set TechPreviewNoUpgrade"},
		{"feature set list", manifest("Namespace", "", "", "x", selfHA, "true", openshift.AnnotationFeatureSet, "Default,"+techPre), Inclusion{}, true, RuleIncluded, ""},
		{"feature set unknown", manifest("Namespace", "", "", "x", selfHA, "true", openshift.AnnotationFeatureSet, "Bogus"), Inclusion{FeatureSet: "Bogus"}, false, RuleFeatureSet, `unrecognized value "Bogus"`},
		{"feature set before profile", manifest("Namespace", "", "", "x", openshift.AnnotationFeatureSet, techPre), Inclusion{}, false, RuleFeatureSet, ""},
		{"gate enabled", manifest("ConfigMap", "", "ns", "a", selfHA, "true", openshift.AnnotationFeatureGate, "GateA,GateB"), Inclusion{EnabledFeatureGates: []string{"GateA", "GateB"}}, true, RuleIncluded, "feature gates GateA,GateB satisfied"},
		{"gate missing", manifest("ConfigMap", "", "ns", "a", selfHA, "true", openshift.AnnotationFeatureGate, "GateA,GateB"), Inclusion{EnabledFeatureGates: []string{"GateA"}}, false, RuleFeatureGate, "feature gate GateB is required but not enabled"},
		{"negated gate off", manifest("ConfigMap", "", "ns", "a", selfHA, "true", openshift.AnnotationFeatureGate, "-GateA"), Inclusion{}, true, RuleIncluded, ""},
		{"negated gate on", manifest("ConfigMap", "", "ns", "a", selfHA, "true", openshift.AnnotationFeatureGate, "-GateA"), Inclusion{EnabledFeatureGates: []string{"GateA"}}, false, RuleFeatureGate, "feature gate GateA is enabled but manifest requires it to be disabled"},
		{"major match", manifest("CustomResourceDefinition", "apiextensions.k8s.io", "", "a.b", selfHA, "true", openshift.AnnotationMajorVersion, "4"), Inclusion{}, true, RuleIncluded, ""},
		{"major other", manifest("CustomResourceDefinition", "apiextensions.k8s.io", "", "a.b", selfHA, "true", openshift.AnnotationMajorVersion, "5"), Inclusion{}, false, RuleMajorVersion, "major version 4 does not match any required versions"},
		{"major excluded", manifest("FeatureGate", "config.openshift.io", "", "cluster", selfHA, "true", openshift.AnnotationMajorVersion, "-5"), Inclusion{MajorVersion: u64(5)}, false, RuleMajorVersion, "major version 5 matches excluded version 5"},
		{"major wrong kind", manifest("ConfigMap", "", "ns", "a", selfHA, "true", openshift.AnnotationMajorVersion, "4"), Inclusion{}, false, RuleMajorVersion, "only supported for feature gates and custom resources"},
		{"major invalid", manifest("CustomResourceDefinition", "apiextensions.k8s.io", "", "a.b", selfHA, "true", openshift.AnnotationMajorVersion, "four"), Inclusion{}, false, RuleMajorVersion, `invalid included major version "four"`},
		{"capability enabled", manifest("Deployment", "apps", "ns", "a", selfHA, "true", AnnotationCapability, "Console+openshift-samples"), Inclusion{Capabilities: caps}, true, RuleIncluded, "capabilities Console+openshift-samples enabled"},
		{"capability disabled", manifest("Deployment", "apps", "ns", "a", selfHA, "true", AnnotationCapability, "Console+Insights"), Inclusion{Capabilities: caps}, false, RuleCapability, "disabled capabilities: Insights"},
		{"capability unknown", manifest("Deployment", "apps", "ns", "a", selfHA, "true", AnnotationCapability, "Bogus+Insights"), Inclusion{Capabilities: caps}, false, RuleCapability, "unrecognized capability names: Bogus"},
		{"capability unknown allowed", manifest("Deployment", "apps", "ns", "a", selfHA, "true", AnnotationCapability, "Bogus"), Inclusion{Capabilities: caps, AllowUnknownCapabilities: true}, false, RuleCapability, "disabled capabilities: Bogus"},
		{"capabilities not filtered", manifest("Deployment", "apps", "ns", "a", selfHA, "true", AnnotationCapability, "Insights"), Inclusion{}, true, RuleIncluded, ""},
		{"override unmanaged", manifest("Deployment", "apps", "ns", "a", selfHA, "true"), Inclusion{Overrides: []Override{{Kind: "Deployment", Group: "apps", Namespace: "ns", Name: "a", Unmanaged: true}}}, false, RuleOverride, "overridden"},
		{"override managed", manifest("Deployment", "apps", "ns", "a", selfHA, "true"), Inclusion{Overrides: []Override{{Kind: "Deployment", Group: "apps", Namespace: "ns", Name: "a"}}}, true, RuleIncluded, ""},
		{"override other namespace", manifest("Deployment", "apps", "ns", "a", selfHA, "true"), Inclusion{Overrides: []Override{{Kind: "Deployment", Group: "apps", Namespace: "other", Name: "a", Unmanaged: true}}}, true, RuleIncluded, ""},
		{"override cluster-scoped ignores namespace", manifest("ClusterRole", "rbac.authorization.k8s.io", "", "r", selfHA, "true"), Inclusion{Overrides: []Override{{Kind: "ClusterRole", Group: "rbac.authorization.k8s.io", Namespace: "whatever", Name: "r", Unmanaged: true}}}, false, RuleOverride, ""},
		{"capability before override", manifest("Deployment", "apps", "ns", "a", selfHA, "true", AnnotationCapability, "Insights"), Inclusion{Capabilities: caps, Overrides: []Override{{Kind: "Deployment", Group: "apps", Namespace: "ns", Name: "a", Unmanaged: true}}}, false, RuleCapability, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Decide(tc.m, tc.in, RulesLibraryGo, 4)
			if d.Included != tc.included || d.Rule != tc.rule || !strings.Contains(d.Reason, tc.reason) {
				t.Fatalf("got %+v, want included=%v rule=%s reason~%q", d, tc.included, tc.rule, tc.reason)
			}
		})
	}
}

// TestDecidePreProfiles covers the rules of CVOs before cluster profiles.
func TestDecidePreProfiles(t *testing.T) {
	bare := manifest("ConfigMap", "", "ns", "a")
	if d := Decide(bare, Inclusion{}, RulesPreProfiles, 4); !d.Included || !strings.Contains(d.Reason, "predates cluster profiles") {
		t.Fatalf("no annotations: %+v", d)
	}
	hostedOnly := manifest("Deployment", "apps", "ns", "a", hosted, "true")
	if d := Decide(hostedOnly, Inclusion{ExcludeID: "internal-openshift-hosted"}, RulesPreProfiles, 4); d.Included || d.Rule != RuleExclude {
		t.Fatalf("exclude: %+v", d)
	}
	if d := Decide(hostedOnly, Inclusion{}, RulesPreProfiles, 4); !d.Included {
		t.Fatalf("no exclude id: %+v", d)
	}
	ov := Inclusion{Overrides: []Override{{Kind: "ConfigMap", Namespace: "ns", Name: "a", Unmanaged: true}}}
	if d := Decide(bare, ov, RulesPreProfiles, 4); d.Included || d.Rule != RuleOverride {
		t.Fatalf("override: %+v", d)
	}
	// Feature sets are not a rule before profiles.
	tp := manifest("Namespace", "", "", "x", openshift.AnnotationFeatureSet, techPre)
	if d := Decide(tp, Inclusion{}, RulesPreProfiles, 4); !d.Included {
		t.Fatalf("feature set under pre-profile rules: %+v", d)
	}
}
