package plan

import (
	"fmt"
	"strings"

	"github.com/openshift-recover/recover/inspect"
)

// The decision: whether recover intervenes at all, and how far. It is made
// once per snapshot (Decide) by the first rule of Rules that holds, and every
// consumer prints the Outcome it chose: recover plan (table, JSON, YAML,
// Markdown), the TUI session, inspect --verdict and the fleet's Jobs. None of
// them decides again.
//
// The rules follow the expert's order in the founding incident (BZ1838497):
// review the state; keep the cluster-version operator (CVO) at the wheel where
// it is doing its job; remedy in place what holds it; and only in the worst
// case, where the CVO would do harm, turn it off and push manifests one at a
// time on its behalf. docs/architecture.md has the table.

// OutcomeKind is how far recover intervenes.
type OutcomeKind string

// The outcomes, from doing nothing to taking the wheel.
const (
	// OutcomeNothing: nothing holds the update; recover changes nothing.
	OutcomeNothing OutcomeKind = "nothing"
	// OutcomeAdvice: something holds the update that recover does not change;
	// the findings say what the admin does. The CVO keeps the wheel.
	OutcomeAdvice OutcomeKind = "advice"
	// OutcomeRemediation: remedies unblock the cluster in place; the CVO is
	// stopped only where it would act on a half-unblocked cluster (not in
	// Updating mode, where it moves forward in its own order).
	OutcomeRemediation OutcomeKind = "remediation"
	// OutcomeDriveCVO: the CVO is given another desired update (a retarget
	// within the minor under way) and carries it out itself.
	OutcomeDriveCVO OutcomeKind = "drive-cvo"
	// OutcomeReplaceCVO: the CVO would do harm (reconcile a mixed cluster
	// flat and shuffled) or the admin asked: it is disabled and recover pushes
	// the target's manifests in its order.
	OutcomeReplaceCVO OutcomeKind = "replace-cvo"
	// OutcomeRefused: remedies exist but recover will not take them, unsafe or
	// waiting for the admin's --accept names.
	OutcomeRefused OutcomeKind = "refused"
)

// Makes reports whether the outcome is carried out by a plan.
func (k OutcomeKind) Makes() bool {
	switch k {
	case OutcomeRemediation, OutcomeDriveCVO, OutcomeReplaceCVO:
		return true
	}
	return false
}

// NeedsRelease reports whether the outcome needs a target release (an update
// graph to choose it from).
func (k OutcomeKind) NeedsRelease() bool { return k == OutcomeDriveCVO || k == OutcomeReplaceCVO }

// Outcome is the decision for one snapshot: its kind, the rule that chose it,
// one sentence why, and the findings that rule read.
type Outcome struct {
	Kind OutcomeKind `json:"kind"`
	// Rule names the rule of Rules that chose it.
	Rule string `json:"rule"`
	// Why says in one sentence why this outcome was chosen (the plan's
	// header, the verdict's reason, "nothing to apply").
	Why string `json:"why"`
	// Evidence are the findings the rule read.
	Evidence []Evidence `json:"evidence,omitempty"`
}

// Evidence is one finding an outcome's rule read.
type Evidence struct {
	Finding string `json:"finding"`
	Subject string `json:"subject,omitempty"`
}

// RuleAdminTakesOver is the rule of the admin's explicit request (--take-over).
const RuleAdminTakesOver = "admin-takes-over"

// Rule is one row of the decision table.
type Rule struct {
	// Name is the rule's name (Outcome.Rule).
	Name string
	// Kind is the outcome it chooses.
	Kind OutcomeKind
	// Doc says when it holds, for the docs' table.
	Doc string
	// when returns why and the evidence, or ok false when the rule does not hold.
	when func(c *decideFacts) (why string, ev []Evidence, ok bool)
}

// decideFacts are what the rules read: the snapshot, why it needs a new
// release, the remedy stage and the admin's explicit request.
type decideFacts struct {
	s        *inspect.Snapshot
	needs    []TargetNeed
	rs       *remedyStage
	takeOver string
	goal     string
}

