package sim

import (
	"fmt"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
)

func TestExamplePausedPoolStallsTheUpdateUntilUnpaused(t *testing.T) {
	h := exampleHarness(t, "paused-pool")
	m443, m444 := renderedConfigName("master", "4.4.3"), renderedConfigName("master", "4.4.4")
	h.start()

	// The wedge: the required pool is paused with two masters behind, the MCO
	// fails its sync and does not report 4.4.4, the update waits.
	h.waitEvent("the MCO waits for the paused pool", func(e Event) bool {
		return e.Actor == "operator/machine-config" && e.Reason == "WaitingForPools"
	})
	h.waitEvent("the CVO waits on machine-config", func(e Event) bool {
		return e.Actor == "cvo" && e.Reason == "Applied" && e.Object == "ClusterOperator machine-config"
	})
	p := h.pool("master")
	if c := poolCondition(p, mcfgv1.MachineConfigPoolUpdating); !p.Spec.Paused || c == nil || c.Status != corev1.ConditionFalse || c.Message != "Pool is paused; will not update to MachineConfig "+m444 {
		t.Errorf("master pool: paused %v, Updating %+v", p.Spec.Paused, c)
	}
	if p.Status.UpdatedMachineCount != 1 || p.Status.MachineCount != 3 {
		t.Errorf("master pool: %d of %d updated, want 1 of 3", p.Status.UpdatedMachineCount, p.Status.MachineCount)
	}
	for _, n := range []string{"master-1", "master-2"} {
		if a := h.node(n).Annotations; a[currentConfigAnnotation] != m443 || a[desiredConfigAnnotation] != m443 {
			t.Errorf("%s started in a paused pool: current %s desired %s", n, a[currentConfigAnnotation], a[desiredConfigAnnotation])
		}
	}
	co := h.clusterOperator("machine-config")
	if versionOf(co, "operator") != "4.4.3" {
		t.Errorf("machine-config reports %s with its required pool paused", versionOf(co, "operator"))
	}
	if c := findCondition(co.Status.Conditions, configv1.OperatorDegraded); c == nil || c.Reason != requiredPoolsFailed ||
		c.Message != "Unable to apply 4.4.4: error required MachineConfigPool master is paused and cannot sync until it is unpaused" {
		t.Errorf("machine-config Degraded: %+v", c)
	}
	if cv := h.clusterVersion(); cv.Status.History[0].State != configv1.PartialUpdate {
		t.Errorf("the update completed with the master pool paused: %+v", cv.Status.History[0])
	}

	// The remedy: unpause. The masters roll one at a time, machine-config
	// reports 4.4.4 and the CVO completes the update.
	h.setPaused("master", false)
	h.eventually("the master pool rolls out", func() (bool, string, error) {
		p := h.pool("master")
		return p.Status.UpdatedMachineCount == 3 && p.Status.Configuration.Name == m444, fmt.Sprintf("%d of 3 updated", p.Status.UpdatedMachineCount), nil
	})
	h.eventually("machine-config reports 4.4.4", func() (bool, string, error) {
		co := h.clusterOperator("machine-config")
		return atRelease(co, "4.4.4"), describeCO(co), nil
	})
	h.eventually("the update completes", func() (bool, string, error) {
		cv := h.clusterVersion()
		h0 := cv.Status.History[0]
		return h0.Version == "4.4.4" && h0.State == configv1.CompletedUpdate, fmt.Sprintf("%s %s", h0.Version, h0.State), nil
	})
}
