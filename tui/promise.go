package tui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/tui/dialog"
	"github.com/openshift-recover/recover/tui/state"
)

// promiseMeaning says what accepting an admin's promise (an --accept remedy
// name, plan/accept.go) means: what recover then changes, and what the admin
// vouches for by accepting it.
func promiseMeaning(name string) string {
	switch {
	case strings.HasPrefix(name, planfile.AcceptForceRedeployment):
		c := strings.TrimPrefix(name, planfile.AcceptForceRedeployment)
		return fmt.Sprintf("recover sets a new spec.forceRedeploymentReason on the %s operator: it rolls %s to a new revision and restarts it on every control-plane node, one node at a time, and the plan waits until every node's mirror pod runs that revision. You accept that restart of the control plane.", c, c)
	case strings.HasPrefix(name, planfile.AcceptAdminAck):
		k := strings.TrimPrefix(name, planfile.AcceptAdminAck)
		return fmt.Sprintf("recover sets %s to \"true\" in openshift-config/admin-acks, which the CVO reads as your acknowledgement. You promise that you checked what the gate names (for API removals: no client still calls a removed API; see oc get apirequestcounts).", k)
	case name == planfile.AcceptRemoveOverrides:
		return "recover removes ClusterVersion spec.overrides: the CVO manages the overridden objects again and reverts what was changed by hand in them. You promise that nothing still depends on those overrides."
	case strings.HasPrefix(name, planfile.AcceptUpgradeableTo):
		v := strings.TrimPrefix(name, planfile.AcceptUpgradeableTo)
		return fmt.Sprintf("recover annotates the cloud credentials with upgradeable-to %s. You promise that the manually managed credentials already match what %s's CredentialsRequests ask for.", v, v)
	}
	return "recover makes the change the refusal names. You promise what it says only you can know."
}

// openAcceptPromise asks before re-planning with an admin's promise accepted:
// the dialog says what the refusal was, what accepting means, and that the plan
// records it.
func (m *Model) openAcceptPromise(r planfile.RefusedRemedy) {
	if m.session.Replan == nil || m.state.Phase != state.Idle || r.Accept == "" {
		return
	}
	body := []string{
		fmt.Sprintf("%s for %s %s is the admin's promise: recover takes it only when you name it with --accept %s.", r.Remedy, r.Finding, r.Subject, r.Accept),
		"Accepting means: " + promiseMeaning(r.Accept),
		"The planner then re-plans with --accept " + r.Accept + "; the new plan carries the step and records the name in inputs.accepted.",
	}
	m.newDialog(dialog.AcceptPromise, "Accept "+r.Accept+"?", body, "accept and re-plan", "cancel", []string{r.Accept})
}

// withAccepted returns the session's accepted names plus names, each once.
func (m *Model) withAccepted(names []string) []string {
	accept := append([]string(nil), m.session.Accepted...)
	for _, n := range names {
		if !slices.Contains(accept, n) {
			accept = append(accept, n)
		}
	}
	return accept
}
