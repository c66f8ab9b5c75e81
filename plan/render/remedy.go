package render

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/openshift-recover/recover/internal/nextcmd"
	"github.com/openshift-recover/recover/plan/planfile"
)

// What the renderers show of remediation steps (formatVersion 1.1): the mode,
// the remediations with their steps, each temporary change beside the revert it
// is paired with, the Change's before and patch, and the refused remedies with
// the --accept name that would allow them.

// stepNumber is the position part of a step ID ("007" of "007-revert-...").
func stepNumber(id string) string { return planfile.StepNumber(id) }

// changeNote says what a remediation step changes and how it pairs with its
// revert, in its action's words (plan.ActionSpec.Note): "relaxes PodDisruptionBudget ci/build
// (restored by step 004)".
func changeNote(p *planfile.Plan, s *planfile.Step) string { return planfile.StepNote(p, s) }

// hasRemedies reports whether the plan carries remediation steps.
func hasRemedies(p *planfile.Plan) bool {
	for _, s := range p.Steps {
		if s.Remedy != "" {
			return true
		}
	}
	return false
}

// stepIDs is "002, 003, 004".
func stepIDs(ids []string) string {
	var out []string
	for _, id := range ids {
		out = append(out, stepNumber(id))
	}
	return strings.Join(out, ", ")
}

// Refusals writes the report of refused remedies (when no plan is made): the
// refusals of what holds the cluster, then the others.
func Refusals(w io.Writer, blocking, all []planfile.RefusedRemedy) error {
	ew := &errWriter{w: w}
	ew.printf("REFUSED (what holds the cluster has no remedy recover takes as things stand)\n")
	writeRefused(ew, blocking)
	var other []planfile.RefusedRemedy
	for _, r := range all {
		if !containsRefusal(blocking, r) {
			other = append(other, r)
		}
	}
	if len(other) > 0 {
		ew.printf("\nALSO NOT TAKEN\n")
		writeRefused(ew, other)
	}
	return ew.err
}

func containsRefusal(rs []planfile.RefusedRemedy, r planfile.RefusedRemedy) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

func writeRefused(ew *errWriter, rs []planfile.RefusedRemedy) {
	for _, r := range rs {
		ew.printf("  - %s %s (%s): %s\n", r.Remedy, r.Subject, r.Finding, r.Reason)
		if r.Accept != "" {
			ew.printf("    allow it with: --accept %s\n", r.Accept)
		} else {
			ew.printf("    never taken by recover\n")
		}
	}
}

