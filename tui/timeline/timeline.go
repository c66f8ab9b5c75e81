package timeline

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/tui/common"
	"github.com/openshift-recover/recover/tui/keymap"
)

// Model is the Timeline screen.
type Model struct {
	*common.Common
	snap   *inspect.Snapshot
	sel    common.Selection
	filter common.Filter
	// visible are the indexes of the entries the filter lets through; first is
	// the first row shown.
	visible []int
	first   int
}

// New returns an empty Timeline.
func New(c *common.Common) *Model {
	return &Model{Common: c, filter: common.NewFilter(c.Keys)}
}

// SetSnapshot shows a snapshot's timeline; the screen never changes it.
func (m *Model) SetSnapshot(s *inspect.Snapshot) {
	m.snap = s
	m.applyFilter()
}

// SetSize sets the screen's size.
func (m *Model) SetSize(w, h int) { m.Width, m.Height = w, h }

// Capturing reports whether the filter input has the keyboard.
func (m *Model) Capturing() bool { return m.filter.Typing }

// Selected returns the selected entry, nil when none is shown.
func (m *Model) Selected() *inspect.TimelineEntry {
	if len(m.visible) == 0 {
		return nil
	}
	return &m.snap.Timeline.Entries[m.visible[m.sel.Index]]
}

// Update handles the screen's keys.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	if handled, changed := m.filter.Key(k, m.Keys); handled {
		if changed {
			m.sel.Index = 0
		}
		m.applyFilter()
		return nil
	}
	m.sel.Move(k, m.Keys, len(m.visible), m.listHeight())
	return nil
}

func (m *Model) entries() []inspect.TimelineEntry {
	if m.snap == nil || m.snap.Timeline == nil {
		return nil
	}
	return m.snap.Timeline.Entries
}

func (m *Model) applyFilter() {
	m.visible = m.visible[:0]
	q := strings.ToLower(strings.TrimSpace(m.filter.Value))
	for i, e := range m.entries() {
		text := strings.ToLower(strings.Join(append([]string{e.ID, e.Kind, e.Subject, e.Source, e.Text}, e.Findings...), "\n"))
		if q == "" || strings.Contains(text, q) {
			m.visible = append(m.visible, i)
		}
	}
	m.sel.Clamp(len(m.visible))
}

// detailHeight is the rows of the selected entry's detail.
func (m *Model) detailHeight() int { return max(4, min(9, m.Height/3)) }

// listHeight is the rows of the list.
func (m *Model) listHeight() int { return max(1, m.Height-m.detailHeight()-3) }

// View renders the screen: a title line, the entries, the selected one's
// detail, and the filter when it is open.
func (m *Model) View() string {
	st := m.Styles
	if m.snap == nil || m.snap.Timeline == nil || len(m.snap.Timeline.Entries) == 0 {
		msg := "No timeline: the snapshot holds no history, condition, revision or log line with a time."
		if m.snap != nil && m.snap.Summary == nil {
			msg = "The snapshot was not analyzed: read it through 'recover inspect' (or --snapshot FILE), which computes its timeline."
		}
		return common.Fit(st.Section.Render("TIMELINE")+"\n\n"+common.Wrap(msg, m.Width), m.Width, m.Height)
	}
	t := m.snap.Timeline
	title := st.Section.Render("TIMELINE") + st.Dim.Render(fmt.Sprintf(" oldest first, %d entries", len(t.Entries)))
	if t.Omitted > 0 {
		title += st.Dim.Render(fmt.Sprintf(" (%d more no finding rests on: -o json)", t.Omitted))
	}
	title += st.Dim.Render("; ◆ proves a cause")
	switch {
	case m.filter.Typing:
		title += "  " + m.filter.View()
	case m.filter.Value != "":
		title += st.Dim.Render(fmt.Sprintf("  filter %q: %d of %d (%s clears)", m.filter.Value, len(m.visible), len(t.Entries), keymap.Name(m.Keys.Back)))
	}
	lines := []string{common.Truncate(title, m.Width)}
	h := m.listHeight()
	m.first = common.Window(m.sel.Index, m.first, h, len(m.visible))
	for row := m.first; row < min(len(m.visible), m.first+h); row++ {
		e := t.Entries[m.visible[row]]
		mark := "  "
		if len(e.Findings) > 0 {
			mark = "◆ "
		}
		line := fmt.Sprintf("%s%-4s %s  %-9s %s", mark, e.ID, e.Time.UTC().Format("2006-01-02 15:04:05"), e.Kind, e.Text)
		line = common.Truncate(line, m.Width)
		if row == m.sel.Index {
			line = st.Selected.Render(line)
		}
		lines = append(lines, line)
	}
	if len(m.visible) == 0 {
		lines = append(lines, st.Dim.Render("no entry matches "+fmt.Sprintf("%q", m.filter.Value)))
	}
	for len(lines) < h+1 {
		lines = append(lines, "")
	}
	lines = append(lines, st.Dim.Render(strings.Repeat("─", max(0, m.Width))))
	lines = append(lines, m.detail()...)
	return common.Fit(strings.Join(lines, "\n"), m.Width, m.Height)
}

// detail renders the selected entry: when and where, what, and what it proves.
func (m *Model) detail() []string {
	e := m.Selected()
	if e == nil {
		return nil
	}
	st := m.Styles
	var out []string
	out = append(out, common.Truncate(st.Bold.Render(e.ID)+"  "+e.Time.UTC().Format(time.RFC3339Nano)+"  "+e.Kind+"  "+e.Subject, m.Width))
	out = append(out, common.Truncate(st.Dim.Render("source: "+inspect.ShortSource(e.Source)), m.Width))
	out = append(out, strings.Split(common.Wrap(e.Text, m.Width), "\n")...)
	if len(e.Findings) > 0 {
		var causes []string
		for _, w := range m.snap.WhyStuck() {
			for _, id := range w.Timeline {
				if id == e.ID {
					causes = append(causes, fmt.Sprintf("#%d %s", w.Rank, w.Code))
				}
			}
		}
		proves := "proves: " + strings.Join(e.Findings, ", ")
		if len(causes) > 0 {
			proves += " — cause " + strings.Join(causes, ", ")
		}
		out = append(out, strings.Split(common.Wrap(proves, m.Width), "\n")...)
	}
	return out[:min(len(out), m.detailHeight())]
}

// ShortHelp are the screen's keys for the footer.
func (m *Model) ShortHelp() []key.Binding {
	return []key.Binding{m.Keys.Up, m.Keys.Down, m.Keys.Filter}
}

// FullHelp are the screen's keys for the ? overlay.
func (m *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{{m.Keys.Up, m.Keys.Down, m.Keys.PageUp, m.Keys.PageDown, m.Keys.Top, m.Keys.Bottom, m.Keys.Filter, m.Keys.Back}}
}

var _ common.Component = (*Model)(nil)
