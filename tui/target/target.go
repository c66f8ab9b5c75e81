// Package target is the Target screen: the release the plan chose and why, how far
// the cluster moves, the risks it accepted, and every alternative the planner
// rejected or demoted with the rule and the reason. A demoted alternative that
// only needs a named conditional-update risk can be accepted (a, then an explicit
// y in a dialog that names the risk); the session then re-plans through the
// planner with that risk accepted.
package target

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/tui/common"
)

// AcceptRiskMsg asks the session to confirm, then re-plan accepting the risks of
// an alternative.
type AcceptRiskMsg struct {
	Candidate plan.Candidate
}

// Model is the Target screen.
type Model struct {
	*common.Common
	plan *plan.Plan
	// err is why there is no plan (the planner's error), or a re-plan's failure.
	err error
	// hint says how to get a plan when there is none.
	hint string
	// busy is set while the planner re-plans; it names what is being accepted.
	busy string
	// canReplan is set when the session has a planner (not a plan file).
	canReplan bool
	// cands are the planner's candidates when it found no target (no plan).
	cands []plan.Candidate

	sel common.Selection
	vp  viewport.Model
	// moved is set once the user moved the cursor; before, the screen opens at
	// its top (the target and why), not at the selected alternative.
	moved bool
}

// New returns an empty Target screen.
func New(c *common.Common) *Model {
	m := &Model{Common: c, vp: viewport.New(0, 0)}
	m.vp.KeyMap = viewport.KeyMap{}
	return m
}

// SetPlan shows a plan (nil: none), with the error that prevented one.
func (m *Model) SetPlan(p *plan.Plan, err error) {
	m.plan, m.err = p, err
	m.sel.Clamp(m.candidates())
	m.refresh()
}

// SetCandidates shows the planner's candidate table when it found no target.
func (m *Model) SetCandidates(c []plan.Candidate) {
	m.cands = c
	m.sel.Clamp(m.candidates())
	m.refresh()
}

// SetHint sets the sentence shown when there is no plan.
func (m *Model) SetHint(h string) { m.hint = h; m.refresh() }

// SetReplan says whether accepting a risk can re-plan in this session.
func (m *Model) SetReplan(ok bool) { m.canReplan = ok; m.refresh() }

// SetBusy shows that a re-plan is running ("" when done).
func (m *Model) SetBusy(what string) { m.busy = what; m.refresh() }

// SetSize sets the screen's size.
func (m *Model) SetSize(w, h int) {
	m.Width, m.Height = w, h
	m.refresh()
}

// Selected returns the selected alternative, nil when there is none.
func (m *Model) Selected() *plan.Candidate {
	alts := m.alternatives()
	if len(alts) == 0 {
		return nil
	}
	return &alts[m.sel.Index]
}

// alternatives are the plan's alternatives, or without a plan the candidates.
func (m *Model) alternatives() []plan.Candidate {
	if m.plan == nil {
		return m.cands
	}
	return m.plan.Alternatives
}

func (m *Model) candidates() int { return len(m.alternatives()) }

// acceptable reports whether the alternative can be taken by accepting its risks.
func acceptable(c *plan.Candidate) bool {
	return c != nil && len(c.Risks) > 0 && c.Verdict != "rejected" && c.Verdict != "chosen"
}

// Update handles the screen's keys.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(k, m.Keys.AcceptRisk):
		c := m.Selected()
		if !acceptable(c) || m.busy != "" {
			return nil
		}
		msg := AcceptRiskMsg{Candidate: *c}
		return func() tea.Msg { return msg }
	case common.ScrollKeys(k, m.Keys, &m.vp):
		return nil
	}
	if m.sel.Move(k, m.Keys, m.candidates(), 5) {
		m.moved = true
		m.refresh()
	}
	return nil
}

func (m *Model) refresh() {
	if m.Width <= 0 || m.Height <= 0 {
		return
	}
	m.Keys.Enable(&m.Keys.AcceptRisk, m.canReplan && acceptable(m.Selected()) && m.busy == "")
	text, from, to := m.render(m.Width)
	m.vp.Width, m.vp.Height = m.Width, m.Height
	m.vp.SetContent(text)
	if m.moved {
		common.Follow(&m.vp, from, to)
	}
}

// View renders the screen.
func (m *Model) View() string { return common.Fit(m.vp.View(), m.Width, m.Height) }

