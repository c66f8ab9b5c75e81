package inspect

import (
	"testing"

	configv1 "github.com/openshift/api/config/v1"
)

// TestRequestedSaysPreflightAndAcceptedRisks: the reports' Requested line names
// a Preflight (checked, not applied) and the risks spec.desiredUpdate already
// accepts; an old cluster's line is what it was.
func TestRequestedSaysPreflightAndAcceptedRisks(t *testing.T) {
	for _, tc := range []struct {
		u    configv1.Update
		want string
	}{
		{configv1.Update{Version: "4.4.5"}, "4.4.5"},
		{configv1.Update{Image: "quay.io/x@sha256:1", Force: true}, "quay.io/x@sha256:1 (force)"},
		{configv1.Update{Version: "4.21.1", Mode: configv1.UpdateModePreflight}, "4.21.1 (Preflight: checked, not applied)"},
		{configv1.Update{Version: "4.21.1", AcceptRisks: []configv1.AcceptRisk{{Name: "A"}, {Name: "B"}}}, "4.21.1; accepted risks: A, B"},
		{configv1.Update{AcceptRisks: []configv1.AcceptRisk{{Name: "A"}}}, "accepted risks: A"},
	} {
		if got := requested(&tc.u); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.u, got, tc.want)
		}
	}
}
