package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/nextcmd"
	"github.com/openshift-recover/recover/plan/graph"
	"github.com/openshift-recover/recover/plan/policy"
)

// The cluster's own word on conditional-update risks (the 2026 update API,
// inspect/update_risks.go): the risks the admin accepted in ClusterVersion
// spec.desiredUpdate.acceptRisks (`oc adm upgrade accept`) count as accepted, as
// if named with --accept; and a release the cluster lists in
// status.conditionalUpdates carries the risks the CVO evaluated as applying to
// it. A risk has one name everywhere: the update service's, oc's, acceptRisks'
// and --accept's (inspect.UpdateRisk).

// withClusterAccepted returns the --accept names with the risk names of
// spec.desiredUpdate.acceptRisks added. A name there that reads as a remedy
// name is left out: acceptRisks accepts risks, never one of recover's promises.
func withClusterAccepted(s *inspect.Snapshot, accept []string) []string {
	out := accept
	cloned := false
	for _, n := range s.AcceptedRisks() {
		if IsRemedyName(n) || slices.Contains(out, n) {
			continue
		}
		if !cloned {
			out, cloned = slices.Clone(accept), true
		}
		out = append(out, n)
	}
	return out
}

// clusterAccepted returns the names among names that only the cluster's
// spec.desiredUpdate.acceptRisks accepts (not --accept).
func clusterAccepted(s *inspect.Snapshot, accept, names []string) []string {
	var out []string
	have := s.AcceptedRisks()
	for _, n := range names {
		if !slices.Contains(accept, n) && slices.Contains(have, n) {
			out = append(out, n)
		}
	}
	return out
}

// clusterRisks is the rule a candidate breaks when the cluster itself reports it
// exposed: its status.conditionalUpdates entry has risks that apply (or could not
// be evaluated, or, on a cluster without Applies conditions, an entry that is not
// Recommended=True) and are not accepted. It returns the violation (nil when
// every exposed risk is accepted) and every exposed risk, accepted or not, for
// the target's accepted risks. The in-flight target's risks are
// retargetViolations' (from the ConditionalRiskOnTarget finding).
func clusterRisks(f *facts, accepted []string, c candidate) (*policy.Violation, []graph.Risk) {
	if f.s == nil || (f.risk != nil && c.version == f.risk.target) {
		return nil, nil
	}
	risks, recommended := f.s.ReleaseRisks(c.version, c.image)
	var exposed, missing []graph.Risk
	var names []string
	for _, r := range risks {
		if !r.Exposes(recommended) {
			continue
		}
		gr := graph.Risk{Name: r.Name, URL: r.URL, Message: oneLine(r.Message)}
		exposed = append(exposed, gr)
		if !slices.Contains(accepted, r.Name) {
			missing = append(missing, gr)
			names = append(names, r.Name)
		}
	}
	if len(missing) == 0 {
		return nil, exposed
	}
	return &policy.Violation{Rule: policy.RuleUnacceptedRisk, Class: policy.ClassAcceptable, Risks: missing,
		Reason: fmt.Sprintf("the cluster reports %s exposed to %s (ClusterVersion status.conditionalUpdates): accept with --accept %s or %s", c.version, strings.Join(names, ", "), strings.Join(names, ","), nextcmd.OCAcceptRisks(strings.Join(names, ",")))}, exposed
}
