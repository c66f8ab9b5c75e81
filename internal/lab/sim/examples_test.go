package sim

import (
	"path/filepath"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

// exampleHarness runs one of the repository's example scenarios on a fresh API server.
func exampleHarness(t *testing.T, name string) *harness {
	t.Helper()
	kubetest.Require(t, env)
	root, err := kubetest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	scn, err := LoadScenario(filepath.Join(root, "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	return loadHarness(t, scn, Options{Timing: &FastTiming})
}

func TestExampleReconciledScenarioStartsWedged(t *testing.T) {
	h := exampleHarness(t, "reconciled-4.3-to-4.4")
	// Loaded as the must-gather shows it.
	cv := h.clusterVersion()
	if cv.Status.History[0].State != configv1.CompletedUpdate || cv.Status.History[0].Version != "4.4.3" {
		t.Fatalf("history[0] %+v, want 4.4.3 Completed", cv.Status.History[0])
	}
	if k := h.node("master-0").Status.NodeInfo.KubeletVersion; k != "v1.17.1" {
		t.Errorf("master-0 kubelet %s, want the 4.4 kubelet v1.17.1", k)
	}
	if k := h.node("master-1").Status.NodeInfo.KubeletVersion; k != "v1.16.2" {
		t.Errorf("master-1 kubelet %s, want the 4.3 kubelet v1.16.2", k)
	}
	for _, e := range h.sim.Events() {
		if e.Reason == "Skipped" {
			t.Errorf("the example must-gather holds an object the simulator skipped: %s", e)
		}
	}
	h.start()
	// Left running at replicas 1, the CVO keeps reconciling 4.4.3 in shuffled order.
	h.waitEvent("the CVO reconciles 4.4.3", func(e Event) bool {
		return e.Reason == "ModeChanged" && e.Message == ModeReconciling+" 4.4.3"
	})
	h.waitEvent("the CVO applies the 4.4.3 payload", func(e Event) bool {
		return e.Reason == "Applied" && e.Manifest != nil && e.Manifest.Mode == ModeReconciling && e.Manifest.Version == "4.4.3"
	})
	// ... and the 4.4 machine-config goes on rolling the 4.4 kubelet onto the
	// masters while the kube-apiserver is still 4.3.19: the wedge.
	h.waitEvent("machine-config rolls another master", func(e Event) bool {
		return e.Actor == "machine-config" && e.Reason == "NodeUpdated" && (e.Object == "Node master-1" || e.Object == "Node master-2")
	})
	for _, e := range h.sim.Events() {
		if e.Reason == "PayloadRejected" || e.Reason == "Error" {
			t.Errorf("unexpected: %s", e)
		}
	}
}

func TestExampleFalseSuccessScenarioKeepsMaster2Behind(t *testing.T) {
	h := exampleHarness(t, "false-success-revision")
	check := func(when string) {
		t.Helper()
		st := h.kubeAPIServerStatus()
		for _, ns := range st.NodeStatuses {
			if ns.CurrentRevision != 9 {
				t.Errorf("%s: nodeStatus %s claims %d, want 9", when, ns.NodeName, ns.CurrentRevision)
			}
		}
		if rev := h.mirrorPod("master-2").Labels[revisionLabel]; rev != "8" {
			t.Errorf("%s: kube-apiserver-master-2 revision %s, want 8", when, rev)
		}
	}
	check("loaded")
	if len(h.sim.Faults()) != 1 || h.sim.Faults()[0].Type != FaultKubeletFalseSuccess {
		t.Fatalf("the scenario's fault is not active: %+v", h.sim.Faults())
	}
	h.start()
	// The CVO finishes its Partial update to 4.4.4: every operator claims it.
	h.waitEvent("the CVO completes 4.4.4 on the operators' claims", func(e Event) bool {
		return e.Reason == "Completed" && strings.Contains(e.Message, "4.4.4")
	})
	check("after the CVO's pass")
}
