package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/graph"
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/plan/policy"
)

// Retargeting (W14, W10): when the release the cluster updates to carries a
// conditional-update risk that applies to it, the remedy is another z-stream of
// the same minor that is not exposed to it. Upgradeable=False does not block
// such a retarget: the CVO's Upgradeable precondition takes "current" from
// status.desired, the in-flight target, and lets a target of the same minor
// through (OCPBUGS-42880, cluster-version-operator#1094; docs/wedge-sources.md
// §10). Select ranks the candidates as always; these helpers add the risk of the
// in-flight target, keep a retarget below the minor under way out, and drop the
// Upgradeable blockers an accepted promise resolves.

// riskOnTarget is the in-flight target's exposure to conditional-update risks.
type riskOnTarget struct {
	finding inspect.Finding
	target  string
	risks   []graph.Risk
}

// inFlightRisk reads the ConditionalRiskOnTarget finding, with each risk's
// message and URL from ClusterVersion status (inspect's ReleaseRisks) when it
// has them.
func inFlightRisk(s *inspect.Snapshot) *riskOnTarget {
	for _, fd := range s.Findings {
		if fd.Code != inspect.CodeConditionalRiskOnTarget {
			continue
		}
		r := &riskOnTarget{finding: fd, target: fd.Details["target"]}
		if r.target == "" && s.ClusterVersion != nil {
			r.target = s.ClusterVersion.Status.Desired.Version
		}
		known, _ := s.ReleaseRisks(r.target, "")
		for _, name := range detailList(fd, "risks") {
			risk := graph.Risk{Name: name}
			for _, cr := range known {
				if cr.Name == name {
					risk.URL, risk.Message = cr.URL, oneLine(cr.Message)
				}
			}
			r.risks = append(r.risks, risk)
		}
		if len(r.risks) == 0 {
			r.risks = []graph.Risk{{Name: "the risk the finding names", Message: oneLine(fd.Message)}}
		}
		return r
	}
	return nil
}

// retargetViolations are the rules a candidate breaks because of the update
// under way: the in-flight target itself, while its risks are not accepted, and a
// candidate below the in-flight target, which moves the desired release down
// (the CVO's rollback precondition refuses it across a minor, and within one
// allows only the previous release).
func retargetViolations(f *facts, pol *policy.Policy, accept []string, version string) (out []policy.Violation, force []string) {
	if r := f.risk; r != nil && version == r.target {
		var missing []graph.Risk
		var names []string
		for _, risk := range r.risks {
			if !slices.Contains(accept, risk.Name) {
				missing = append(missing, risk)
				names = append(names, risk.Name)
			}
		}
		if len(missing) > 0 {
			out = append(out, policy.Violation{Rule: policy.RuleUnacceptedRisk, Class: policy.ClassAcceptable, Risks: missing,
				Reason: fmt.Sprintf("%s is the release the cluster updates to, and inspect found it exposed to %s (%s): retarget to a z-stream of its minor without the risk, or accept it with --accept", version, strings.Join(names, ", "), inspect.CodeConditionalRiskOnTarget)})
		}
	}
	if f.history.Updating && f.history.Desired != "" && inspect.CompareVersions(version, f.history.Desired) < 0 {
		// Moving the update under way down: the CVO's rollback precondition
		// compares the new target with status.desired, as the direction rules
		// compare a component's move.
		vs, fr := pol.CheckMoves([]policy.Move{{Component: "the update under way", From: f.history.Desired, To: version}}, f.history)
		for _, v := range vs {
			v.Reason = strings.Replace(v.Reason, "the update under way runs "+f.history.Desired, "an update to "+f.history.Desired+" is under way", 1)
			out = append(out, v)
		}
		force = fr
	}
	return out, force
}

