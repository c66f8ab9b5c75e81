package plan

import (
	"fmt"
	"strings"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan/planfile"
)

// TargetNeed is one reason the snapshot needs a new release rather than only
// remedies: the planner cannot unblock the cluster in place.
type TargetNeed struct {
	// Finding and Subject are the finding that shows it.
	Finding string `json:"finding"`
	Subject string `json:"subject"`
	// Reason says why, in a sentence.
	Reason string `json:"reason"`
	// Retarget is true when the need is a retarget within the minor under way
	// (a risk on the in-flight target): a remediation plan can still be made
	// without a graph, and says that --graph lets recover consider one.
	Retarget bool `json:"retarget,omitempty"`
}

// TargetNeeded returns why the snapshot needs a new target (nil when remedies
// and a CVO hand-back will do): the first incident's state (an update claimed
// complete over mixed versions), kubelet skew, static-pod contradictions under a
// Completed claim (the second incident), or a retarget (a risk on the in-flight
// target). Upgradeable=False during a minor update under way is no need: the
// CVO checks Upgradeable before it accepts a minor update, not while it carries
// one out, and a retarget within that minor is not blocked by it
// (OCPBUGS-42880); the update in progress goes forward.
func TargetNeeded(s *inspect.Snapshot) []TargetNeed {
	var out []TargetNeed
	completed := false
	if cv := s.ClusterVersion; cv != nil && len(cv.Status.History) > 0 {
		completed = cv.Status.History[0].State == configv1.CompletedUpdate
	}
	seen := map[string]bool{}
	add := func(fd inspect.Finding, retarget bool, format string, args ...any) {
		if seen[fd.Code] {
			return
		}
		seen[fd.Code] = true
		out = append(out, TargetNeed{Finding: fd.Code, Subject: fd.Subject, Reason: fmt.Sprintf(format, args...), Retarget: retarget})
	}
	for _, fd := range s.Findings {
		switch fd.Code {
		case inspect.CodeUpdateClaimedCompleteButMixed:
			add(fd, false, "ClusterVersion claims an update complete while components run other releases (%s): the components must be moved to one release in the CVO's order", fd.Code)
		case inspect.CodeKubeletNewerThanAPIServer, inspect.CodeKubeletSkewTooLarge:
			add(fd, false, "kubelets and kube-apiservers break the version skew (%s on %s): the control plane must move to a release where they fit", fd.Code, fd.Subject)
		case inspect.CodeStaticPodRevisionMismatch, inspect.CodeInstallerSucceededWithoutRevision, inspect.CodeStaticPodMissing:
			if completed {
				add(fd, false, "the update is claimed Completed while a static pod contradicts its operator (%s on %s, the second incident): the release must be rolled out again and checked on every node", fd.Code, fd.Subject)
			}
		case inspect.CodeConditionalRiskOnTarget:
			add(fd, true, "the release the cluster updates to, %s, is exposed to %s: a z-stream of the same minor without the risk is the remedy", orWord(fd.Details["target"], "its target"), orWord(fd.Details["risks"], "a conditional-update risk"))
		}
	}
	return out
}

// Decision is what a snapshot asks of the planner: its Outcome (the one
// decision, see outcome.go), why it needs a new release, and the remedy stage
// built for it. Decide reads the planner's facts of the snapshot to make it;
// Make, given the Decision (Options.Decision), plans from those same facts
// and that stage rather than reading them again.
type Decision struct {
	// Outcome is the decision: how far recover intervenes, the rule that chose
	// it and why. Every consumer prints it; none decides again (the facts it
	// was made from are not exported).
	Outcome planfile.Outcome

	// needs are why the snapshot needs a new release (TargetNeeded).
	needs    []TargetNeed
	snapshot *inspect.Snapshot
	facts    *facts
	stage    *remedyStage
	in       DecideInput
}

// DecideInput is what the admin says beside the snapshot.
type DecideInput struct {
	// Accept are the --accept names.
	Accept []string
	// Signatures are the release signatures the admin supplied, verified.
	Signatures ReleaseSignatures
	// TakeOver is the admin's reason for taking the wheel from the CVO
	// (recover plan --take-over REASON): the plan pushes the target's
	// manifests with the CVO disabled whatever the rules say. "" lets the
	// rules decide.
	TakeOver string
	// Goal is the release the admin named with recover plan --to: the CVO is
	// driven toward it even where nothing holds the cluster (the staged-goal
	// rule). "" when none was named.
	Goal string
}

// Decide decides what a snapshot asks of the planner (see Decision and the
// table in outcome.go).
func Decide(s *inspect.Snapshot, in DecideInput) *Decision {
	d := &Decision{needs: TargetNeeded(s), snapshot: s, facts: newFacts(s), in: in}
	d.stage = newRemedyStage(s, d.facts, in.Accept, in.Signatures, s.Source.CollectedAt)
	d.Outcome = decide(&decideFacts{s: s, needs: d.needs, rs: d.stage, takeOver: in.TakeOver, goal: in.Goal})
	return d
}

