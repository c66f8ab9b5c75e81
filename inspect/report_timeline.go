package inspect

import (
	"fmt"
	"strings"
	"time"

	"github.com/openshift-recover/recover/internal/bounded"
)

// ShortSource shortens a log line's source for a report: the part of a
// must-gather path from the namespace on, without oc adm inspect's doubled
// container directory and "logs/" ("openshift-cluster-version/<pod>/<container>/current.log:6").
// Other sources are returned as they are.
func ShortSource(src string) string {
	i := strings.LastIndex(src, "/namespaces/")
	if i < 0 {
		if !strings.HasPrefix(src, "namespaces/") {
			return src
		}
		i = -1
	}
	parts := strings.Split(src[i+len("/namespaces/"):], "/")
	// <ns>/pods/<pod>/<c>/<c>/logs/<file>
	if len(parts) == 7 && parts[1] == "pods" && parts[3] == parts[4] && parts[5] == "logs" {
		return strings.Join([]string{parts[0], parts[2], parts[3], parts[6]}, "/")
	}
	return src
}

// evidenceSource is how a report names where a fact was read, with its time
// when it has one.
func evidenceSource(e Evidence) string {
	src := ShortSource(e.Source)
	if !e.Time.IsZero() {
		src += " @ " + e.Time.UTC().Format(time.RFC3339)
	}
	return src
}

// writeTimeline writes the timeline, oldest first.
func writeTimeline(p *printer, s *Snapshot) {
	t := s.Timeline
	if t == nil || len(t.Entries) == 0 {
		return
	}
	more := ""
	if t.Omitted > 0 {
		more = fmt.Sprintf("; %d more not shown (the ones no finding rests on)", t.Omitted)
	}
	p.f("TIMELINE (oldest first%s)\n", more)
	for _, e := range t.Entries {
		mark := ""
		if len(e.Findings) > 0 {
			mark = "  <- " + strings.Join(codesOf(e.Findings), ", ")
		}
		p.f("  %-4s %s  %-9s %s%s\n", e.ID, e.Time.UTC().Format(time.RFC3339), e.Kind, truncate(e.Text, 220), mark)
		p.f("       %s\n", ShortSource(e.Source))
	}
	p.f("\n")
}

// codesOf returns the codes of finding keys ("<code> <subject>"), each once.
func codesOf(keys []string) []string {
	var out []string
	for _, k := range keys {
		c, _, _ := strings.Cut(k, " ")
		if !containsString(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// writeLogsLine says which logs were read and which could not be.
func writeLogsLine(p *printer, s *Snapshot) {
	l := s.Logs
	if l == nil {
		return
	}
	var bytes int64
	for _, f := range l.Files {
		bytes += f.Bytes
	}
	var missing []string
	for _, r := range l.Sources {
		if r.State != Collected {
			missing = append(missing, fmt.Sprintf("%s (%s)", r.Namespace, r.State))
		}
	}
	p.f("\nLOGS: %d read (%s), %d entries kept", len(l.Files), bounded.Size(bytes), len(l.Entries))
	if len(missing) > 0 {
		p.f("; none from %s", capNames(missing, 8))
	}
	p.f("\n")
}

// writeTimelineMarkdown writes the timeline as a Markdown table.
func writeTimelineMarkdown(p *printer, s *Snapshot) {
	t := s.Timeline
	if t == nil || len(t.Entries) == 0 {
		return
	}
	p.f("## Timeline\n\nOldest first")
	if t.Omitted > 0 {
		p.f("; %d entries no finding rests on are not shown", t.Omitted)
	}
	p.f(".\n\n| | Time | Kind | What | Source | Proves |\n|---|---|---|---|---|---|\n")
	for _, e := range t.Entries {
		p.f("| <a id=\"%s\"></a>%s | %s | %s | %s | `%s` | %s |\n", e.ID, e.ID, e.Time.UTC().Format(time.RFC3339), e.Kind,
			mdCell(truncate(e.Text, 300)), mdCode(ShortSource(e.Source)), mdCell(strings.Join(codesOf(e.Findings), ", ")))
	}
	p.f("\n")
}
