package dialog

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/openshift-recover/recover/tui/common"
	"github.com/openshift-recover/recover/tui/keymap"
)

// Kind says what a dialog confirms; the answer carries it back.
type Kind string

// The dialogs of the TUI.
const (
	// Start: start (or resume) applying the plan.
	Start Kind = "start"
	// Abort: abort the run in progress.
	Abort Kind = "abort"
	// Quit: quit while a run is in progress (which aborts it first).
	Quit Kind = "quit"
	// AcceptRisk: re-plan accepting a named conditional-update risk.
	AcceptRisk Kind = "accept-risk"
	// AcceptPromise: re-plan accepting a refused remedy that is the admin's
	// promise (an --accept remedy name).
	AcceptPromise Kind = "accept-promise"
)

// AnswerMsg is the user's answer to a dialog.
type AnswerMsg struct {
	Kind Kind
	Yes  bool
	// Data is what the dialog was opened with (e.g. the risk names).
	Data any
}

// Model is an open dialog.
type Model struct {
	*common.Common
	Kind  Kind
	Title string
	// Body is the explanation, one paragraph per element.
	Body []string
	// YesText and NoText label the two answers ("abort the run", "keep running").
	YesText, NoText string
	Data            any
}

// Update answers on y or n/esc and ignores every other key.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	answer := func(yes bool) tea.Cmd {
		a := AnswerMsg{Kind: m.Kind, Yes: yes, Data: m.Data}
		return func() tea.Msg { return a }
	}
	switch {
	case key.Matches(k, m.Keys.Yes):
		return answer(true)
	case key.Matches(k, m.Keys.No):
		return answer(false)
	}
	return nil
}

// View renders the dialog box, at most the common width minus a margin.
func (m *Model) View() string {
	st := m.Styles
	width := min(m.Width-4, 76)
	inner := width - 4
	var b strings.Builder
	b.WriteString(st.Bold.Render(m.Title))
	for _, p := range m.Body {
		b.WriteString("\n\n")
		b.WriteString(common.Wrap(p, inner))
	}
	b.WriteString("\n\n")
	b.WriteString(st.Bold.Render(keymap.Name(m.Keys.Yes)) + " " + m.YesText + "    " + st.Bold.Render(keymap.Name(m.Keys.No)) + " " + m.NoText)
	return st.Dialog.Width(width).Render(b.String())
}

// Overlay draws the dialog centred over a background of the given size.
func Overlay(background, box string, width, height int) string {
	bg := strings.Split(common.Fit(background, width, height), "\n")
	lines := strings.Split(box, "\n")
	top := max(0, (height-len(lines))/2)
	bw := lipgloss.Width(box)
	left := max(0, (width-bw)/2)
	for i, l := range lines {
		y := top + i
		if y >= len(bg) {
			break
		}
		l = common.Pad(l, bw)
		bg[y] = common.Pad(ansi.Cut(bg[y], 0, left), left) + l + ansi.Cut(bg[y], left+bw, width)
	}
	return strings.Join(bg, "\n")
}