// Rules is the decision table, in order: the first rule that holds decides.
var Rules = []Rule{
	{Name: RuleAdminTakesOver, Kind: OutcomeReplaceCVO,
		Doc: "the admin asked recover to take the wheel (recover plan --take-over REASON); the plan records the reason in its outcome",
		when: func(c *decideFacts) (string, []Evidence, bool) {
			if c.takeOver == "" {
				return "", nil, false
			}
			return fmt.Sprintf("The admin asked recover to take the wheel from the CVO (--take-over: %s): it is disabled and the target's manifests are pushed in its order.", c.takeOver), nil, true
		}},
	{Name: "cvo-would-reconcile-mixed", Kind: OutcomeReplaceCVO,
		Doc: "the cluster runs mixed releases (an update claimed complete over them, kubelet skew, a static pod contradicting its operator) and the CVO is not updating: left running it reconciles the manifests flat and shuffled over the mixed state (BZ1838497)",
		when: func(c *decideFacts) (string, []Evidence, bool) {
			if c.s.CVOMode() == inspect.ModeUpdating {
				return "", nil, false
			}
			var ev []Evidence
			var reasons []string
			for _, n := range c.needs {
				if !n.Retarget {
					ev = append(ev, Evidence{Finding: n.Finding, Subject: n.Subject})
					reasons = append(reasons, n.Finding)
				}
			}
			if len(ev) == 0 {
				return "", nil, false
			}
			return fmt.Sprintf("The CVO is %s over a cluster that runs mixed releases (%s): left running it would push %s's manifests flat and shuffled (BZ1838497), so it is disabled and the nearest safe release is pushed in order.",
				c.s.CVOMode(), strings.Join(reasons, ", "), orWord(c.s.DesiredRelease().Version, "its desired release")), ev, true
		}},
	{Name: "retarget-in-flight", Kind: OutcomeDriveCVO,
		Doc: "the release the cluster updates to carries a risk, or Upgradeable=False holds a minor update under way: the CVO is retargeted within that minor and carries the update out itself",
		when: func(c *decideFacts) (string, []Evidence, bool) {
			var ev []Evidence
			var reasons []string
			for _, n := range c.needs {
				if n.Retarget {
					ev = append(ev, Evidence{Finding: n.Finding, Subject: n.Subject})
					reasons = append(reasons, n.Reason)
				}
			}
			if len(ev) == 0 {
				return "", nil, false
			}
			return "The CVO is given another desired update and carries it out itself: " + strings.Join(reasons, "; ") + ".", ev, true
		}},
	{Name: "remedies-refused", Kind: OutcomeRefused,
		Doc: "what holds the update has remedies recover will not take: unsafe ones (a guard PDB, a CSR nobody vouches for) or promises waiting for the admin's --accept names",
		when: func(c *decideFacts) (string, []Evidence, bool) {
			e := c.rs.refusedError()
			if e == nil {
				return "", nil, false
			}
			var ev []Evidence
			for _, r := range e.Refused {
				ev = append(ev, Evidence{Finding: r.Finding, Subject: r.Subject})
			}
			return "Recover will not take the remedies for what holds the update: " + e.Error() + ".", ev, true
		}},
	{Name: RuleStagedGoal, Kind: OutcomeDriveCVO,
		Doc: "the admin named a goal release (recover plan --to VERSION): the first stage is a hop the CVO drives, even where nothing holds the cluster",
		when: func(c *decideFacts) (string, []Evidence, bool) {
			if c.goal == "" {
				return "", nil, false
			}
			return fmt.Sprintf("The admin asked for %s (recover plan --to): the CVO is driven there stage by stage.", c.goal), nil, true
		}},
	{Name: "remedies", Kind: OutcomeRemediation,
		Doc: "remedies unblock the cluster in place (relax a PDB, approve a vouched CSR, unpause a pool, the admin's promises, ...); the CVO resumes its own update",
		when: func(c *decideFacts) (string, []Evidence, bool) {
			if len(c.rs.groups) == 0 {
				return "", nil, false
			}
			var ev []Evidence
			var names []string
			for _, g := range c.rs.groups {
				for _, r := range g.rems {
					ev = append(ev, Evidence{Finding: r.r.Finding, Subject: r.r.Subject})
					names = append(names, r.r.Remedy)
				}
			}
			how := "with the CVO left running: in Updating mode it moves forward in its own order and does not undo them"
			if remediationStopsCVO(c.s) {
				how = fmt.Sprintf("with the CVO stopped while they run (in %s mode it would re-apply its manifests over the half-unblocked cluster)", c.s.CVOMode())
			}
			return fmt.Sprintf("Remedies unblock the cluster in place (%s), %s; then the CVO resumes %s.", strings.Join(uniq(names), ", "), how, orWord(c.s.DesiredRelease().Version, "its desired update")), ev, true
		}},
	{Name: "cvo-at-the-wheel", Kind: OutcomeAdvice,
		Doc: "something holds the update that recover does not change in place; the CVO keeps the wheel (an update in progress only goes forward) and the findings say what the admin does",
		when: func(c *decideFacts) (string, []Evidence, bool) {
			var ev []Evidence
			for _, w := range c.s.Wedges {
				if w.Class == inspect.ClassBlocks {
					subject := ""
					if len(w.Subjects) > 0 {
						subject = w.Subjects[0]
					}
					ev = append(ev, Evidence{Finding: w.Code, Subject: subject})
				}
			}
			for _, n := range c.needs { // mixed versions under an update in progress
				ev = append(ev, Evidence{Finding: n.Finding, Subject: n.Subject})
			}
			if len(ev) == 0 {
				return "", nil, false
			}
			if c.s.CVOMode() == inspect.ModeUpdating {
				return fmt.Sprintf("The CVO is updating to %s and keeps the wheel: recover changes nothing, and the findings say what holds it and what the admin does.", orWord(c.s.DesiredRelease().Version, "its desired release")), ev, true
			}
			return "Recover has no remedy it changes in place for what holds the update: it changes nothing, and the findings say what the admin does.", ev, true
		}},
	{Name: "nothing-holds", Kind: OutcomeNothing,
		Doc: "no finding holds the update: recover changes nothing",
		when: func(c *decideFacts) (string, []Evidence, bool) {
			return "Nothing holds the update: recover changes nothing.", nil, true
		}},
}

