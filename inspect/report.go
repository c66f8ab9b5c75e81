package inspect

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift-recover/recover/internal/openshift"
)

// ReportOptions tune WriteReport and WriteMarkdown.
type ReportOptions struct {
	// MaxNames caps the names listed per version group (0 means 8).
	MaxNames int
	// SourceArgs are the source flags the snapshot was read with
	// ("--must-gather ./mg"); the recover commands of the wedge summary get them,
	// so that they can be copied as they are.
	SourceArgs string
}

// NextCommand returns a wedge's next command with the source flags inserted
// after "recover <verb>".
func (o ReportOptions) NextCommand(next string) string {
	if o.SourceArgs == "" || !strings.HasPrefix(next, "recover ") {
		return next
	}
	verb, rest, _ := strings.Cut(strings.TrimPrefix(next, "recover "), " ")
	if verb != "plan" && verb != "inspect" && verb != "tui" {
		return next
	}
	out := "recover " + verb + " " + o.SourceArgs
	if rest != "" {
		out += " " + rest
	}
	return out
}

// WriteReport writes the human summary of a snapshot: why the cluster is stuck
// (the wedge summary, most blocking first), the cluster's claim beside the
// reality, operators grouped by version, static pods per node, nodes grouped by
// kubelet version, pools, what could not be read, and the findings by severity
// with their class and evidence.
func WriteReport(w io.Writer, s *Snapshot, o ReportOptions) error {
	if o.MaxNames == 0 {
		o.MaxNames = 8
	}
	if s.Summary == nil {
		Refresh(s)
	}
	p := &printer{w: w}
	sum := s.Summary
	p.f("Source:      %s %s", s.Source.Kind, s.Source.Location)
	if !s.Source.CollectedAt.IsZero() {
		p.f(" (observed %s, %s)", s.Source.CollectedAt.UTC().Format(time.RFC3339), s.Source.CollectedAtFrom)
	}
	p.f("\nFingerprint: %s\n\n", sum.Fingerprint)
	writeWedges(p, s, o)
	writeTimeline(p, s)

	p.f("CLAIM (ClusterVersion)\n")
	if cv := s.ClusterVersion; cv != nil {
		p.f("  Cluster ID:   %s  channel %s\n", orDash(string(cv.Spec.ClusterID)), orDash(cv.Spec.Channel))
		p.f("  Desired:      %s  %s\n", orDash(sum.DesiredVersion), sum.DesiredImage)
		if u := cv.Spec.DesiredUpdate; u != nil {
			p.f("  Requested:    %s\n", requested(u))
		}
		for i, h := range cv.Status.History {
			if i == 4 {
				p.f("  ...           %d older entries\n", len(cv.Status.History)-4)
				break
			}
			label := "History:"
			if i > 0 {
				label = ""
			}
			verified := "verified"
			if !h.Verified {
				verified = "unverified"
			}
			p.f("  %-13s %-9s %-12s %s (%s)\n", label, h.State, h.Version, h.StartedTime.UTC().Format(time.RFC3339), verified)
		}
		for _, c := range cv.Status.Conditions {
			if c.Type == configv1.OperatorAvailable || c.Type == configv1.OperatorProgressing || c.Type == openshift.ConditionFailing || c.Type == configv1.OperatorUpgradeable {
				p.f("  %-13s %s=%s %s\n", "", c.Type, c.Status, truncate(oneLine(c.Message), 100))
			}
		}
	} else {
		p.f("  ClusterVersion not collected\n")
	}
	p.f("\nREALITY\n")
	p.f("  CVO:          %s\n", cvoLine(s))
	if k := sum.OldestKubeAPIServer; k != nil {
		how := "claimed by the kube-apiserver ClusterOperator, not verified"
		if k.Verified {
			how = "verified from the mirror pods' images"
		}
		p.f("  Oldest kube-apiserver: %s (%s)\n", k.Version, how)
	} else {
		p.f("  Oldest kube-apiserver: unknown\n")
	}

	p.f("\nOPERATORS BY VERSION (claimed; * = verified against the running operator Deployment)\n")
	verified := map[string]VersionFact{}
	for _, f := range sum.Operators {
		verified[f.Name] = f
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, g := range sum.OperatorsByVersion {
		var names []string
		for _, n := range g.Names {
			f := verified[n]
			switch {
			case f.Contradicted():
				names = append(names, fmt.Sprintf("%s (runs %s)", n, f.Verified))
			case f.Verified != "":
				names = append(names, n+"*")
			default:
				names = append(names, n)
			}
		}
		fmt.Fprintf(tw, "  %s\t(%d)\t%s\n", orDash(g.Version), len(g.Names), capNames(names, o.MaxNames))
	}
	tw.Flush()

	if len(s.StaticPodOperators) > 0 {
		p.f("\nSTATIC PODS (claimed revision beside the mirror pod's)\n")
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "  COMPONENT\tLATEST\tNODE\tCLAIMED\tRUNNING\tREADY\tVERSION\n")
		for _, op := range s.StaticPodOperators {
			ins := map[string]OperandInstance{}
			for _, in := range s.OperandInstances(op.Component) {
				ins[in.Node] = in
			}
			truth := op.Truth()
			if len(truth) == 0 {
				what := "no nodeStatuses and no mirror pods"
				if !op.Present {
					what = "operator not collected or absent"
				}
				fmt.Fprintf(tw, "  %s\t%d\t(%s)\t\t\t\t\n", op.Component, op.LatestAvailableRevision, what)
			}
			for _, t := range truth {
				running, ready, version := "none", "-", "-"
				if t.Mirror != nil {
					running, ready = fmt.Sprint(t.Running), fmt.Sprint(t.Mirror.Ready)
				}
				if in, ok := ins[t.Node]; ok && in.Version != "" {
					version = in.Version
					if !in.Verified {
						version += " (claimed)"
					}
				}
				mark := ""
				if t.Listed && t.Mirror != nil && t.Running != t.Claimed {
					mark = "  <- differs"
				}
				fmt.Fprintf(tw, "  %s\t%d\t%s\t%d\t%s%s\t%s\t%s\n", op.Component, op.LatestAvailableRevision, t.Node, t.Claimed, running, mark, ready, version)
			}
		}
		tw.Flush()
	}

	p.f("\nNODES BY KUBELET VERSION\n")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, g := range sum.NodesByKubelet {
		v := g.Version
		if v == "" {
			v = "unknown"
		}
		fmt.Fprintf(tw, "  %s\t(%d)\t%s\n", v, len(g.Names), capNames(g.Names, o.MaxNames))
	}
	tw.Flush()

	if len(s.MachineConfigPools) > 0 {
		p.f("\nMACHINE CONFIG POOLS\n")
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "  NAME\tCONFIGURATION\tUPDATED\tDEGRADED\tPAUSED\n")
		for _, mp := range s.MachineConfigPools {
			fmt.Fprintf(tw, "  %s\t%s\t%d/%d\t%d\t%t\n", mp.Name, mp.Configuration, mp.UpdatedMachineCount, mp.MachineCount, mp.DegradedMachineCount, mp.Paused)
		}
		tw.Flush()
	}

	var missing []string
	for _, r := range s.Resources {
		if r.State != Collected {
			missing = append(missing, fmt.Sprintf("%s (%s)", r.Key(), r.State))
		}
	}
	if len(missing) > 0 {
		p.f("\nNOT COLLECTED: %s\n", strings.Join(missing, ", "))
	}
	writeLogsLine(p, s)

	counts := map[string]int{}
	for _, f := range s.Findings {
		counts[f.Severity]++
	}
	p.f("\nFINDINGS: %d errors, %d warnings, %d info\n", counts[SeverityError], counts[SeverityWarning], counts[SeverityInfo])
	for _, f := range s.Findings {
		p.f("\n  %-7s %s  %s  (%s)\n", strings.ToUpper(f.Severity), f.Code, f.Subject, orDash(f.Class))
		p.f("          %s\n", truncate(f.Message, 400))
		for i, e := range f.Evidence {
			if i == 6 {
				p.f("          - ... %d more (see -o json)\n", len(f.Evidence)-i)
				break
			}
			src := ""
			if e.Source != "" {
				src = "  [" + evidenceSource(e) + "]"
			}
			p.f("          - %s: %s%s\n", e.Kind, truncate(e.Text, 300), src)
		}
	}
	if len(s.Findings) == 0 {
		p.f("  none: claims and reality agree\n")
	}
	return p.err
}

