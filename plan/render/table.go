package render

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/openshift-recover/recover/plan/planfile"
)

// Table writes the terminal view of a plan: the cluster as it really is, the
// target and why, every candidate with its verdict and rule, what is skipped, the
// steps with their gates, and the warnings.
func Table(w io.Writer, p *planfile.Plan) error {
	ew := &errWriter{w: w}
	n := countActions(p)
	remediation := p.EffectiveMode() == planfile.ModeRemediation
	if remediation {
		ew.printf("Plan: remediation only (no new release) on %s, %d steps (%d remediation, %d wait); %s.\n",
			fromVersions(p.Cluster.Components), len(p.Steps), remedySteps(p), n[planfile.ActionWait], cvoBracket(p, false))
	} else {
		ew.printf("Plan: %s -> %s, %d steps (%s); %s.\n",
			fromVersions(p.Cluster.Components), p.Target.Version, len(p.Steps), updateStepCounts(p), cvoBracket(p, false))
	}
	if line := OutcomeLine(p); line != "" {
		ew.printf("%s\n", line)
	}
	ew.printf("\n")

	ew.printf("CLUSTER %s (fingerprint %s)\n", orDash(p.Cluster.ClusterID), p.Cluster.Fingerprint)
	ew.printf("  claims:    %s %s; a restarted CVO would run in %s mode\n", orDash(p.Cluster.ClaimedVersion), orDash(p.Cluster.ClaimedState), orDash(p.Cluster.CVOMode))
	for i, g := range versionGroups(p.Cluster.Components) {
		ew.printf("  %-10s %s\n", pick(i == 0, "runs:", ""), g)
	}
	for i, g := range kubeletGroups(p.Cluster.Components) {
		ew.printf("  %-10s %s\n", pick(i == 0, "kubelets:", ""), g)
	}
	for i, f := range p.Cluster.Findings {
		ew.printf("  %-10s %s %s %s\n", pick(i == 0, "findings:", ""), strings.ToUpper(f.Severity), f.Code, f.Subject)
	}

	if remediation {
		ew.printf("\nTARGET none (remediation only)\n")
	} else {
		ew.printf("\nTARGET %s  %s\n", p.Target.Version, p.Target.Image)
	}
	for _, r := range p.Target.Reasons {
		ew.printf("  - %s\n", r)
	}
	writeStages(ew, p)

	if !remediation {
		ew.printf("\nCANDIDATES (ranked; the rule says why each other release was not chosen)\n")
		cands := append([]planfile.Candidate{{Version: p.Target.Version, Rank: 1, Distance: p.Target.Distance, Verdict: "chosen", Reason: "the target"}}, p.Alternatives...)
		if err := writeCandidates(ew, cands); err != nil && ew.err == nil {
			ew.err = err
		}
	}
	writeRemediations(ew, p)

	if len(p.Skipped) > 0 {
		ew.printf("\nSKIPPED (verified at %s already)\n", p.Target.Version)
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		for _, s := range p.Skipped {
			fmt.Fprintf(tw, "  %s\t%d manifests\t%s\n", s.Component, s.Manifests, s.Reason)
		}
		ew.flush(tw)
	}

	ew.printf("\nSTEPS (each waits for its gate before the next starts)\n")
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	if hasRemedies(p) {
		fmt.Fprintln(tw, "  ID\tLEVEL\tCOMPONENT\tACTION\tGATE\tCHANGE")
		for i := range p.Steps {
			s := &p.Steps[i]
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", s.ID, orDash(s.RunLevel), orDash(s.Component), s.Action, gateText(s.Gate), orDash(changeNote(p, s)))
		}
	} else {
		fmt.Fprintln(tw, "  ID\tLEVEL\tCOMPONENT\tACTION\tGATE")
		for i := range p.Steps {
			s := &p.Steps[i]
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", s.ID, orDash(s.RunLevel), orDash(s.Component), s.Action, gateText(s.Gate))
		}
	}
	ew.flush(tw)

	if len(p.Warnings) > 0 {
		ew.printf("\nWARNINGS\n")
		for _, wn := range p.Warnings {
			ew.printf("  - %s\n", wn)
		}
	}
	return ew.err
}

// Candidates writes the candidate table alone (when no target qualifies).
func Candidates(w io.Writer, cands []planfile.Candidate) error {
	ew := &errWriter{w: w}
	ew.printf("CANDIDATES (ranked; the rule says why each release does not qualify)\n")
	if err := writeCandidates(ew, cands); err != nil {
		return err
	}
	var risks []string
	seen := map[string]bool{}
	for _, c := range cands {
		for _, r := range c.Risks {
			if !seen[r.Name] {
				seen[r.Name] = true
				line := "  - " + r.Name
				if r.Message != "" {
					line += ": " + r.Message
				}
				if r.URL != "" {
					line += " (" + r.URL + ")"
				}
				risks = append(risks, line)
			}
		}
	}
	if len(risks) > 0 {
		ew.printf("\nRISKS (name them with --accept once reviewed)\n%s\n", strings.Join(risks, "\n"))
	}
	return ew.err
}

func writeCandidates(w io.Writer, cands []planfile.Candidate) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  RANK\tVERSION\tVERDICT\tMOVES\tRULE\tREASON")
	for _, c := range cands {
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\n", c.Rank, c.Version, c.Verdict, distance(c.Distance), orDash(c.Rule), c.Reason)
	}
	return tw.Flush()
}

func pick(first bool, a, b string) string {
	if first {
		return a
	}
	return b
}

// errWriter keeps the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(b []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(b)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, args ...any) { fmt.Fprintf(e, format, args...) }

func (e *errWriter) flush(tw *tabwriter.Writer) {
	if err := tw.Flush(); err != nil && e.err == nil {
		e.err = err
	}
}