// writeRemediations writes the table view's REMEDIATIONS and REFUSED sections.
func writeRemediations(ew *errWriter, p *planfile.Plan) {
	if len(p.Remediations) > 0 {
		ew.printf("\nREMEDIATIONS (what holds the cluster, and the steps that unblock it)\n")
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  REMEDY\tFINDING\tSUBJECT\tSTEPS\tWHAT")
		for _, r := range p.Remediations {
			what := r.Summary
			if r.Accepted != "" {
				what += " (--accept " + r.Accepted + ")"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", r.Remedy, r.Finding, r.Subject, stepIDs(r.Steps), what)
		}
		ew.flush(tw)
	}
	if len(p.Refused) > 0 {
		ew.printf("\nREFUSED (remedies the plan does not take)\n")
		writeRefused(ew, p.Refused)
	}
}

// markdownRemediations writes the runbook's remediation and refusal sections.
func markdownRemediations(md func(string, ...any), p *planfile.Plan) {
	if len(p.Remediations) > 0 {
		md("\n## Remediations\n\n")
		md("What holds the cluster, and the steps that unblock it. A temporary change is always restored by its paired revert step, from the pre-image `recover apply` journals just before the change (also when a run stops early).\n\n")
		md("| remedy | finding | subject | steps | what |\n|---|---|---|---|---|\n")
		for _, r := range p.Remediations {
			what := r.Summary
			if r.Accepted != "" {
				what += fmt.Sprintf(" Accepted with `--accept %s`.", r.Accepted)
			}
			md("| %s | %s | `%s` | %s | %s |\n", r.Remedy, r.Finding, r.Subject, stepIDs(r.Steps), cell(what))
		}
		var pairs []string
		for i := range p.Steps {
			if s := &p.Steps[i]; s.RevertedBy != "" {
				pairs = append(pairs, fmt.Sprintf("- Step %s %s.", stepNumber(s.ID), changeNote(p, s)))
			}
		}
		if len(pairs) > 0 {
			md("\nTemporary changes:\n\n%s\n", strings.Join(pairs, "\n"))
		}
	}
	if len(p.Refused) > 0 {
		md("\n## Refused remedies\n\n| remedy | finding | subject | why not | to allow it |\n|---|---|---|---|---|\n")
		for _, r := range p.Refused {
			allow := "never taken by recover"
			if r.Accept != "" {
				allow = "`--accept " + r.Accept + "`"
			}
			md("| %s | %s | `%s` | %s | %s |\n", r.Remedy, r.Finding, r.Subject, cell(r.Reason), allow)
		}
	}
}

// markdownStepChange writes a step's change, its pairing and its CSR.
func markdownStepChange(md func(string, ...any), p *planfile.Plan, s *planfile.Step) {
	if c := s.Change; c != nil {
		what := "Change"
		if s.Spec().Undoes {
			what = "Restores"
		}
		md("  - %s: `%s` %s: before `%s` -> patch `%s`", what, c.Object, fieldList(c.Fields), orDash(string(c.Before)), string(c.Patch))
		if c.UID != "" {
			md(" (uid `%s`)", c.UID)
		}
		md("\n")
	}
	if s.RevertedBy != "" {
		md("  - Temporary: %s; `recover apply` journals %s first.\n", changeNote(p, s), fieldList(s.Change.Fields))
	}
	if s.Reverts != "" {
		if t := p.StepByID(s.Reverts); t != nil {
			md("  - Reverts step %s: writes back the pre-image journaled before it (the patch above is what the snapshot showed).\n", stepNumber(t.ID))
		}
	}
	if a := s.CSR; a != nil {
		md("  - Approves: `%s` (signer %s, requested by `%s`, CN `%s`), vouched for by %s.\n", a.Name, a.SignerName, a.Username, a.CommonName, a.VouchedBy)
	}
}

func fieldList(fs [][]string) string {
	var out []string
	for _, f := range fs {
		out = append(out, "`"+strings.Join(f, ".")+"`")
	}
	return strings.Join(out, ", ")
}

// ocResource is how oc names an object: "poddisruptionbudget/build",
// "kubeapiserver.operator.openshift.io/cluster".
func ocResource(o planfile.ObjectRef) string {
	return nextcmd.Resource(o.APIVersion, o.Kind, o.Name)
}

// ocNamespace is " -n <ns>" or "".
func ocNamespace(o planfile.ObjectRef) string {
	if o.Namespace == "" {
		return ""
	}
	return " -n " + o.Namespace
}

// remedyGateCommand shows what a remediation gate waits for.
func remedyGateCommand(g *planfile.Gate) string {
	switch g.Kind {
	case planfile.GateNodesSettled:
		return "oc get nodes " + strings.Join(g.Nodes, " ") + ` -o custom-columns='NAME:.metadata.name,DESIRED:.metadata.annotations.machineconfiguration\.openshift\.io/desiredDrain,APPLIED:.metadata.annotations.machineconfiguration\.openshift\.io/lastAppliedDrain,STATE:.metadata.annotations.machineconfiguration\.openshift\.io/state'`
	case planfile.GateNodesReady:
		return "oc get nodes " + strings.Join(g.Nodes, " ")
	case planfile.GateCSRIssued:
		if g.Object != nil {
			return "oc get csr " + g.Object.Name
		}
	case planfile.GateRestored:
		if g.Object != nil {
			return fmt.Sprintf("oc get%s %s -o yaml", ocNamespace(*g.Object), ocResource(*g.Object))
		}
	case planfile.GateConditionCleared:
		if g.Object != nil {
			return fmt.Sprintf(`oc get %s -o jsonpath='{.status.conditions[?(@.type=="%s")]}'`, ocResource(*g.Object), g.Condition)
		}
	}
	return ""
}