// writeWedges writes the wedge summary: one numbered line per cause with the
// findings it stands for and the command that comes next.
func writeWedges(p *printer, s *Snapshot, o ReportOptions) {
	ws := s.WhyStuck()
	blocking := 0
	for _, w := range ws {
		if w.Class == ClassBlocks {
			blocking++
		}
	}
	switch {
	case len(ws) == 0:
		p.f("WHY THIS CLUSTER IS STUCK: nothing holds it; claims and reality agree\n\n")
		return
	case blocking == 0:
		p.f("WHY THIS CLUSTER IS STUCK: nothing blocks the update; %d thing(s) to know\n", len(ws))
	default:
		p.f("WHY THIS CLUSTER IS STUCK: %d cause(s) block the update, %d to know\n", blocking, len(ws)-blocking)
	}
	for _, w := range ws {
		label := "BLOCKS"
		if w.Class != ClassBlocks {
			label = "INFORMS"
		}
		p.f("  %2d. %-7s %s  %s\n", w.Rank, label, w.Code, firstOr(w.Subjects, ""))
		p.f("      %s\n", truncate(w.Summary, 700))
		if len(w.Subjects) > 1 {
			p.f("      findings: %s\n", capNames(w.Subjects, 6))
		}
		if len(w.Timeline) > 0 {
			p.f("      timeline: %s\n", strings.Join(w.Timeline, ", "))
		}
		p.f("      next: %s\n", o.NextCommand(w.Next))
	}
	p.f("\n")
}

