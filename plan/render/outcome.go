package render

import (
	"fmt"
	"io"

	"github.com/openshift-recover/recover/plan/planfile"
)

// NoPlan writes why there is no plan: the outcome's sentence, its kind and
// rule, and the findings the rule read, with the command that shows them in
// full. recover plan and recover tui print it; the verdict keeps the same
// sentence.
func NoPlan(w io.Writer, o planfile.Outcome) error {
	if _, err := fmt.Fprintf(w, "No plan: %s\nOutcome: %s (rule %s)\n", o.Why, o.Kind, o.Rule); err != nil {
		return err
	}
	if len(o.Evidence) > 0 {
		if _, err := fmt.Fprintln(w, "Evidence:"); err != nil {
			return err
		}
		for _, e := range o.Evidence {
			if _, err := fmt.Fprintf(w, "  - %s %s\n", e.Finding, e.Subject); err != nil {
				return err
			}
		}
	}
	if o.Kind == planfile.OutcomeNothing {
		return nil
	}
	_, err := fmt.Fprintln(w, "recover inspect shows each finding with its evidence and what to do next.")
	return err
}

// OutcomeLine is the plan header's sentence: what the plan does and why (the
// decision's rule), "" for a plan made before formatVersion 1.3.
func OutcomeLine(p *planfile.Plan) string {
	if p.Outcome == nil {
		return ""
	}
	return fmt.Sprintf("Outcome: %s (rule %s). %s", p.Outcome.Kind, p.Outcome.Rule, p.Outcome.Why)
}
