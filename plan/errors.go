package plan

import (
	"fmt"
	"strings"

	"github.com/openshift-recover/recover/plan/planfile"
)

// InputError is a problem with the planner's inputs: missing, or unusable as given.
// The CLI exits 4.
type InputError struct {
	Msg  string
	Hint string
}

func (e *InputError) Error() string {
	if e.Hint != "" {
		return e.Msg + "; " + e.Hint
	}
	return e.Msg
}

// BadInput marks the error as an input problem.
func (e *InputError) BadInput() bool { return true }

// NoTargetError says that no candidate qualifies. Selection holds every candidate,
// ranked, with the rule that rejected or demoted it, so callers can show them.
type NoTargetError struct {
	Selection *Selection
	// Risks are the risk names that would make the nearest risk-demoted candidate
	// qualify; empty when no candidate qualifies even with --accept.
	Risks []string
	// Nearest is that candidate's version (or the nearest rejected one).
	Nearest string
}

func (e *NoTargetError) Error() string {
	if len(e.Risks) > 0 {
		return fmt.Sprintf("no safe target without accepting risks: %s qualifies only with --accept %s (review the risks in the candidate table first)", e.Nearest, strings.Join(e.Risks, ","))
	}
	msg := "no release satisfies the policy"
	for _, c := range e.Selection.Candidates {
		msg += fmt.Sprintf("; nearest %s is rejected by %s: %s", c.Version, c.Rule, c.Reason)
		break
	}
	if len(e.Selection.Candidates) == 0 {
		msg += ": the graph offers no release to consider"
	}
	return msg + "; see the candidate table, or try another --channel or graph"
}

// ExitCode is 3 when only unaccepted risks stand in the way, 6 otherwise.
func (e *NoTargetError) ExitCode() int {
	if len(e.Risks) > 0 {
		return planfile.ExitRisksNotAccepted
	}
	return planfile.ExitNoSafeTarget
}

// RankedCandidates are the candidates the selection ranked; ok is false when
// the error carries no selection. The TUI reads them through an interface of
// its own, so it needs the document, not the planner.
func (e *NoTargetError) RankedCandidates() (c []planfile.Candidate, ok bool) {
	if e.Selection == nil {
		return nil, false
	}
	return e.Selection.Candidates, true
}

// noTarget builds the error for a selection without a safe candidate.
func noTarget(sel *Selection) *NoTargetError {
	e := &NoTargetError{Selection: sel}
	for _, ev := range sel.evals {
		if ev.class() == 1 {
			e.Nearest = ev.version
			for _, r := range ev.risks {
				e.Risks = append(e.Risks, r.Name)
			}
			return e
		}
	}
	if len(sel.evals) > 0 {
		e.Nearest = sel.evals[0].version
	}
	return e
}

// PayloadMismatchError says the payload given is not the chosen target's.
type PayloadMismatchError struct {
	// Given is the payload source and the version its release-metadata names.
	Given, GivenVersion string
	// Target and TargetImage are the chosen release.
	Target, TargetImage string
}

func (e *PayloadMismatchError) Error() string {
	return fmt.Sprintf("--payload %s is release %s, but the nearest safe target is %s: pass --payload with a %s payload directory, or --payload %s, or omit --payload to pull that image",
		e.Given, e.GivenVersion, e.Target, e.Target, e.TargetImage)
}

// BadInput marks the error as an input problem (exit 4).
func (e *PayloadMismatchError) BadInput() bool { return true }

// ForceRequiredError says the target needs desiredUpdate.force and no reason was given.
type ForceRequiredError struct {
	Target string
	Why    []string
}

func (e *ForceRequiredError) Error() string {
	return fmt.Sprintf("target %s needs a forced update (%s); pass --force-reason \"<why forcing is acceptable>\" to plan it", e.Target, strings.Join(e.Why, "; "))
}

// ExitCode is 2: a flag is missing.
func (e *ForceRequiredError) ExitCode() int { return planfile.ExitUsage }

// CheckError is a plan that broke an invariant when the checker stepped the model
// of the cluster through it. The planner never emits such a plan.
type CheckError struct {
	// Step is the 1-based step index (0: the plan as a whole) and StepID its ID.
	Step   int
	StepID string
	// Rule names the invariant (e.g. "kubelet-skew", "cvo-bracketing").
	Rule string
	Msg  string
}

func (e *CheckError) Error() string {
	where := "the plan"
	if e.StepID != "" {
		where = fmt.Sprintf("step %d (%s)", e.Step, e.StepID)
	}
	return fmt.Sprintf("plan check failed at %s: %s: %s", where, e.Rule, e.Msg)
}
