package verdict

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/openshift-recover/recover/internal/termtext"
)

// tableClusters is how many cluster names a table row lists before "and N
// more" (JSON and Markdown list every one).
const tableClusters = 5

// WriteFleetTable writes the report for a terminal: a summary line, one row
// per signature, and the clusters that could not be inspected.
func WriteFleetTable(w io.Writer, r *FleetReport) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, summaryLine(r))
	if len(r.Groups) > 0 {
		fmt.Fprintln(bw)
		tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "SIGNATURE\tCLUSTERS\tCAUSES\tANSWER\tREMEDIES\tEXAMPLES")
		for _, g := range r.Groups {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", g.Signature, g.Count, orDash(causesText(g.Causes)), g.Answer,
				orDash(remedyText(g)), termtext.OneLine(clusterList(g.Clusters, tableClusters)))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(r.Failures) > 0 {
		fmt.Fprintf(bw, "\nCould not inspect %d:\n", len(r.Failures))
		for _, f := range r.Failures {
			fmt.Fprintf(bw, "  %s: %s\n", termtext.OneLine(f.Cluster), termtext.OneLine(f.Error))
		}
	}
	return bw.Flush()
}

// WriteFleetMarkdown writes the report as Markdown: the summary, a table of
// the signatures, then each signature's clusters.
func WriteFleetMarkdown(w io.Writer, r *FleetReport) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# Fleet verdict\n\n%s\n", summaryLine(r))
	if len(r.Groups) > 0 {
		fmt.Fprint(bw, "\n| signature | clusters | causes | answer | remedies |\n|---|---|---|---|---|\n")
		for _, g := range r.Groups {
			fmt.Fprintf(bw, "| `%s` | %d | %s | %s | %s |\n", g.Signature, g.Count, mdCell(orDash(causesText(g.Causes))), g.Answer, mdCell(orDash(remedyText(g))))
		}
		for _, g := range r.Groups {
			fmt.Fprintf(bw, "\n## `%s` (%d)\n\n", g.Signature, g.Count)
			for _, c := range g.Causes {
				fmt.Fprintf(bw, "%d. %s `%s`\n", c.Rank, c.Code, mdCell(c.Subject))
			}
			if len(g.Causes) > 0 {
				fmt.Fprintln(bw)
			}
			fmt.Fprintf(bw, "Answer: %s%s.\n\n", g.Answer, remedySuffix(g))
			for _, c := range g.Clusters {
				fmt.Fprintf(bw, "- %s\n", mdCell(c))
			}
		}
	}
	if len(r.Failures) > 0 {
		fmt.Fprintf(bw, "\n## Could not inspect (%d)\n\n", len(r.Failures))
		for _, f := range r.Failures {
			fmt.Fprintf(bw, "- %s: %s\n", mdCell(f.Cluster), mdCell(f.Error))
		}
	}
	return bw.Flush()
}

func summaryLine(r *FleetReport) string {
	ok := r.Clusters - r.Wedged - r.Failed
	wedgedGroups := 0
	for _, g := range r.Groups {
		if g.Wedged {
			wedgedGroups++
		}
	}
	return fmt.Sprintf("%d clusters: %d wedged (%d signatures), %d not wedged, %d could not be inspected.", r.Clusters, r.Wedged, wedgedGroups, ok, r.Failed)
}

func causesText(cs []Cause) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, c.Code+" "+c.Subject)
	}
	return strings.Join(parts, "; ")
}

func remedyText(g FleetGroup) string {
	s := strings.Join(g.Remedies, ",")
	if len(g.Accept) > 0 {
		s += " (--accept " + strings.Join(g.Accept, ",") + ")"
	}
	return strings.TrimSpace(s)
}

func remedySuffix(g FleetGroup) string {
	if t := remedyText(g); t != "" {
		return ", " + t
	}
	return ""
}

func clusterList(names []string, max int) string {
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:max], ", "), len(names)-max)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// mdCell makes text safe in a Markdown line or table cell: one line, pipes
// escaped.
func mdCell(s string) string {
	return strings.ReplaceAll(termtext.OneLine(s), "|", `\|`)
}
