package mustgather_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/insights"
	"github.com/openshift-recover/recover/inspect/mustgather"
	"github.com/openshift-recover/recover/internal/testing/shareddata"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/payload"
)

// ocMustGather lays one of oc's real example clusters
// (../shared/realdata/oc-upgrade-status-examples, `oc get -o yaml` dumps) out as
// a must-gather: its ClusterVersion (edited by editCV, as a 2026 cluster would
// carry it), ClusterOperators, nodes and pools as oc adm inspect writes lists,
// with a FeatureGate/cluster and a CVO Deployment when given.
func ocMustGather(t *testing.T, name string, editCV func(*configv1.ClusterVersion), fg func(*configv1.ClusterVersion) *configv1.FeatureGate, cvoProfile string) string {
	t.Helper()
	src := shareddata.RealData(t, "oc-upgrade-status-examples")
	dir := t.TempDir()
	write := func(rel string, data []byte) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(filepath.Join(src, name+"-cv.yaml"))
	if err != nil {
		t.Skipf("oc example %s: %v", name, err)
	}
	var cv configv1.ClusterVersion
	if err := yaml.Unmarshal(raw, &cv); err != nil {
		t.Fatal(err)
	}
	if editCV != nil {
		editCV(&cv)
	}
	out, err := yaml.Marshal(&cv)
	if err != nil {
		t.Fatal(err)
	}
	write("cluster-scoped-resources/config.openshift.io/clusterversions/version.yaml", out)
	for kind, rel := range map[string]string{"co": "config.openshift.io/clusteroperators.yaml", "node": "core/nodes.yaml", "mcp": "machineconfiguration.openshift.io/machineconfigpools.yaml"} {
		if b, err := os.ReadFile(filepath.Join(src, name+"-"+kind+".yaml")); err == nil {
			write(filepath.Join("cluster-scoped-resources", rel), b)
		}
	}
	if fg != nil {
		b, _ := yaml.Marshal(fg(&cv))
		write("cluster-scoped-resources/config.openshift.io/featuregates/cluster.yaml", b)
	}
	if cvoProfile != "" {
		write("namespaces/openshift-cluster-version/apps/deployments.yaml", []byte(`apiVersion: apps/v1
kind: DeploymentList
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: cluster-version-operator, namespace: openshift-cluster-version}
  spec:
    replicas: 1
    selector: {matchLabels: {k8s-app: cluster-version-operator}}
    template:
      metadata: {labels: {k8s-app: cluster-version-operator}}
      spec:
        containers:
        - name: cluster-version-operator
          image: quay.io/openshift-release-dev/ocp-release@sha256:0000000000000000000000000000000000000000000000000000000000000000
          env:
          - {name: CLUSTER_PROFILE, value: `+cvoProfile+`}
  status: {replicas: 1, readyReplicas: 1, updatedReplicas: 1, availableReplicas: 1}
`))
	}
	return dir
}