func (m *Model) render(width int) (string, int, int) {
	st := m.Styles
	var b strings.Builder
	if m.busy != "" {
		b.WriteString(st.Pending.Render("re-planning: "+m.busy+" ...") + "\n\n")
	}
	if m.plan == nil {
		b.WriteString(st.Section.Render("NO PLAN"))
		if m.err != nil {
			b.WriteString("\n" + st.Failed.Render(common.Wrap(m.err.Error(), width)))
		}
		if m.hint != "" {
			b.WriteString("\n" + common.Wrap(m.hint, width))
		}
		if len(m.cands) == 0 {
			return b.String(), -1, -1
		}
		b.WriteString("\n\n" + st.Section.Render("CANDIDATES") + st.Dim.Render(" (best first; rule and reason)"))
		return m.renderAlternatives(&b, width)
	}
	if m.err != nil {
		b.WriteString(st.Failed.Render(common.Wrap(m.err.Error(), width)) + "\n\n")
	}
	t := m.plan.Target
	b.WriteString(st.Section.Render("TARGET ") + st.Bold.Render(t.Version) + "  " + st.Dim.Render(common.ShortImage(t.Image)))
	facts := []string{fmt.Sprintf("moves %d component(s): %d minor, %d patch step(s)", t.Distance.Components, t.Distance.Minor, t.Distance.Patch)}
	if len(t.Channels) > 0 {
		facts = append(facts, "channels "+strings.Join(t.Channels, ", "))
	}
	b.WriteString("\n  " + common.WrapIndent(strings.Join(facts, " · "), width, 2))
	if t.Force {
		b.WriteString("\n  " + st.Warning.Render(common.WrapIndent("force: "+common.OrDash(t.ForceReason), width, 2)))
	}
	if sv := m.plan.Inputs.SignatureVerification; sv != "" {
		b.WriteString("\n  " + st.Dim.Render(common.WrapIndent("signature: "+sv, width, 2)))
	}

	if len(m.plan.Warnings) > 0 {
		b.WriteString("\n\n" + st.Section.Render("WARNINGS"))
		for _, w := range m.plan.Warnings {
			b.WriteString("\n" + st.Warning.Render(common.WrapIndent("  ! "+w, width, 4)))
		}
	}

	b.WriteString("\n\n" + st.Section.Render("WHY"))
	for i, r := range t.Reasons {
		prefix := fmt.Sprintf("  %d. ", i+1)
		b.WriteString("\n" + prefix + common.WrapIndent(r, width, len(prefix)))
	}

	b.WriteString("\n\n" + st.Section.Render("ACCEPTED RISKS"))
	if len(t.AcceptedRisks) == 0 {
		b.WriteString(st.Dim.Render(" none"))
	}
	for _, r := range t.AcceptedRisks {
		b.WriteString("\n" + common.WrapIndent("  "+st.Warning.Render(r.Name)+" "+r.Message, width, 4))
		if r.URL != "" {
			b.WriteString("\n    " + st.Dim.Render(r.URL))
		}
	}

	if len(m.plan.Skipped) > 0 {
		b.WriteString("\n\n" + st.Section.Render("LEFT OUT") + st.Dim.Render(" (verified at the target already)"))
		for _, c := range m.plan.Skipped {
			b.WriteString("\n" + common.WrapIndent(fmt.Sprintf("  %s (%d manifests): %s", c.Component, c.Manifests, c.Reason), width, 4))
		}
	}
	if len(m.plan.Invariants) > 0 {
		var names []string
		for _, inv := range m.plan.Invariants {
			name, _, _ := strings.Cut(inv, ":")
			names = append(names, name)
		}
		b.WriteString("\n\n" + st.Section.Render("CHECKED") + " " + common.WrapIndent(st.Dim.Render("after every step on a model of the cluster: ")+strings.Join(names, ", "), width, 8))
	}

	b.WriteString("\n\n" + st.Section.Render("ALTERNATIVES") + st.Dim.Render(" (best first; rule and reason)"))
	if len(m.plan.Alternatives) == 0 {
		b.WriteString("\n  " + st.Dim.Render("none: the planner considered no other release"))
	}
	return m.renderAlternatives(&b, width)
}

// renderAlternatives lists the alternatives (or candidates), the selected one
// expanded with its risks, and returns the selected one's line range.
func (m *Model) renderAlternatives(b *strings.Builder, width int) (string, int, int) {
	st := m.Styles
	line := common.Lines(b.String())
	from, to := -1, -1
	for i, c := range m.alternatives() {
		selected := i == m.sel.Index
		verdict := st.Far.Render(common.Pad(c.Verdict, 8))
		if c.Verdict == "demoted" {
			verdict = st.Near.Render(common.Pad(c.Verdict, 8))
		}
		if selected {
			from = line
		}
		b.WriteString("\n" + common.Row(st, fmt.Sprintf("%-3d %-8s %s %s", c.Rank, c.Version, verdict, c.Rule), selected, width))
		line++
		reason := "      " + common.WrapIndent(c.Reason, width, 6)
		if !selected {
			reason = st.Dim.Render(common.Truncate("      "+c.Reason, width))
		}
		b.WriteString("\n" + reason)
		line += common.Lines(reason)
		if selected {
			for _, r := range c.Risks {
				rl := common.WrapIndent("      risk "+st.Warning.Render(r.Name)+": "+r.Message, width, 8)
				if r.URL != "" {
					rl += "\n        " + st.Dim.Render(r.URL)
				}
				b.WriteString("\n" + rl)
				line += common.Lines(rl)
			}
			if acceptable(&c) {
				hint := "      press a to re-plan accepting " + riskNames(c.Risks)
				if !m.canReplan {
					hint = "      this plan came from a file: re-plan with recover plan ... " + acceptFlags(c.Risks)
				}
				b.WriteString("\n" + st.Dim.Render(common.WrapIndent(hint, width, 6)))
				line += common.Lines(hint)
			}
			to = line - 1
		}
	}
	return b.String(), from, to
}

func riskNames(rs []plan.Risk) string {
	var names []string
	for _, r := range rs {
		names = append(names, r.Name)
	}
	return strings.Join(names, ", ")
}

func acceptFlags(rs []plan.Risk) string {
	var flags []string
	for _, r := range rs {
		flags = append(flags, "--accept "+r.Name)
	}
	return strings.Join(flags, " ")
}

// ShortHelp are the screen's keys for the footer.
func (m *Model) ShortHelp() []key.Binding {
	return []key.Binding{m.Keys.Up, m.Keys.Down, m.Keys.AcceptRisk}
}

// FullHelp are the screen's keys for the ? overlay.
func (m *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{{m.Keys.Up, m.Keys.Down, m.Keys.Top, m.Keys.Bottom, m.Keys.ScrollUp, m.Keys.ScrollDown, m.Keys.AcceptRisk}}
}
