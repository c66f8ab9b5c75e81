package inspect

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshift-recover/recover/internal/openshift"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

func TestHealthyClusterHasNoFindings(t *testing.T) {
	s := healthy().snapshot()
	if len(s.Findings) != 0 {
		t.Fatalf("a consistent cluster must have no findings, got %+v", s.Findings)
	}
	if got := s.CVOMode(); got != ModeReconciling {
		t.Fatalf("CVOMode = %s, want Reconciling (history[0] Completed for the desired image)", got)
	}
}

// TestFindings checks, per finding code, a mutation where it fires (naming the
// expected subject) and one where it must not.
func TestFindings(t *testing.T) {
	for _, tc := range findingCases() {
		t.Run(tc.name, func(t *testing.T) {
			f := healthy()
			tc.mutate(f)
			s := f.snapshot()
			assertFinding(t, s, tc.code, tc.subject)
		})
	}
}

// assertFinding checks that code fires on subject with a message and evidence,
// and returns that finding; with subject "" it checks that code does not fire
// at all, and returns nil. Every finding of s must have a class either way.
func assertFinding(t *testing.T, s *Snapshot, code, subject string) *Finding {
	t.Helper()
	assertClasses(t, s)
	got := s.FindingsWithCode(code)
	if subject == "" {
		if len(got) > 0 {
			t.Fatalf("%s must not fire, got %+v", code, got)
		}
		return nil
	}
	for i := range got {
		if g := &got[i]; g.Subject == subject {
			if g.Message == "" || len(g.Evidence) == 0 {
				t.Fatalf("%s on %s has no message or evidence: %+v", code, subject, g)
			}
			return g
		}
	}
	t.Fatalf("want %s on %s, got %+v (all: %s)", code, subject, got, codes(s.Findings))
	return nil
}

func removePod(pods []*corev1.Pod, name string) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		if p.Name != name {
			out = append(out, p)
		}
	}
	return out
}

func codes(fs []Finding) string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Code+"@"+f.Subject)
	}
	return strings.Join(out, ", ")
}

// TestEveryCodeIsTestedAndDocumented: every finding code has a section in
// docs/findings.md, and TestFindings or TestWedgeFindings has a row where it
// fires and a row where it must stay silent; and no row names a code that
// Codes does not list.
func TestEveryCodeIsTestedAndDocumented(t *testing.T) {
	doc, err := readRepoFile("docs/findings.md")
	if err != nil {
		t.Fatalf("docs/findings.md: %v", err)
	}
	fires, silent := map[string]bool{}, map[string]bool{}
	row := func(code, subject string) {
		if !slices.Contains(Codes, code) {
			t.Errorf("a test row names code %q, which Codes does not list", code)
		}
		if subject != "" {
			fires[code] = true
		} else {
			silent[code] = true
		}
	}
	for _, tc := range findingCases() {
		row(tc.code, tc.subject)
	}
	for _, tc := range wedgeFindingCases() {
		row(tc.code, tc.subject)
	}
	for _, c := range Codes {
		if !strings.Contains(doc, "## "+c) {
			t.Errorf("docs/findings.md has no section '## %s'", c)
		}
		if !fires[c] {
			t.Errorf("%s: no TestFindings or TestWedgeFindings row where it fires", c)
		}
		if !silent[c] {
			t.Errorf("%s: no TestFindings or TestWedgeFindings row where it must stay silent", c)
		}
	}
}

