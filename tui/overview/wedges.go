package overview

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/tui/common"
)

// wedgeIndent is where a wedge's text starts after its rank and badge.
const wedgeIndent = 11

// classBadge is a finding class as the overview marks it: BLOCKS for what holds
// the update, informs for context (a word, so it survives NO_COLOR).
func (m *Model) classBadge(class string) string {
	if class == inspect.ClassBlocks {
		return m.Styles.Error.Render("BLOCKS ")
	}
	return m.Styles.Dim.Render("informs")
}

// wedgesView renders "why this cluster is stuck": inspect's ranked wedge
// summary, compact. A wedge that blocks the update gets its summary (up to
// maxLines lines) and its next command on a line of its own; one that informs
// gets one line, its next command at the end when it fits.
func (m *Model) wedgesView(width int) string {
	st := m.Styles
	wedges := m.snap.WhyStuck()
	blocks := 0
	for _, w := range wedges {
		if w.Class == inspect.ClassBlocks {
			blocks++
		}
	}
	head := st.Section.Render("WHY THIS CLUSTER IS STUCK")
	switch {
	case len(wedges) == 0:
		return head + "\n  " + st.AtTarget.Render(common.Truncate("nothing: no finding holds the update", width-2))
	case blocks == 0:
		head += st.Dim.Render(fmt.Sprintf("  nothing blocks the update · %d to know", len(wedges)))
	default:
		head += " " + st.Error.Render(fmt.Sprintf("%d block the update", blocks)) + st.Dim.Render(fmt.Sprintf(" · %d to know", len(wedges)-blocks))
	}
	lines := []string{common.Truncate(head, width)}
	maxLines := 2
	if m.Height >= 40 {
		maxLines = 4
	}
	pad := strings.Repeat(" ", wedgeIndent)
	for _, w := range wedges {
		prefix := fmt.Sprintf("%2d ", w.Rank) + m.classBadge(w.Class) + " "
		text := st.Bold.Render(w.Code) + "  " + w.Summary
		next := st.Dim.Render("→ " + w.Next)
		if w.Class != inspect.ClassBlocks {
			tail := ""
			if w.Next != "" {
				tail = "  " + next
			}
			room := width - lipgloss.Width(prefix) - lipgloss.Width(tail)
			if lipgloss.Width(text) > room && room-lipgloss.Width(w.Code)-2 < 30 {
				// The next command would leave the summary no room: the
				// summary goes first.
				room, tail = width-lipgloss.Width(prefix), ""
			}
			lines = append(lines, prefix+common.Truncate(text, room)+tail)
			continue
		}
		wrapped := strings.Split(common.WrapIndent(text, width, wedgeIndent), "\n")
		if len(wrapped) > maxLines {
			wrapped = wrapped[:maxLines]
			wrapped[maxLines-1] = ansi.Truncate(wrapped[maxLines-1], width-1, "") + "…"
		}
		lines = append(lines, prefix+strings.Join(wrapped, "\n"))
		if w.Next != "" {
			lines = append(lines, pad+common.Truncate(next, width-wedgeIndent))
		}
	}
	return strings.Join(lines, "\n")
}
