package payload

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/internal/testing/shareddata"
)

const exampleReleases = "../../examples/reconciled-4.3-to-4.4/releases"

const image444 = "quay.io/openshift-release-dev/ocp-release@sha256:baa687f29b0ac155d8f4c6914056d36d68f343feb9c1e82b46eef95819d00be5"

func loadExample(t *testing.T, version string, in Inclusion) *Payload {
	t.Helper()
	p, err := LoadDir(filepath.Join(exampleReleases, version), Options{Inclusion: in, ReleaseImage: image444})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// position returns the index of the first manifest of a component in the linear order.
func position(p *Payload, component string) int {
	return slices.IndexFunc(p.Order.Linear(), func(m *Manifest) bool { return m.Component == component })
}

func TestExamplePayloadDefaults(t *testing.T) {
	p := loadExample(t, "4.4.4", Inclusion{})
	if p.Release.Version != "4.4.4" || p.Rules != RulesLibraryGo || p.Inclusion.Profile != DefaultClusterProfile {
		t.Fatalf("release %s rules %s profile %s", p.Release.Version, p.Rules, p.Inclusion.Profile)
	}
	// Only the TechPreviewNoUpgrade namespace is excluded on a default cluster.
	var excluded []string
	for _, m := range p.Manifests {
		if !m.Decision.Included {
			excluded = append(excluded, m.Name+":"+string(m.Decision.Rule))
		}
	}
	if !slices.Equal(excluded, []string{"openshift-cluster-api:feature-set"}) {
		t.Fatalf("excluded: %v", excluded)
	}
	etcd, kas, kcm, mco := position(p, "etcd-operator"), position(p, "kube-apiserver-operator"), position(p, "kube-controller-manager-operator"), position(p, "machine-config-operator")
	if !(etcd < kas && kas < kcm && kcm < mco) {
		t.Fatalf("order etcd %d, kube-apiserver %d, kcm %d, machine-config %d", etcd, kas, kcm, mco)
	}
	// kcm and the scheduler share run-level 25: one stage, two parallel groups.
	s, g1 := p.Order.Locate(p.Find("apps", "Deployment", "openshift-kube-controller-manager-operator", "kube-controller-manager-operator"))
	s2, g2 := p.Order.Locate(p.Find("apps", "Deployment", "openshift-kube-scheduler-operator", "kube-scheduler-operator"))
	if s != s2 || g1 == g2 || len(p.Order.Stages[s].Groups) != 2 {
		t.Fatalf("kcm (%d,%d) and scheduler (%d,%d) should be parallel groups of one stage", s, g1, s2, g2)
	}
	job := p.Find("batch", "Job", "openshift-operator-lifecycle-manager", "olm-migrate-catalogs-4-4-4")
	js, _ := p.Order.Locate(job)
	if js < 0 || !p.Order.Stages[js].Barrier || len(p.Order.Stages[js].Groups) != 1 || len(p.Order.Stages[js].Groups[0].Manifests) != 1 {
		t.Fatalf("job stage: %+v", p.Order.Stages[js])
	}
	if m := p.Find("", "ConfigMap", "openshift-authentication", "v4-0-config-system-legacy"); m == nil || !m.Delete {
		t.Fatal("delete-annotated manifest")
	}
	if m := p.Find("config.openshift.io", "FeatureGate", "", "cluster"); m == nil || !m.CreateOnly {
		t.Fatal("create-only FeatureGate")
	}
	cvo := p.Find("apps", "Deployment", "openshift-cluster-version", "cluster-version-operator")
	if !strings.Contains(string(cvo.JSON), `"image":"`+image444+`"`) || !strings.Contains(string(cvo.JSON), `"value":"self-managed-high-availability"`) {
		t.Fatalf("CVO deployment not rendered: %s", cvo.JSON)
	}
}

func TestExamplePayloadInclusionInputs(t *testing.T) {
	tp := loadExample(t, "4.4.4", Inclusion{FeatureSet: "TechPreviewNoUpgrade"})
	if len(tp.Included()) != len(tp.Manifests) {
		t.Fatalf("TechPreviewNoUpgrade: %d of %d included", len(tp.Included()), len(tp.Manifests))
	}
	hosted := loadExample(t, "4.4.4", Inclusion{ExcludeID: "internal-openshift-hosted"})
	for _, id := range [][4]string{{"apps", "Deployment", "openshift-kube-apiserver-operator", "kube-apiserver-operator"}, {"config.openshift.io", "ClusterOperator", "", "kube-apiserver"}, {"apps", "Deployment", "openshift-cluster-version", "cluster-version-operator"}} {
		if m := hosted.Find(id[0], id[1], id[2], id[3]); m == nil || m.Decision.Included || m.Decision.Rule != RuleExclude {
			t.Fatalf("hosted %v: %+v", id, m)
		}
	}
	noSamples := loadExample(t, "4.4.4", Inclusion{Capabilities: &Capabilities{Enabled: []string{"Console"}, Known: []string{"Console", "openshift-samples"}}})
	var gated []string
	for _, m := range noSamples.Manifests {
		if m.Decision.Rule == RuleCapability {
			gated = append(gated, m.Kind)
		}
	}
	if !slices.Equal(gated, []string{"Namespace", "ServiceAccount", "ClusterRoleBinding", "Deployment", "ClusterOperator"}) {
		t.Fatalf("capability-gated: %v", gated)
	}
	sno := loadExample(t, "4.4.4", Inclusion{Profile: "ibm-cloud-managed"})
	if len(sno.Included()) != 0 {
		t.Fatalf("no manifest carries the ibm-cloud-managed profile, %d included", len(sno.Included()))
	}
}

// TestExamplePayloadsForTheSimulator checks what the simulator relies on: every
// operator Deployment says RELEASE_VERSION, shares its file prefix with a
// ClusterOperator, and the static-pod operators carry IMAGE.
func TestExamplePayloadsForTheSimulator(t *testing.T) {
	for _, v := range []string{"4.4.3", "4.4.4"} {
		p := loadExample(t, v, Inclusion{})
		prefix := func(m *Manifest) string { return "0000_" + m.RunLevel + "_" + m.Component + "_" }
		cos := map[string]*Manifest{}
		for _, m := range p.Manifests {
			if m.Kind == "ClusterOperator" {
				cos[prefix(m)] = m
			}
		}
		for _, m := range p.Manifests {
			if m.Kind != "Deployment" || m.Component == "cluster-version-operator" {
				continue
			}
			if !strings.Contains(string(m.JSON), `{"name":"RELEASE_VERSION","value":"`+v+`"}`) {
				t.Errorf("%s %s: no RELEASE_VERSION=%s", v, m.Position(), v)
			}
			if cos[prefix(m)] == nil {
				t.Errorf("%s %s: no ClusterOperator with prefix %s", v, m.Position(), prefix(m))
			}
		}
		for _, op := range []string{"etcd-operator", "kube-apiserver-operator", "kube-controller-manager-operator", "kube-scheduler-operator"} {
			var dep *Manifest
			for _, m := range p.Manifests {
				if m.Kind == "Deployment" && m.Component == op {
					dep = m
				}
			}
			operand := "hyperkube"
			if op == "etcd-operator" {
				operand = "etcd"
			}
			img, _ := p.Image(operand)
			if dep == nil || !strings.Contains(string(dep.JSON), `{"name":"IMAGE","value":"`+img+`"}`) {
				t.Errorf("%s %s: no IMAGE=%s", v, op, img)
			}
		}
		kas := p.Find("config.openshift.io", "ClusterOperator", "", "kube-apiserver")
		if !strings.Contains(string(kas.JSON), `{"name":"kube-apiserver","version":"1.17.1"}`) || !strings.Contains(string(kas.JSON), `{"name":"operator","version":"`+v+`"}`) {
			t.Errorf("%s kube-apiserver ClusterOperator versions: %s", v, kas.JSON)
		}
		for _, m := range p.Manifests {
			if m.Kind == "CustomResourceDefinition" && m.APIVersion != "apiextensions.k8s.io/v1" {
				t.Errorf("%s %s is %s", v, m.Position(), m.APIVersion)
			}
		}
	}
}

func TestRealPayloads(t *testing.T) {
	for _, tc := range []struct {
		dir, version string
		files        int
	}{{"payload-release-4.4", "4.4.0", 383}, {"payload-release-4.3", "4.3.0", 337}} {
		dir := shareddata.RealData(t, tc.dir)
		// Without release-metadata the normal path refuses, naming the file.
		if _, err := LoadDir(dir, Options{}); err == nil || !strings.Contains(err.Error(), "release-metadata: missing") {
			t.Fatalf("%s without a version: %v", tc.dir, err)
		}
		p, err := LoadDir(dir, Options{Version: tc.version})
		if err != nil {
			t.Fatal(err)
		}
		files := map[string]bool{}
		for _, m := range p.Manifests {
			files[m.Dir+"/"+m.File] = true
		}
		if len(files) != tc.files {
			t.Fatalf("%s: %d files with manifests, want %d", tc.dir, len(files), tc.files)
		}
		if p.Rules != RulesPreProfiles || len(p.Included()) != len(p.Manifests) {
			t.Fatalf("%s: rules %s, %d of %d included", tc.dir, p.Rules, len(p.Included()), len(p.Manifests))
		}
		hosted, err := LoadDir(dir, Options{Version: tc.version, Inclusion: Inclusion{ExcludeID: "internal-openshift-hosted"}})
		if err != nil || len(hosted.Included()) >= len(hosted.Manifests) {
			t.Fatalf("%s hosted: %v", tc.dir, err)
		}
	}
	p, err := LoadDir(shareddata.RealData(t, "payload-release-4.4"), Options{Version: "4.4.0"})
	if err != nil {
		t.Fatal(err)
	}
	etcd, kas, mco := position(p, "etcd-operator"), position(p, "kube-apiserver-operator"), position(p, "machine-config-operator")
	if !(etcd >= 0 && etcd < kas && kas < mco) {
		t.Fatalf("4.4 order: etcd %d, kube-apiserver %d, machine-config %d", etcd, kas, mco)
	}
	lin := p.Order.Linear()
	if lin[etcd].RunLevel != "12" || lin[kas].RunLevel != "20" || lin[mco].RunLevel != "80" {
		t.Fatalf("run-levels: %s %s %s", lin[etcd].RunLevel, lin[kas].RunLevel, lin[mco].RunLevel)
	}
	se, _ := p.Order.Locate(lin[etcd])
	sm, _ := p.Order.Locate(lin[mco])
	if se >= sm {
		t.Fatalf("etcd stage %d must precede machine-config stage %d", se, sm)
	}
	// Level 50 of 4.4 has many components, which run as parallel groups.
	var widest int
	for _, s := range p.Order.Stages {
		widest = max(widest, len(s.Groups))
	}
	if widest < 10 {
		t.Fatalf("widest stage has %d groups", widest)
	}
}