func TestCVOMode(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(f *fixture)
		want   CVOMode
	}{
		{"completed for the desired image", func(*fixture) {}, ModeReconciling},
		{"partial", func(f *fixture) { f.cv.Status.History[0].State = configv1.PartialUpdate }, ModeUpdating},
		{"never completed", func(f *fixture) {
			for i := range f.cv.Status.History {
				f.cv.Status.History[i].State = configv1.PartialUpdate
			}
		}, ModeInitializing},
		{"a new target requested", func(f *fixture) {
			f.cv.Spec.DesiredUpdate = &configv1.Update{Version: "4.4.5", Image: "quay.io/x@sha256:5"}
		}, ModeUpdating},
		{"a new target requested by version, found in availableUpdates", func(f *fixture) {
			f.cv.Spec.DesiredUpdate = &configv1.Update{Version: "4.4.5"}
			f.cv.Status.AvailableUpdates = []configv1.Release{{Version: "4.4.5", Image: "quay.io/x@sha256:5"}}
		}, ModeUpdating},
		{"no ClusterVersion", func(f *fixture) { f.cv = nil }, ModeUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := healthy()
			tc.mutate(f)
			if got := f.snapshot().CVOMode(); got != tc.want {
				t.Fatalf("CVOMode = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestCheckKubeletSkew(t *testing.T) {
	for _, tc := range []struct {
		kubelet, kas             string
		newer, tooOldOS, tooOldU bool
	}{
		{"v1.17.1", "1.17.1", false, false, false},
		{"v1.17.1", "1.16.2", true, false, false},
		{"v1.15.3", "1.17.1", false, false, false}, // 4.4 is even: 2 behind is fine
		{"v1.15.3", "1.16.2", false, false, false}, // 4.3 is odd: 1 behind is fine
		{"v1.14.3", "1.16.2", false, true, false},  // 4.3 is odd: 2 behind is not; upstream allows 2
		{"v1.14.0", "1.17.1", false, true, true},   // 3 behind: upstream allows only 2 below 1.25
		{"v1.25.4", "1.28.3", false, true, false},  // 4.15 is odd; upstream allows 3 from 1.25
		{"v1.24.4", "1.27.3", false, true, true},   // below 1.25 upstream allows 2
		{"v1.26.0+f67aeb3", "1.27.6", false, false, false},
	} {
		v, err := CheckKubeletSkew(tc.kubelet, tc.kas, 0)
		if err != nil {
			t.Fatalf("%s vs %s: %v", tc.kubelet, tc.kas, err)
		}
		if v.Newer != tc.newer || v.TooOldOpenShift != tc.tooOldOS || v.TooOldUpstream != tc.tooOldU {
			t.Errorf("%s vs %s: got %+v, want newer=%t openshift=%t upstream=%t", tc.kubelet, tc.kas, v, tc.newer, tc.tooOldOS, tc.tooOldU)
		}
	}
	if _, err := CheckKubeletSkew("banana", "1.17.1", 0); err == nil {
		t.Fatal("an unparsable kubelet version must be an error")
	}
}

func TestOldestKubeAPIServerUsesClaimForUnverifiedInstances(t *testing.T) {
	f := healthy()
	// master-2 runs an image the operator does not carry: its version is unknown, so
	// the ClusterOperator's claim (the oldest Available operand) stands in for it.
	f.pod("kube-apiserver-master-2").Spec.Containers[0].Image = hk443
	f.co("kube-apiserver").Status.Versions[1].Version = "1.16.2"
	k, ok := f.snapshot().OldestKubeAPIServer()
	if !ok || k.Version != "1.16.2" || k.Verified || len(k.Nodes) != 1 || k.Nodes[0] != "master-2" {
		t.Fatalf("OldestKubeAPIServer = %+v, %t; want 1.16.2 on master-2, unverified", k, ok)
	}
	f = healthy()
	k, ok = f.snapshot().OldestKubeAPIServer()
	if !ok || k.Version != "1.17.1" || !k.Verified || len(k.Nodes) != 3 {
		t.Fatalf("OldestKubeAPIServer = %+v, %t; want verified 1.17.1 on 3 nodes", k, ok)
	}
}

func TestOperatorVersionVerification(t *testing.T) {
	f := healthy()
	f.deploy("etcd-operator").Spec.Template.Spec.Containers[0].Env[0].Value = "4.4.3"
	s := f.snapshot()
	for _, tc := range []struct {
		co, claimed, verified string
	}{
		{"dns", "4.4.4", "4.4.4"},
		{"etcd", "4.4.4", "4.4.3"},
	} {
		got := s.OperatorVersion(tc.co)
		if got.Claimed != tc.claimed || got.Verified != tc.verified || got.Method == "" {
			t.Errorf("OperatorVersion(%s) = %+v, want claimed %s verified %s", tc.co, got, tc.claimed, tc.verified)
		}
	}
	if got := s.OperandVersion("kube-apiserver"); got.Verified != "1.17.1" || got.Claimed != "1.17.1" {
		t.Errorf("OperandVersion(kube-apiserver) = %+v", got)
	}
	f.forbidden = []string{"deployments.apps"}
	f.deploys = nil
	if got := f.snapshot().OperatorVersion("dns"); got.Verified != "" || !strings.Contains(got.Method, "not collected") {
		t.Errorf("without Deployments the version must be unverified and say why, got %+v", got)
	}
}

// findingCase is one row of TestFindings: a mutation of the healthy fixture
// and the subject the code must fire on ("" means: must not fire at all).
type findingCase struct {
	name    string
	code    string
	subject string
	mutate  func(f *fixture)
}

// findingCases are TestFindings' rows, also read by
// TestEveryCodeIsTestedAndDocumented.
func findingCases() []findingCase {
	return []findingCase{
		{"claimed complete, operators behind", CodeUpdateClaimedCompleteButMixed, "clusterversion/version", func(f *fixture) {
			f.co("dns").Status.Versions[0].Version = "4.4.3"
		}},
		{"claimed complete, master kubelets mixed", CodeUpdateClaimedCompleteButMixed, "clusterversion/version", func(f *fixture) {
			f.node("master-1").Status.NodeInfo.KubeletVersion = "v1.16.2"
		}},
		{"claimed complete, master on an older rendered config", CodeUpdateClaimedCompleteButMixed, "clusterversion/version", func(f *fixture) {
			f.node("master-2").Annotations[annCurrentConfig] = "rendered-master-old"
		}},
		{"completed with only workers behind is the CVO's design", CodeUpdateClaimedCompleteButMixed, "", func(f *fixture) {
			f.pools[1].Status.UpdatedMachineCount = 0
			f.node("worker-0").Annotations[annCurrentConfig] = "rendered-master-old"
		}},
		{"partial update is in progress, not claimed complete", CodeUpdateClaimedCompleteButMixed, "", func(f *fixture) {
			f.cv.Status.History[0].State = configv1.PartialUpdate
			f.co("dns").Status.Versions[0].Version = "4.4.3"
		}},
		{"partial update", CodeUpdateInProgress, "clusterversion/version", func(f *fixture) {
			f.cv.Status.History[0].State = configv1.PartialUpdate
		}},
		{"failing", CodeClusterVersionFailing, "clusterversion/version", func(f *fixture) {
			f.cv.Status.Conditions[2].Status = configv1.ConditionTrue
		}},
		{"mixed operator versions", CodeMixedOperatorVersions, "clusteroperators", func(f *fixture) {
			f.co("etcd").Status.Versions[0].Version = "4.4.3"
		}},
		{"operator claim ahead of its deployment", CodeOperatorVersionUnverified, "clusteroperator/dns", func(f *fixture) {
			f.deploy("dns-operator").Spec.Template.Spec.Containers[0].Env[0].Value = "4.4.3"
		}},
		{"deployment still rolling out verifies nothing", CodeOperatorVersionUnverified, "", func(f *fixture) {
			d := f.deploy("dns-operator")
			d.Spec.Template.Spec.Containers[0].Env[0].Value = "4.4.3"
			d.Status.ObservedGeneration = 1
		}},
		{"kubelet newer than the API server", CodeKubeletNewerThanAPIServer, "node/worker-0", func(f *fixture) {
			f.node("worker-0").Status.NodeInfo.KubeletVersion = "v1.18.3"
		}},
		{"kubelet newer by a patch only", CodeKubeletNewerThanAPIServer, "", func(f *fixture) {
			f.node("worker-0").Status.NodeInfo.KubeletVersion = "v1.17.3"
		}},
		{"kubelet three minors behind", CodeKubeletSkewTooLarge, "node/worker-0", func(f *fixture) {
			f.node("worker-0").Status.NodeInfo.KubeletVersion = "v1.14.6"
		}},
		{"kubelet two minors behind on an even minor is allowed", CodeKubeletSkewTooLarge, "", func(f *fixture) {
			f.node("worker-0").Status.NodeInfo.KubeletVersion = "v1.15.12"
		}},
		{"revision claimed but not running", CodeStaticPodRevisionMismatch, "node/master-2", func(f *fixture) {
			f.pod("kube-apiserver-master-2").Labels["revision"] = "4"
		}},
		{"mirror pod missing", CodeStaticPodMissing, "node/master-1", func(f *fixture) {
			f.pods = removePod(f.pods, "kube-apiserver-master-1")
		}},
		{"installer succeeded, revision not running", CodeInstallerSucceededWithoutRevision, "node/master-2", func(f *fixture) {
			f.pods = append(f.pods, installerPod("master-2", 6, 0, corev1.PodSucceeded, 1))
		}},
		{"installer retry succeeded, revision not running", CodeInstallerSucceededWithoutRevision, "node/master-0", func(f *fixture) {
			f.pods = append(f.pods, installerPod("master-0", 6, 2, corev1.PodSucceeded, 0))
		}},
		{"installer succeeded and a later revision runs", CodeInstallerSucceededWithoutRevision, "", func(f *fixture) {
			f.pods = append(f.pods, installerPod("master-2", 4, 0, corev1.PodSucceeded, 0))
		}},
		{"installer failed honestly", CodeInstallerSucceededWithoutRevision, "", func(f *fixture) {
			f.pods = append(f.pods, installerPod("master-2", 6, 0, corev1.PodFailed, 1))
		}},
		{"degraded", CodeOperatorDegraded, "clusteroperator/etcd", func(f *fixture) {
			f.co("etcd").Status.Conditions[1].Status = configv1.ConditionTrue
		}},
		{"unavailable", CodeOperatorUnavailable, "clusteroperator/dns", func(f *fixture) {
			f.co("dns").Status.Conditions[0].Status = configv1.ConditionFalse
		}},
		{"progressing for an hour", CodeOperatorProgressingStuck, "clusteroperator/dns", func(f *fixture) {
			f.co("dns").Status.Conditions[2].Status = configv1.ConditionTrue
			f.co("dns").Status.Conditions[2].LastTransitionTime = ago(time.Hour)
		}},
		{"machine-config progressing for an hour is within its 90 minutes", CodeOperatorProgressingStuck, "", func(f *fixture) {
			f.co("machine-config").Status.Conditions[2].Status = configv1.ConditionTrue
			f.co("machine-config").Status.Conditions[2].LastTransitionTime = ago(time.Hour)
		}},
		{"pool degraded", CodePoolDegraded, "machineconfigpool/worker", func(f *fixture) {
			f.pools[1].Status.DegradedMachineCount = 1
		}},
		{"pool paused", CodePoolPaused, "machineconfigpool/worker", func(f *fixture) {
			f.pools[1].Spec.Paused = true
		}},
		{"pool updating", CodePoolUpdating, "machineconfigpool/worker", func(f *fixture) {
			f.pools[1].Status.Conditions = []mcfgv1.MachineConfigPoolCondition{{Type: mcfgv1.MachineConfigPoolUpdating, Status: corev1.ConditionTrue}}
		}},
		{"node degraded", CodeNodeDegraded, "node/worker-0", func(f *fixture) {
			f.node("worker-0").Annotations[annMCDState] = "Degraded"
		}},
		{"node not ready", CodeNodeNotReady, "node/worker-0", func(f *fixture) {
			f.node("worker-0").Status.Conditions[0].Status = corev1.ConditionUnknown
		}},
		{"CVO scaled to zero", CodeCVODisabled, "deployment/openshift-cluster-version/cluster-version-operator", func(f *fixture) {
			f.deploy(openshift.CVODeployment).Spec.Replicas = ptr.To[int32](0)
		}},
		{"CVO deployment deleted", CodeCVODisabled, "deployment/openshift-cluster-version/cluster-version-operator", func(f *fixture) {
			f.deploys = f.deploys[:len(f.deploys)-1]
		}},
		{"CVO deployment not readable is not 'disabled'", CodeCVODisabled, "", func(f *fixture) {
			f.deploys = f.deploys[:len(f.deploys)-1]
			f.forbidden = []string{"deployments.apps"}
		}},
		{"unmanaged override", CodeUnmanagedOverrides, "clusterversion/version", func(f *fixture) {
			f.cv.Spec.Overrides = []configv1.ComponentOverride{{Kind: "Deployment", Group: "apps", Namespace: "openshift-dns-operator", Name: "dns-operator", Unmanaged: true}}
		}},
		{"managed override entry", CodeUnmanagedOverrides, "", func(f *fixture) {
			f.cv.Spec.Overrides = []configv1.ComponentOverride{{Kind: "Deployment", Group: "apps", Namespace: "openshift-dns-operator", Name: "dns-operator"}}
		}},
		{"forced update", CodeForcedUpdate, "clusterversion/version", func(f *fixture) {
			f.cv.Spec.DesiredUpdate.Force = true
		}},
		{"unverified update", CodeUnverifiedUpdate, "clusterversion/version", func(f *fixture) {
			f.cv.Status.History[0].Verified = false
		}},
		{"forbidden resource", CodeNotCollected, "resource/nodes", func(f *fixture) {
			f.forbidden = []string{"nodes"}
		}},

		// Near misses: each keeps a code above silent on the state that comes
		// closest to firing it without being what the code says.
		{"a partial update below a completed one is history, not in progress", CodeUpdateInProgress, "", func(f *fixture) {
			f.cv.Status.History[1].State = configv1.PartialUpdate
		}},
		{"Failing=Unknown is not Failing", CodeClusterVersionFailing, "", func(f *fixture) {
			f.cv.Status.Conditions[2].Status = configv1.ConditionUnknown
		}},
		{"an operator reporting no version is not a second version", CodeMixedOperatorVersions, "", func(f *fixture) {
			f.co("dns").Status.Versions = nil
		}},
		{"a mirror pod without a revision label proves no mismatch", CodeStaticPodRevisionMismatch, "", func(f *fixture) {
			delete(f.pod("kube-apiserver-master-2").Labels, "revision")
		}},
		{"a mirror pod missing from pods never collected proves nothing", CodeStaticPodMissing, "", func(f *fixture) {
			f.pods = removePod(f.pods, "kube-apiserver-master-1")
			f.forbidden = []string{ResPods.Key() + "/openshift-kube-apiserver"}
		}},
		{"Degraded=Unknown is not Degraded", CodeOperatorDegraded, "", func(f *fixture) {
			f.co("etcd").Status.Conditions[1].Status = configv1.ConditionUnknown
		}},
		{"no Available condition claims nothing", CodeOperatorUnavailable, "", func(f *fixture) {
			f.co("dns").Status.Conditions = f.co("dns").Status.Conditions[1:]
		}},
		{"a degraded node with its pool counting none is the node's finding", CodePoolDegraded, "", func(f *fixture) {
			f.node("worker-0").Annotations[annMCDState] = "Degraded"
		}},
		{"an unpaused pool rolling out is not paused", CodePoolPaused, "", func(f *fixture) {
			f.pools[1].Status.Conditions = []mcfgv1.MachineConfigPoolCondition{{Type: mcfgv1.MachineConfigPoolUpdating, Status: corev1.ConditionTrue}}
		}},
		{"a paused pool with every machine updated is not rolling", CodePoolUpdating, "", func(f *fixture) {
			f.pools[1].Spec.Paused = true
		}},
		{"a daemon at work is not degraded", CodeNodeDegraded, "", func(f *fixture) {
			f.node("worker-0").Annotations[annMCDState] = "Working"
		}},
		{"a node without a Ready condition is unknown, not NotReady", CodeNodeNotReady, "", func(f *fixture) {
			f.node("worker-0").Status.Conditions = nil
		}},
		{"an unverified update that was not forced", CodeForcedUpdate, "", func(f *fixture) {
			f.cv.Status.History[0].Verified = false
		}},
		{"a forced update whose signature verified", CodeUnverifiedUpdate, "", func(f *fixture) {
			f.cv.Spec.DesiredUpdate.Force = true
		}},
		{"a resource collected empty is collected", CodeNotCollected, "", func(f *fixture) {
			f.nodes = nil
		}},
	}
}