func firstOr(list []string, def string) string {
	if len(list) == 0 {
		return def
	}
	return list[0]
}

type printer struct {
	w   io.Writer
	err error
}

func (p *printer) f(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func cvoLine(s *Snapshot) string {
	mode := s.CVOMode()
	if s.CVO == nil {
		if s.collectedIn(ResDeployments.Key(), openshift.CVONamespace) {
			return fmt.Sprintf("no Deployment; would start in %s mode", mode)
		}
		return fmt.Sprintf("Deployment not collected; would start in %s mode", mode)
	}
	image := ""
	for _, c := range s.CVO.Containers {
		if c.Name == openshift.CVODeployment || image == "" {
			image = c.Image
		}
	}
	return fmt.Sprintf("%d replica(s), %d available, image %s; a (re)started CVO runs in %s mode", s.CVO.EffectiveReplicas(), s.CVO.AvailableReplicas, image, mode)
}

func capNames(names []string, max int) string {
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, ... (%d more)", strings.Join(names[:max], ", "), len(names)-max)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}

// requested describes spec.desiredUpdate for the reports: the release, force,
// a Preflight (checked, not applied) and the risks already accepted.
func requested(u *configv1.Update) string {
	out := firstNonEmpty(u.Version, u.Image)
	var notes []string
	if u.Force {
		notes = append(notes, "force")
	}
	if u.Mode == configv1.UpdateModePreflight {
		notes = append(notes, "Preflight: checked, not applied")
	}
	if len(notes) > 0 {
		out += " (" + strings.Join(notes, ", ") + ")"
	}
	var names []string
	for _, r := range u.AcceptRisks {
		names = append(names, r.Name)
	}
	if len(names) > 0 {
		if out != "" {
			out += "; "
		}
		out += "accepted risks: " + strings.Join(names, ", ")
	}
	return out
}
