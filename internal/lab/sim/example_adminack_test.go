package sim

import (
	"fmt"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
)

const (
	exampleGate     = "ack-4.18-kube-1.32-api-removals-in-4.19"
	exampleGateDesc = "Kubernetes 1.32 and therefore OpenShift 4.19 remove several APIs which require admin consideration. Please see the knowledge article https://access.redhat.com/articles/7112216 for details and instructions."
)

func TestExampleAdminAckRequiredHoldsTheMinorUpdateUntilAcked(t *testing.T) {
	h := exampleHarness(t, "admin-ack-required")
	h.start()

	// The wedge, as the must-gather shows it and as the running CVO computes
	// it: Upgradeable=False for the gate, and 4.19.0 refused by the precondition.
	cv := h.waitUpgradeable(configv1.ConditionFalse, "AdminAckRequired", exampleGateDesc)
	h.eventually("the CVO refuses 4.19.0 on its precondition", func() (bool, string, error) {
		cv = h.clusterVersion()
		c := findCondition(cv.Status.Conditions, "ReleaseAccepted")
		want := `Preconditions failed for payload loaded version="4.19.0" image="quay.io/openshift-release-dev/ocp-release@sha256:ab83686c79c6f7c7b00abe39e4fc8096e51f3503db4b443b80e8875607161442": ` +
			`Precondition "ClusterVersionUpgradeable" failed because of "AdminAckRequired": ` + exampleGateDesc
		return c != nil && c.Status == configv1.ConditionFalse && c.Reason == "PreconditionChecks" && c.Message == want, fmt.Sprintf("%+v", c), nil
	})
	if cv.Status.Desired.Version != "4.18.9" || cv.Status.History[0].Version != "4.18.9" || cv.Status.History[0].State != configv1.CompletedUpdate {
		t.Errorf("the refused update started: desired %s, history[0] %s %s", cv.Status.Desired.Version, cv.Status.History[0].Version, cv.Status.History[0].State)
	}

	// The admin's ack: the CVO reports Upgradeable=True, lets the precondition
	// pass, accepts 4.19.0 (the scenario's payload of the CVO's own manifests)
	// and updates to it.
	h.setAck(exampleGate, "true")
	h.waitUpgradeable(configv1.ConditionTrue, "", "")
	h.eventually("the CVO accepts 4.19.0 and completes it", func() (bool, string, error) {
		cv := h.clusterVersion()
		c := findCondition(cv.Status.Conditions, "ReleaseAccepted")
		h0 := cv.Status.History[0]
		return c != nil && c.Status == configv1.ConditionTrue && cv.Status.Desired.Version == "4.19.0" && h0.Version == "4.19.0" && h0.State == configv1.CompletedUpdate,
			fmt.Sprintf("ReleaseAccepted %+v, desired %s, history[0] %s %s", c, cv.Status.Desired.Version, h0.Version, h0.State), nil
	})
}
