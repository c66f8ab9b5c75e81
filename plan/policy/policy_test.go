package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDefaultIsTheDocumentedYAML(t *testing.T) {
	p := Default()
	if p.Downgrades != DowngradesNever || *p.MaxMinorHop != 1 || p.Upgradeable != UpgradeableBlock ||
		p.KubeletSkew != KubeletSkewOpenShift || !p.IncludeHistory() {
		t.Fatalf("default policy: %+v", p)
	}
	// A policy with only the identity gets the same defaults as the built-in file.
	q, err := Parse("min.yaml", []byte("apiVersion: recover.openshift.io/v1alpha1\nkind: TransitionPolicy\n"))
	if err != nil {
		t.Fatal(err)
	}
	if q.Downgrades != p.Downgrades || *q.MaxMinorHop != *p.MaxMinorHop || q.Upgradeable != p.Upgradeable || q.KubeletSkew != p.KubeletSkew || *q.HistoryCandidates != *p.HistoryCandidates {
		t.Fatalf("defaults differ: %+v vs %+v", q, p)
	}
	if d := DefaultDigest(); !strings.HasPrefix(d, "sha256:") || d != Digest([]byte(DefaultYAML)) || d == Digest([]byte(DefaultYAML+"\n")) {
		t.Fatalf("digest %s", d)
	}
}

func TestParseOverrides(t *testing.T) {
	p, err := Parse("p.yaml", []byte(`apiVersion: recover.openshift.io/v1alpha1
kind: TransitionPolicy
downgrades: Never
maxMinorHop: 0
upgradeable: Force
kubeletSkew: Upstream
historyCandidates: false
`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Downgrades != DowngradesNever || *p.MaxMinorHop != 0 || p.Upgradeable != UpgradeableForce || p.KubeletSkew != KubeletSkewUpstream || p.IncludeHistory() {
		t.Fatalf("overrides not applied: %+v", p)
	}
}

func TestParseRejectsBadInput(t *testing.T) {
	head := "apiVersion: recover.openshift.io/v1alpha1\nkind: TransitionPolicy\n"
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"unknown field", head + "maxMinorHops: 1\n", `unknown field "maxMinorHops"`},
		{"duplicate field", head + "maxMinorHop: 1\nmaxMinorHop: 0\n", "maxMinorHop"},
		{"wrong kind", "apiVersion: v1\nkind: ConfigMap\n", `kind "ConfigMap"`},
		{"no identity", "downgrades: Never\n", "want recover.openshift.io/v1alpha1 TransitionPolicy"},
		{"minor hop above the ceiling", head + "maxMinorHop: 2\n", "maxMinorHop 2: want 0 or 1"},
		{"negative minor hop", head + "maxMinorHop: -1\n", "maxMinorHop -1"},
		{"bad downgrades", head + "downgrades: Always\n", `downgrades "Always"`},
		{"bad upgradeable", head + "upgradeable: Ignore\n", `upgradeable "Ignore"`},
		{"bad skew", head + "kubeletSkew: Loose\n", `kubeletSkew "Loose"`},
		{"wrong type", head + "maxMinorHop: one\n", "maxMinorHop"},
		{"not yaml", "\t{[", "not a TransitionPolicy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("p.yaml", []byte(tc.doc))
			if err == nil {
				t.Fatalf("accepted %q", tc.doc)
			}
			ie, ok := err.(*InputError)
			if !ok || !ie.BadInput() || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "p.yaml: ") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %T %q, want one line naming p.yaml and %q", err, err, tc.want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(path, []byte(DefaultYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	p, data, err := Load(path)
	if err != nil || p.Kind != Kind || Digest(data) != DefaultDigest() {
		t.Fatalf("load: %v %v", p, err)
	}
	if _, _, err := Load(filepath.Join(dir, "missing.yaml")); err == nil || !strings.Contains(err.Error(), "cannot read policy") {
		t.Fatalf("missing file: %v", err)
	}
}

// TestDocumentedDefault keeps docs/policy.md showing the built-in policy verbatim.
func TestDocumentedDefault(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "policy.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "```yaml\n"+DefaultYAML+"```") {
		t.Fatal("docs/policy.md does not show the built-in policy (DefaultYAML) verbatim")
	}
	for _, r := range Rules {
		if !strings.Contains(string(doc), "| `"+string(r.Rule)+"` | "+string(r.Class)) {
			t.Errorf("docs/policy.md does not document rule %s as %s", r.Rule, r.Class)
		}
	}
}
