package header

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/openshift-recover/recover/tui/common"
	"github.com/openshift-recover/recover/tui/keymap"
	"github.com/openshift-recover/recover/tui/state"
)

// Model is the header.
type Model struct {
	*common.Common
	// Source is the session's source ("live https://...", "must-gather ./mg").
	Source string
	// Claimed is ClusterVersion's claim ("4.4.3 Completed").
	Claimed string
	// Target is the plan's target version, "" without a plan; Remediation is
	// set for a remediation plan (no new release).
	Target      string
	Remediation bool
	// Run is the session's run state: the header shows its CVO state.
	Run *state.Run
	// ReadOnly is the read-only reason, "" in a session that may apply.
	ReadOnly string
	// Tabs are the screen names, in the order of the keymap's Tabs (which label
	// them); Active the shown one.
	Tabs   []string
	Active int
	// Notice is an urgent one-word notice on the tab line ("decide!").
	Notice string
	// Temporary are the temporary changes in place ("PodDisruptionBudget ci/deck relaxed by
	// step 005 — restored by step 007"): on the tab line for as long as they
	// last, shortened to what fits.
	Temporary []string
}

// Height is the header's height in lines.
const Height = 2

type segment struct {
	text     string
	priority int // higher stays longer
}

// View renders the two header lines at the header's width.
func (m *Model) View() string {
	st := m.Styles
	cvo := "CVO " + m.Run.CVO.Text()
	switch {
	case m.Run.CVO.Disabled():
		cvo = st.Danger.Render(" " + cvo + " ")
	case m.Run.CVO.Reconciling():
		cvo = st.OK.Render(cvo)
	default:
		cvo = st.Pending.Render(cvo)
	}
	// In display order: who, what the cluster claims, where the plan goes, the
	// CVO, whether this session may apply, where it reads.
	segs := []segment{{st.Title.Render("recover"), 9}}
	if m.Claimed != "" {
		segs = append(segs, segment{"claims " + m.Claimed, 7})
	}
	switch {
	case m.Target != "":
		segs = append(segs, segment{"target " + st.Bold.Render(m.Target), 8})
	case m.Remediation:
		segs = append(segs, segment{st.Bold.Render("remediation") + " (no new release)", 8})
	}
	segs = append(segs, segment{cvo, 10})
	if m.ReadOnly != "" {
		segs = append(segs, segment{st.Badge.Render(" READ-ONLY "), 9})
	}
	if m.Source != "" {
		segs = append(segs, segment{st.Dim.Render(m.Source), 1})
	}
	line := joinFitting(segs, m.Width)
	return common.Pad(line, m.Width) + "\n" + common.Pad(m.tabs(), m.Width)
}

// joinFitting joins the segments, dropping the lowest-priority ones (the first
// of equals first) until the line fits; the last one standing is truncated.
func joinFitting(segs []segment, width int) string {
	keep := make([]bool, len(segs))
	for i := range keep {
		keep[i] = true
	}
	render := func() string {
		var parts []string
		for i, s := range segs {
			if keep[i] {
				parts = append(parts, s.text)
			}
		}
		return strings.Join(parts, " │ ")
	}
	for lipgloss.Width(render()) > width {
		drop, lowest := -1, 1<<30
		for i, s := range segs {
			if keep[i] && s.priority < lowest {
				drop, lowest = i, s.priority
			}
		}
		if drop < 0 || count(keep) == 1 {
			break
		}
		keep[drop] = false
	}
	return common.Truncate(render(), width)
}

func count(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}

func (m *Model) tabs() string {
	st := m.Styles
	var parts []string
	keys := m.Keys.Tabs()
	for i, t := range m.Tabs {
		label := t
		if i < len(keys) {
			label = keymap.Name(keys[i]) + " " + t
		}
		if i == m.Active {
			parts = append(parts, st.TabActive.Render("["+label+"]"))
		} else {
			parts = append(parts, st.Tab.Render(" "+label+" "))
		}
	}
	line := strings.Join(parts, " ")
	if m.Notice != "" {
		line += "  " + st.Badge.Render(" "+m.Notice+" ")
	}
	if len(m.Temporary) > 0 {
		line += "  " + m.temporaryBadge(m.Width-lipgloss.Width(line)-2)
	}
	return line
}

// temporaryBadge names the temporary changes in place in at most width cells:
// the whole sentence of the first when it fits, else "TEMP PodDisruptionBudget ci/deck", else
// the count.
func (m *Model) temporaryBadge(width int) string {
	st := m.Styles
	more := ""
	if n := len(m.Temporary) - 1; n > 0 {
		more = fmt.Sprintf(" +%d", n)
	}
	first := m.Temporary[0]
	short, _, _ := strings.Cut(first, " relaxed by")
	short, _, _ = strings.Cut(short, " changed by")
	for _, text := range []string{"TEMPORARY " + first + more, "TEMP " + short + more, fmt.Sprintf("%d TEMP", len(m.Temporary))} {
		if lipgloss.Width(text)+2 <= width {
			return st.Badge.Render(" " + text + " ")
		}
	}
	return st.Badge.Render(common.Truncate(fmt.Sprintf(" %d TEMP ", len(m.Temporary)), max(0, width)))
}
