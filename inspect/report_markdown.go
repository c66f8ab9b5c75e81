package inspect

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// WriteMarkdown writes the snapshot as a Markdown report for a support case or a
// change review: why the cluster is stuck first, then the claim beside the
// reality, and every finding with its class, evidence and details.
func WriteMarkdown(w io.Writer, s *Snapshot, o ReportOptions) error {
	if o.MaxNames == 0 {
		o.MaxNames = 8
	}
	if s.Summary == nil {
		Refresh(s)
	}
	p := &printer{w: w}
	sum := s.Summary
	title := "cluster"
	if cv := s.ClusterVersion; cv != nil && cv.Spec.ClusterID != "" {
		title = "cluster " + string(cv.Spec.ClusterID)
	}
	p.f("# recover inspect: %s\n\n", title)
	p.f("- Source: %s `%s`\n", s.Source.Kind, mdCode(s.Source.Location))
	if !s.Source.CollectedAt.IsZero() {
		p.f("- Observed: %s (%s)\n", s.Source.CollectedAt.UTC().Format(time.RFC3339), s.Source.CollectedAtFrom)
	}
	p.f("- Fingerprint: `%s`\n", sum.Fingerprint)
	p.f("- CVO: %s\n\n", cvoLine(s))

	p.f("## Why this cluster is stuck\n\n")
	ws := s.WhyStuck()
	if len(ws) == 0 {
		p.f("Nothing holds it: claims and reality agree.\n\n")
	}
	for _, wd := range ws {
		label := "blocks the update"
		if wd.Class != ClassBlocks {
			label = "informs"
		}
		p.f("%d. **%s** (%s): %s\n", wd.Rank, wd.Code, label, mdText(wd.Summary))
		if len(wd.Subjects) > 0 {
			var subs []string
			for _, sub := range wd.Subjects {
				subs = append(subs, "`"+mdCode(sub)+"`")
			}
			p.f("   - Findings: %s\n", capNames(subs, 12))
		}
		if len(wd.Timeline) > 0 {
			var links []string
			for _, id := range wd.Timeline {
				links = append(links, "["+id+"](#"+id+")")
			}
			p.f("   - Timeline: %s\n", strings.Join(links, ", "))
		}
		p.f("   - Next: `%s`\n", mdCode(o.NextCommand(wd.Next)))
	}
	if len(ws) > 0 {
		p.f("\n")
	}
	writeTimelineMarkdown(p, s)

	p.f("## Claim: ClusterVersion\n\n")
	if cv := s.ClusterVersion; cv != nil {
		p.f("- Channel: %s\n- Desired: %s `%s`\n", orDash(cv.Spec.Channel), orDash(sum.DesiredVersion), mdCode(sum.DesiredImage))
		if u := cv.Spec.DesiredUpdate; u != nil {
			p.f("- Requested: %s\n", requested(u))
		}
		p.f("\n| State | Version | Started | Verified |\n|---|---|---|---|\n")
		for i, h := range cv.Status.History {
			if i == 8 {
				p.f("| ... | %d older entries | | |\n", len(cv.Status.History)-8)
				break
			}
			p.f("| %s | %s | %s | %t |\n", h.State, mdCell(h.Version), h.StartedTime.UTC().Format(time.RFC3339), h.Verified)
		}
		p.f("\n| Condition | Status | Reason | Message |\n|---|---|---|---|\n")
		for _, c := range cv.Status.Conditions {
			p.f("| %s | %s | %s | %s |\n", c.Type, c.Status, mdCell(c.Reason), mdCell(truncate(oneLine(c.Message), 300)))
		}
		p.f("\n")
	} else {
		p.f("ClusterVersion was not collected.\n\n")
	}

	p.f("## Reality\n\n")
	if k := sum.OldestKubeAPIServer; k != nil {
		how := "claimed by the kube-apiserver ClusterOperator, not verified"
		if k.Verified {
			how = "verified from the mirror pods' images"
		}
		p.f("Oldest kube-apiserver: %s (%s).\n\n", k.Version, how)
	}
	p.f("### Operators by version\n\n| Version | Count | Operators |\n|---|---|---|\n")
	for _, g := range sum.OperatorsByVersion {
		p.f("| %s | %d | %s |\n", orDash(g.Version), len(g.Names), mdCell(capNames(g.Names, o.MaxNames)))
	}
	if len(s.StaticPodOperators) > 0 {
		p.f("\n### Static pods\n\n| Component | Latest | Node | Claimed | Running | Ready |\n|---|---|---|---|---|---|\n")
		for _, op := range s.StaticPodOperators {
			for _, t := range op.Truth() {
				running, ready := "none", "-"
				if t.Mirror != nil {
					running, ready = fmt.Sprint(t.Running), fmt.Sprint(t.Mirror.Ready)
				}
				p.f("| %s | %d | %s | %d | %s | %s |\n", op.Component, op.LatestAvailableRevision, t.Node, t.Claimed, running, ready)
			}
		}
	}
	p.f("\n### Nodes by kubelet version\n\n| Kubelet | Count | Nodes |\n|---|---|---|\n")
	for _, g := range sum.NodesByKubelet {
		p.f("| %s | %d | %s |\n", firstNonEmpty(g.Version, "unknown"), len(g.Names), mdCell(capNames(g.Names, o.MaxNames)))
	}
	if len(s.MachineConfigPools) > 0 {
		p.f("\n### Machine config pools\n\n| Pool | Configuration | Updated | Degraded | Paused |\n|---|---|---|---|---|\n")
		for _, mp := range s.MachineConfigPools {
			p.f("| %s | %s | %d/%d | %d | %t |\n", mp.Name, mdCell(mp.Configuration), mp.UpdatedMachineCount, mp.MachineCount, mp.DegradedMachineCount, mp.Paused)
		}
	}
	var missing []string
	for _, r := range s.Resources {
		if r.State != Collected {
			missing = append(missing, fmt.Sprintf("`%s` (%s)", r.Key(), r.State))
		}
	}
	if len(missing) > 0 {
		p.f("\nNot collected: %s.\n", strings.Join(missing, ", "))
	}

	counts := map[string]int{}
	for _, f := range s.Findings {
		counts[f.Severity]++
	}
	p.f("\n## Findings: %d errors, %d warnings, %d info\n", counts[SeverityError], counts[SeverityWarning], counts[SeverityInfo])
	if len(s.Findings) == 0 {
		p.f("\nNone: claims and reality agree.\n")
	}
	for _, f := range s.Findings {
		p.f("\n### %s %s `%s`\n\n", strings.ToUpper(f.Severity), f.Code, mdCode(f.Subject))
		p.f("Class: %s. %s\n\n", orDash(f.Class), mdText(f.Message))
		for _, e := range f.Evidence {
			src := ""
			if e.Source != "" {
				src = " (" + mdText(evidenceSource(e)) + ")"
			}
			p.f("- %s: %s%s\n", e.Kind, mdText(truncate(e.Text, 600)), src)
		}
		if len(f.Details) > 0 {
			keys := make([]string, 0, len(f.Details))
			for k := range f.Details {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			var kv []string
			for _, k := range keys {
				if f.Details[k] != "" {
					kv = append(kv, fmt.Sprintf("`%s=%s`", k, mdCode(truncate(f.Details[k], 200))))
				}
			}
			if len(kv) > 0 {
				p.f("- details: %s\n", strings.Join(kv, " "))
			}
		}
	}
	return p.err
}

// mdCell makes text safe in a table cell: one line, pipes escaped.
func mdCell(s string) string {
	return strings.ReplaceAll(oneLine(s), "|", `\|`)
}

// mdText makes text safe in a paragraph or list item: one line.
func mdText(s string) string { return oneLine(s) }

// mdCode makes text safe inside a code span: one line, without backticks.
func mdCode(s string) string { return strings.ReplaceAll(oneLine(s), "`", "'") }