// resolvedBlockers drops the Upgradeable=False blockers an accepted promise
// resolves: AdminAckRequired once every unacknowledged gate is accepted,
// ClusterVersionOverridesSet with remove-overrides, MissingUpgradeableAnnotation
// with upgradeable-to for the next minor. MultipleReasons stays: what it holds
// cannot be told apart.
func resolvedBlockers(s *inspect.Snapshot, bs []policy.Blocker, accept []string) ([]policy.Blocker, []string) {
	resolved := map[string]string{}
	acks := s.FindingsWithCode(inspect.CodeAdminAckRequired)
	allAcked := len(acks) > 0
	var ackNames []string
	for _, fd := range acks {
		n := planfile.AcceptAdminAck + orWord(fd.Details["gate"], strings.TrimPrefix(fd.Subject, "admingate/"))
		ackNames = append(ackNames, n)
		if !slices.Contains(accept, n) {
			allAcked = false
		}
	}
	if allAcked {
		resolved[openshift.ReasonAdminAckRequired] = strings.Join(ackNames, ",")
	}
	if slices.Contains(accept, planfile.AcceptRemoveOverrides) {
		resolved[openshift.ReasonClusterVersionOverrides] = planfile.AcceptRemoveOverrides
	}
	rs := &remedyStage{s: s}
	if next := rs.nextMinor(); next != "" && slices.Contains(accept, planfile.AcceptUpgradeableTo+next) {
		resolved[openshift.ReasonMissingUpgradeableAnnotation] = planfile.AcceptUpgradeableTo + next
	}
	var out []policy.Blocker
	var notes []string
	for _, b := range bs {
		if a, ok := resolved[b.Reason]; ok {
			notes = append(notes, fmt.Sprintf("%s Upgradeable=False (%s) is resolved by the plan's own remedy (--accept %s)", b.Source, b.Reason, a))
			continue
		}
		out = append(out, b)
	}
	return out, notes
}

// minorHop reports whether the target moves a component up a minor.
func (s *Selection) minorHop() bool {
	if s.chosen == nil {
		return false
	}
	for _, m := range s.chosen.moves {
		f, err1 := inspect.ParseVersion(m.From)
		t, err2 := inspect.ParseVersion(m.To)
		if err1 == nil && err2 == nil && (t.Major > f.Major || t.Major == f.Major && t.Minor > f.Minor) {
			return true
		}
	}
	return false
}

// isRetarget reports whether the target moves the update under way to another
// z-stream of its minor.
func (s *Selection) isRetarget() bool {
	d := s.facts.history.Desired
	if s.chosen == nil || !s.facts.history.Updating || d == "" || d == s.chosen.version {
		return false
	}
	dv, err1 := inspect.ParseVersion(d)
	tv, err2 := inspect.ParseVersion(s.chosen.version)
	return err1 == nil && err2 == nil && dv.Major == tv.Major && dv.Minor == tv.Minor
}

// retargetRemediation is the Remediation a retarget answers (nil when the
// target is no retarget or answers no finding): the set-desired-update step.
func (s *Selection) retargetRemediation(steps []planfile.Step) *planfile.Remediation {
	if !s.isRetarget() {
		return nil
	}
	var fd *inspect.Finding
	summary := ""
	if r := s.facts.risk; r != nil {
		fd = &r.finding
		var names []string
		for _, risk := range r.risks {
			names = append(names, risk.Name)
		}
		summary = fmt.Sprintf("Retarget the update from %s (exposed to %s) to %s, a z-stream of the same minor that is not.", r.target, strings.Join(names, ", "), s.chosen.version)
	} else {
		for _, f := range s.facts.s.FindingsWithCode(inspect.CodeUpgradeableFalse) {
			if f.Class == inspect.ClassBlocks {
				f := f
				fd = &f
				break
			}
		}
		if fd == nil {
			return nil
		}
		summary = fmt.Sprintf("Retarget the update from %s to %s within the minor under way; Upgradeable=False does not block it (OCPBUGS-42880).", s.facts.history.Desired, s.chosen.version)
	}
	r := &planfile.Remediation{Remedy: planfile.RemedyRetarget, Finding: fd.Code, Subject: fd.Subject, Summary: summary}
	for _, st := range steps {
		if st.DesiredUpdate != nil {
			r.Steps = append(r.Steps, st.ID)
		}
	}
	return r
}

// retargetReason is the target reason of a retarget.
func retargetReason(s *Selection) string {
	if !s.isRetarget() {
		return ""
	}
	r := fmt.Sprintf("Retarget within the minor under way: the cluster updates to %s", s.facts.history.Desired)
	if risk := s.facts.risk; risk != nil {
		var names []string
		for _, x := range risk.risks {
			names = append(names, x.Name)
		}
		r += fmt.Sprintf(", which inspect found exposed to %s; %s is a z-stream of the same minor that is not", strings.Join(names, ", "), s.chosen.version)
	}
	return r + ". Upgradeable=False does not block a retarget to the minor already under way: the CVO's Upgradeable precondition compares with status.desired (OCPBUGS-42880, cluster-version-operator#1094)."
}
