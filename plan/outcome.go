package plan

import (
	"fmt"
	"strings"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan/planfile"
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

// RuleAdminTakesOver is the rule of the admin's explicit request (--take-over).
const RuleAdminTakesOver = "admin-takes-over"

// Rule is one row of the decision table.
type Rule struct {
	// Name is the rule's name (Outcome.Rule).
	Name string
	// Kind is the outcome it chooses.
	Kind planfile.OutcomeKind
	// Doc says when it holds, for the docs' table.
	Doc string
	// when returns why and the evidence, or ok false when the rule does not hold.
	when func(c *decideFacts) (why string, ev []planfile.Evidence, ok bool)
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
	{Name: RuleAdminTakesOver, Kind: planfile.OutcomeReplaceCVO,
		Doc: "the admin asked recover to take the wheel (recover plan --take-over REASON); the plan records the reason in its outcome",
		when: func(c *decideFacts) (string, []planfile.Evidence, bool) {
			if c.takeOver == "" {
				return "", nil, false
			}
			return fmt.Sprintf("The admin asked recover to take the wheel from the CVO (--take-over: %s): it is disabled and the target's manifests are pushed in its order.", c.takeOver), nil, true
		}},
	{Name: "cvo-would-reconcile-mixed", Kind: planfile.OutcomeReplaceCVO,
		Doc: "the cluster runs mixed releases (an update claimed complete over them, kubelet skew, a static pod contradicting its operator) and the CVO is not updating: left running it reconciles the manifests flat and shuffled over the mixed state (BZ1838497)",
		when: func(c *decideFacts) (string, []planfile.Evidence, bool) {
			if c.s.CVOMode() == inspect.ModeUpdating {
				return "", nil, false
			}
			var ev []planfile.Evidence
			var reasons []string
			for _, n := range c.needs {
				if !n.Retarget {
					ev = append(ev, planfile.Evidence{Finding: n.Finding, Subject: n.Subject})
					reasons = append(reasons, n.Finding)
				}
			}
			if len(ev) == 0 {
				return "", nil, false
			}
			return fmt.Sprintf("The CVO is %s over a cluster that runs mixed releases (%s): left running it would push %s's manifests flat and shuffled (BZ1838497), so it is disabled and the nearest safe release is pushed in order.",
				c.s.CVOMode(), strings.Join(reasons, ", "), orWord(c.s.DesiredRelease().Version, "its desired release")), ev, true
		}},
	{Name: "retarget-in-flight", Kind: planfile.OutcomeDriveCVO,
		Doc: "the release the cluster updates to carries a risk, or Upgradeable=False holds a minor update under way: the CVO is retargeted within that minor and carries the update out itself",
		when: func(c *decideFacts) (string, []planfile.Evidence, bool) {
			var ev []planfile.Evidence
			var reasons []string
			for _, n := range c.needs {
				if n.Retarget {
					ev = append(ev, planfile.Evidence{Finding: n.Finding, Subject: n.Subject})
					reasons = append(reasons, n.Reason)
				}
			}
			if len(ev) == 0 {
				return "", nil, false
			}
			return "The CVO is given another desired update and carries it out itself: " + strings.Join(reasons, "; ") + ".", ev, true
		}},
	{Name: "remedies-refused", Kind: planfile.OutcomeRefused,
		Doc: "what holds the update has remedies recover will not take: unsafe ones (a guard PDB, a CSR nobody vouches for) or promises waiting for the admin's --accept names",
		when: func(c *decideFacts) (string, []planfile.Evidence, bool) {
			e := c.rs.refusedError()
			if e == nil {
				return "", nil, false
			}
			var ev []planfile.Evidence
			for _, r := range e.Refused {
				ev = append(ev, planfile.Evidence{Finding: r.Finding, Subject: r.Subject})
			}
			return "Recover will not take the remedies for what holds the update: " + e.Error() + ".", ev, true
		}},
	{Name: RuleStagedGoal, Kind: planfile.OutcomeDriveCVO,
		Doc: "the admin named a goal release (recover plan --to VERSION): the first stage is a hop the CVO drives, even where nothing holds the cluster",
		when: func(c *decideFacts) (string, []planfile.Evidence, bool) {
			if c.goal == "" {
				return "", nil, false
			}
			return fmt.Sprintf("The admin asked for %s (recover plan --to): the CVO is driven there stage by stage.", c.goal), nil, true
		}},
	{Name: "remedies", Kind: planfile.OutcomeRemediation,
		Doc: "remedies unblock the cluster in place (relax a PDB, approve a vouched CSR, unpause a pool, the admin's promises, ...); the CVO resumes its own update",
		when: func(c *decideFacts) (string, []planfile.Evidence, bool) {
			if len(c.rs.groups) == 0 {
				return "", nil, false
			}
			var ev []planfile.Evidence
			var names []string
			for _, g := range c.rs.groups {
				for _, r := range g.rems {
					ev = append(ev, planfile.Evidence{Finding: r.r.Finding, Subject: r.r.Subject})
					names = append(names, r.r.Remedy)
				}
			}
			how := "with the CVO left running: in Updating mode it moves forward in its own order and does not undo them"
			if remediationStopsCVO(c.s) {
				how = fmt.Sprintf("with the CVO stopped while they run (in %s mode it would re-apply its manifests over the half-unblocked cluster)", c.s.CVOMode())
			}
			return fmt.Sprintf("Remedies unblock the cluster in place (%s), %s; then the CVO resumes %s.", strings.Join(uniq(names), ", "), how, orWord(c.s.DesiredRelease().Version, "its desired update")), ev, true
		}},
	{Name: "cvo-at-the-wheel", Kind: planfile.OutcomeAdvice,
		Doc: "something holds the update that recover does not change in place; the CVO keeps the wheel (an update in progress only goes forward) and the findings say what the admin does",
		when: func(c *decideFacts) (string, []planfile.Evidence, bool) {
			var ev []planfile.Evidence
			for _, w := range c.s.Wedges {
				if w.Class == inspect.ClassBlocks {
					subject := ""
					if len(w.Subjects) > 0 {
						subject = w.Subjects[0]
					}
					ev = append(ev, planfile.Evidence{Finding: w.Code, Subject: subject})
				}
			}
			for _, n := range c.needs { // mixed versions under an update in progress
				ev = append(ev, planfile.Evidence{Finding: n.Finding, Subject: n.Subject})
			}
			if len(ev) == 0 {
				return "", nil, false
			}
			if c.s.CVOMode() == inspect.ModeUpdating {
				return fmt.Sprintf("The CVO is updating to %s and keeps the wheel: recover changes nothing, and the findings say what holds it and what the admin does.", orWord(c.s.DesiredRelease().Version, "its desired release")), ev, true
			}
			return "Recover has no remedy it changes in place for what holds the update: it changes nothing, and the findings say what the admin does.", ev, true
		}},
	{Name: "nothing-holds", Kind: planfile.OutcomeNothing,
		Doc: "no finding holds the update: recover changes nothing",
		when: func(c *decideFacts) (string, []planfile.Evidence, bool) {
			return "Nothing holds the update: recover changes nothing.", nil, true
		}},
}

// decide runs the table.
func decide(c *decideFacts) planfile.Outcome {
	for _, r := range Rules {
		if why, ev, ok := r.when(c); ok {
			return planfile.Outcome{Kind: r.Kind, Rule: r.Name, Why: why, Evidence: ev}
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
func (rs *remedyStage) refusedError() *planfile.RemedyRefusedError {
	if len(rs.groups) == 0 {
		var refused []planfile.RefusedRemedy
		for _, r := range rs.refused {
			if r.Remedy != planfile.RemedyRetarget {
				refused = append(refused, r.RefusedRemedy)
			}
		}
		if len(refused) == 0 {
			return nil
		}
		return &planfile.RemedyRefusedError{Refused: refused, All: refused}
	}
	if err := blockingError(rs.refused, rs.groups); err != nil {
		return err.(*planfile.RemedyRefusedError)
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
	Outcome planfile.Outcome
}

func (e *NoPlanError) Error() string { return "no plan: " + e.Outcome.Why }

// ExitCode is the exit code of recover plan and recover tui for advice (13);
// nothing holding the update is no failure (0).
func (e *NoPlanError) ExitCode() int {
	if e.Outcome.Kind == planfile.OutcomeNothing {
		return 0
	}
	return planfile.ExitAdvice
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
	Kind          string           `json:"kind"`
	FormatVersion string           `json:"formatVersion"`
	Outcome       planfile.Outcome `json:"outcome"`
}