// hardNeeds are the needs a remediation plan cannot go without.
func hardNeeds(needs []TargetNeed) []string {
	var out []string
	for _, n := range needs {
		if !n.Retarget {
			out = append(out, n.Reason)
		}
	}
	return out
}

// remediationPlanSteps orders a remediation-only plan: the remedies in the
// experts' order, then the waits for what the CVO computes. Where the CVO
// would act on a half-unblocked cluster (remediationStopsCVO: not in Updating
// mode) the remedies run between disable-cvo and restore-cvo (no new desired
// update: the CVO resumes the one it has); in Updating mode the CVO keeps the
// wheel and the plan has no bracket.
func remediationPlanSteps(s *inspect.Snapshot, rs *remedyStage) ([]planfile.Step, []planfile.Remediation) {
	var steps []planfile.Step
	bracket := remediationStopsCVO(s)
	if bracket {
		steps = append(steps, planfile.Step{Action: planfile.ActionDisableCVO, Reason: disableReason(s, true),
			Gate: &planfile.Gate{Kind: planfile.GateCVOScaledDown, Description: "no cluster-version operator pod is left running"}})
	}
	steps = placeGroups(steps, rs.groups, func(*remedyGroup) bool { return true })
	if bracket {
		desired := s.DesiredRelease().Version
		restore := planfile.Step{Action: planfile.ActionRestoreCVO,
			Reason: fmt.Sprintf("Scale the CVO back to its journaled replicas with the desired update it has (%s, no new one): in %s mode it resumes that update over the unblocked cluster.", orWord(desired, "unknown"), s.CVOMode()),
			Gate:   &planfile.Gate{Kind: planfile.GateCVORunning, Description: fmt.Sprintf("the CVO Deployment is available again and ClusterVersion shows it working on %s", orWord(desired, "its desired update"))}}
		if why := rs.stillRefused; why != "" {
			restore.Reason = fmt.Sprintf("Scale the CVO back to its journaled replicas with the desired update it has (%s, no new one). It will still refuse %s: %s; resolve that as the findings say, and the CVO takes the update on its own.", orWord(desired, "unknown"), orWord(desired, "it"), why)
			restore.Gate.RefusalExpected = why
			restore.Gate.Description = fmt.Sprintf("the CVO Deployment is available again and ClusterVersion observed by it (it may still refuse %s)", orWord(desired, "its desired update"))
		}
		steps = append(steps, restore)
	}
	steps = placePosts(steps, rs.groups)
	numberSteps(steps)
	return steps, link(steps, rs.groups)
}

// holdingReason names the findings that keep the CVO refusing its desired
// update after the plan ("" when none).
func holdingReason(fds []inspect.Finding) string {
	var parts []string
	for _, fd := range fds {
		switch fd.Code {
		case inspect.CodeUpgradeableFalse:
			parts = append(parts, fmt.Sprintf("%s is Upgradeable=False (%s, %s)", fd.Subject, fd.Details["reason"], fd.Details["class"]))
		default:
			parts = append(parts, fmt.Sprintf("%s on %s (%s)", fd.Code, fd.Subject, orWord(fd.Details["reason"], fd.Details["class"])))
		}
	}
	return strings.Join(parts, "; ")
}

// remediationTarget is the Target of a remediation-only plan: none, and why.
func remediationTarget(s *inspect.Snapshot) planfile.Target {
	desired := s.DesiredRelease().Version
	return planfile.Target{Reasons: []string{fmt.Sprintf("No new release: the snapshot shows no state that needs one (no update claimed complete over mixed versions, no kubelet skew, no static-pod contradiction under a Completed claim, no risk on the in-flight target); the plan unblocks the cluster and hands the CVO back its desired update %s (%s mode).",
		orWord(desired, "(unknown)"), s.CVOMode())}}
}

// disableReason explains disable-cvo.
func disableReason(s *inspect.Snapshot, remediation bool) string {
	r := "Stop the cluster-version operator so it cannot push manifests behind the plan's back"
	if remediation {
		r = "Stop the cluster-version operator while the remedies run, so it does not re-apply what they change or act on a half-unblocked cluster"
	} else {
		switch s.CVOMode() {
		case inspect.ModeReconciling:
			r += fmt.Sprintf(": left running it stays in Reconciling mode and re-applies %s's manifests flat and shuffled over the mixed state", s.DesiredRelease().Version)
		case inspect.ModeUpdating:
			r += fmt.Sprintf(": left running it keeps updating toward %s", s.DesiredRelease().Version)
		}
	}
	if s.CVO != nil {
		r += fmt.Sprintf(". Its %d replica(s) are journaled and restored by restore-cvo.", s.CVO.EffectiveReplicas())
	} else {
		r += "."
	}
	return r
}

// targetNeededError is the error of a remediation-only plan for a snapshot
// that needs a new release.
func targetNeededError(hard []string) error {
	return &InputError{Msg: "a new release is needed: " + strings.Join(hard, "; "), Hint: "pass --graph FILE|URL (and --payload) to plan one"}
}