// decide runs the table.
func decide(c *decideFacts) Outcome {
	for _, r := range Rules {
		if why, ev, ok := r.when(c); ok {
			return Outcome{Kind: r.Kind, Rule: r.Name, Why: why, Evidence: ev}
		}
	}
	panic("plan: the decision table has no rule for a snapshot (nothing-holds always holds)")
}

// remediationStopsCVO reports whether a remediation plan stops the CVO while
// its remedies run: not in Updating mode, where the CVO moves forward in its
// own order and none of the remedies is an object it manages; in Reconciling
// (or an unknown) mode it re-applies every manifest flat over the
// half-unblocked cluster.
func remediationStopsCVO(s *inspect.Snapshot) bool {
	return s.CVOMode() != inspect.ModeUpdating
}

// refusedError is the refusal the remedy stage ends in (nil: none): a
// blocking refusal no step answers, or, with no step at all, any refusal but
// a retarget's.
func (rs *remedyStage) refusedError() *RemedyRefusedError {
	if len(rs.groups) == 0 {
		var refused []RefusedRemedy
		for _, r := range rs.refused {
			if r.Remedy != RemedyRetarget {
				refused = append(refused, r.RefusedRemedy)
			}
		}
		if len(refused) == 0 {
			return nil
		}
		return &RemedyRefusedError{Refused: refused, All: refused}
	}
	if err := blockingError(rs.refused, rs.groups); err != nil {
		return err.(*RemedyRefusedError)
	}
	return nil
}

func uniq(ss []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// NoPlanError is an outcome that makes no plan (advice, nothing holds the
// update, or a refusal that is not a RemedyRefusedError): recover changes
// nothing, and says why in the Outcome's words.
type NoPlanError struct {
	Outcome Outcome
}

func (e *NoPlanError) Error() string { return "no plan: " + e.Outcome.Why }

// ExitCode is the exit code of recover plan and recover tui for advice (13);
// nothing holding the update is no failure (0).
func (e *NoPlanError) ExitCode() int {
	if e.Outcome.Kind == OutcomeNothing {
		return 0
	}
	return exitAdvice
}

// Report is the document recover prints for it (-o json|yaml).
func (e *NoPlanError) Report() *NoPlanReport {
	return &NoPlanReport{Kind: "NoPlan", FormatVersion: NoPlanReportVersion, Outcome: e.Outcome}
}

// NoPlanReportVersion is the NoPlanReport's format version.
const NoPlanReportVersion = "1.0"

// NoPlanReport is why there is no plan, one shape for recover plan, the TUI
// and the fleet: the outcome with its rule and evidence.
type NoPlanReport struct {
	Kind          string  `json:"kind"`
	FormatVersion string  `json:"formatVersion"`
	Outcome       Outcome `json:"outcome"`
}