// TestUpdateAPIAndInclusionFromMustGather reads oc's real 4.20 cluster
// (ocpbugs-60768) as a must-gather, with and without the 2026 update API's
// fields: the capabilities, feature set, gates and profile the plan filters the
// payload with come from the cluster, and what was missing is said; acceptRisks,
// conditionalUpdateRisks and a Preflight reach the snapshot and its findings.
func TestUpdateAPIAndInclusionFromMustGather(t *testing.T) {
	const name = "ocpbugs-60768"
	fg := func(cv *configv1.ClusterVersion) *configv1.FeatureGate {
		return &configv1.FeatureGate{TypeMeta: metav1.TypeMeta{APIVersion: "config.openshift.io/v1", Kind: "FeatureGate"}, ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
			Spec: configv1.FeatureGateSpec{FeatureGateSelection: configv1.FeatureGateSelection{FeatureSet: configv1.TechPreviewNoUpgrade}},
			Status: configv1.FeatureGateStatus{FeatureGates: []configv1.FeatureGateDetails{{Version: cv.Status.Desired.Version,
				Enabled: []configv1.FeatureGateAttributes{{Name: "ClusterUpdateAcceptRisks"}, {Name: "ClusterUpdatePreflight"}}}}}}
	}
	conditions := func(typ, status string) []metav1.Condition {
		if status == "" {
			return nil
		}
		return []metav1.Condition{{Type: typ, Status: metav1.ConditionStatus(status), Reason: "Test", LastTransitionTime: metav1.Now()}}
	}
	t.Run("an old cluster: no 2026 fields, no FeatureGate, no CVO", func(t *testing.T) {
		s, err := mustgather.New(ocMustGather(t, name, nil, nil, "")).Collect(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		in := plan.Inclusion(s)
		if in.Capabilities == nil || !slices.Contains(in.Capabilities.Known, "Console") || !slices.Contains(in.Capabilities.Enabled, "Insights") {
			t.Fatalf("capabilities not from ClusterVersion status: %+v", in.Capabilities)
		}
		as := strings.Join(plan.InclusionAssumptions(s, true), "\n")
		for _, want := range []string{"CLUSTER_PROFILE is assumed " + payload.DefaultClusterProfile, "FeatureGate/cluster was not in the snapshot"} {
			if !strings.Contains(as, want) {
				t.Errorf("assumptions lack %q:\n%s", want, as)
			}
		}
		if len(s.AcceptedRisks()) != 0 || len(s.FindingsWithCode(inspect.CodeUpdatePreflight)) != 0 {
			t.Fatalf("an old cluster grew 2026 facts: %v", s.AcceptedRisks())
		}
	})
	t.Run("a 2026 cluster: acceptRisks, conditionalUpdateRisks, Preflight, FeatureGate, CVO", func(t *testing.T) {
		var desired string
		dir := ocMustGather(t, name, func(cv *configv1.ClusterVersion) {
			desired = cv.Status.Desired.Version
			cv.Spec.DesiredUpdate = &configv1.Update{Version: "4.21.1", Mode: configv1.UpdateModePreflight,
				AcceptRisks: []configv1.AcceptRisk{{Name: "AcceptedAlready"}}}
			risk := func(n string, applies string) configv1.ConditionalUpdateRisk {
				r := configv1.ConditionalUpdateRisk{Name: n, URL: "https://issues.redhat.com/browse/OCPBUGS-" + n, Message: n + " hurts.",
					MatchingRules: []configv1.ClusterCondition{{Type: "Always"}}}
				r.Conditions = conditions("Applies", applies)
				return r
			}
			cv.Status.ConditionalUpdates = append(cv.Status.ConditionalUpdates, configv1.ConditionalUpdate{
				Release:   configv1.Release{Version: "4.21.1", Image: "quay.io/openshift-release-dev/ocp-release@sha256:" + strings.Repeat("2", 64)},
				RiskNames: []string{"AcceptedAlready", "NodeDrainHang"}, Risks: []configv1.ConditionalUpdateRisk{risk("AcceptedAlready", ""), risk("NodeDrainHang", "")},
				Conditions: conditions("Recommended", "False")})
			cv.Status.ConditionalUpdateRisks = []configv1.ConditionalUpdateRisk{risk("AcceptedAlready", "True"), risk("NodeDrainHang", "True")}
		}, fg, "hypershift")
		s, err := mustgather.New(dir).Collect(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(s.AcceptedRisks(), []string{"AcceptedAlready"}) {
			t.Fatalf("acceptRisks %v", s.AcceptedRisks())
		}
		risks, _ := s.ReleaseRisks("4.21.1", "")
		if len(risks) != 2 || risks[0].Applies != "True" || !risks[0].Accepted || risks[1].Accepted {
			t.Fatalf("risks %+v", risks)
		}
		if got := s.DesiredRelease().Version; got != desired {
			t.Fatalf("a Preflight target became the release the cluster updates to: %s", got)
		}
		fs := s.FindingsWithCode(inspect.CodeUpdatePreflight)
		if len(fs) != 1 || fs[0].Details["risks"] != "NodeDrainHang" || fs[0].Details["accepted"] != "AcceptedAlready" || fs[0].Severity != inspect.SeverityWarning {
			t.Fatalf("UpdatePreflight %+v", fs)
		}
		in := plan.Inclusion(s)
		if in.Profile != "hypershift" || in.FeatureSet != "TechPreviewNoUpgrade" || !slices.Contains(in.EnabledFeatureGates, "ClusterUpdateAcceptRisks") {
			t.Fatalf("inclusion not from the cluster: %+v", in)
		}
		if as := plan.InclusionAssumptions(s, true); len(as) != 0 {
			t.Fatalf("nothing was assumed, yet: %v", as)
		}
	})
}

// TestInclusionFromInsightsArchive: an Insights archive never gathers
// Deployments, so the profile is said to be assumed; its FeatureGate (a real
// 4.7 one, with an empty spec) is read, and a 4.7 cluster has no capabilities.
func TestInclusionFromInsightsArchive(t *testing.T) {
	s, err := insights.New(filepath.Join(shareddata.RealData(t, ""), "insights-archive-sample-4.7")).Collect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if s.FeatureGate == nil {
		t.Fatal("the archive's config/featuregate.json was not read")
	}
	in := plan.Inclusion(s)
	if in.FeatureSet != "" || in.Capabilities != nil || in.Profile != payload.DefaultClusterProfile {
		t.Fatalf("inclusion %+v", in)
	}
	as := plan.InclusionAssumptions(s, true)
	if len(as) != 1 || !strings.Contains(as[0], "CVO Deployment was not in the snapshot") {
		t.Fatalf("assumptions %v", as)
	}
}
