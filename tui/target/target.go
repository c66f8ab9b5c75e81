package target

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/tui/common"
	"github.com/openshift-recover/recover/tui/keymap"
)

// AcceptRiskMsg asks the session to confirm, then re-plan accepting the risks of
// an alternative.
type AcceptRiskMsg struct {
	Candidate planfile.Candidate
}

// AcceptPromiseMsg asks the session to confirm, then re-plan accepting a refused
// remedy that is the admin's promise (Refused.Accept names it).
type AcceptPromiseMsg struct {
	Refused planfile.RefusedRemedy
}

// item is one selectable row of the screen: a refused remedy or an alternative
// (a candidate when there is no plan), in the order they are shown.
type item struct {
	refused *planfile.RefusedRemedy
	// blocking is set for a refusal of what holds the cluster (the planner's
	// RemedyRefusedError.Refused).
	blocking bool
	cand     *planfile.Candidate
}

// Model is the Target screen.
type Model struct {
	*common.Common
	plan *planfile.Plan
	// err is why there is no plan (the planner's error), or a re-plan's failure.
	err error
	// hint says how to get a plan when there is none.
	hint string
	// busy is set while the planner re-plans; it names what is being accepted.
	busy string
	// canReplan is set when the session has a planner (not a plan file).
	canReplan bool
	// cands are the planner's candidates when it found no target (no plan).
	cands []planfile.Candidate

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
func (m *Model) SetPlan(p *planfile.Plan, err error) {
	m.plan, m.err = p, err
	m.sel.Clamp(m.candidates())
	m.refresh()
}

// SetCandidates shows the planner's candidate table when it found no target.
func (m *Model) SetCandidates(c []planfile.Candidate) {
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

// Selected returns the selected alternative, nil when there is none (or a
// refused remedy is selected).
func (m *Model) Selected() *planfile.Candidate {
	if it := m.selectedItem(); it != nil {
		return it.cand
	}
	return nil
}

// SelectedRefusal returns the selected refused remedy, nil when none is.
func (m *Model) SelectedRefusal() *planfile.RefusedRemedy {
	if it := m.selectedItem(); it != nil {
		return it.refused
	}
	return nil
}

func (m *Model) selectedItem() *item {
	items := m.items()
	if len(items) == 0 {
		return nil
	}
	return &items[m.sel.Index]
}

// refusals returns the refused remedies shown: the plan's, or without a plan
// those of the planner's RemedyRefusedError, what holds the cluster first.
func (m *Model) refusals() (blocking, other []planfile.RefusedRemedy) {
	if m.plan != nil {
		return nil, m.plan.Refused
	}
	var rre *planfile.RemedyRefusedError
	if !errors.As(m.err, &rre) {
		return nil, nil
	}
	for _, r := range rre.All {
		if !slices.Contains(rre.Refused, r) {
			other = append(other, r)
		}
	}
	return rre.Refused, other
}

// items are the selectable rows in display order: the refused remedies, then
// the alternatives or candidates.
func (m *Model) items() []item {
	var out []item
	blocking, other := m.refusals()
	for i := range blocking {
		out = append(out, item{refused: &blocking[i], blocking: true})
	}
	for i := range other {
		out = append(out, item{refused: &other[i]})
	}
	alts := m.alternatives()
	for i := range alts {
		out = append(out, item{cand: &alts[i]})
	}
	return out
}

// alternatives are the plan's alternatives, or without a plan the candidates.
func (m *Model) alternatives() []planfile.Candidate {
	if m.plan == nil {
		return m.cands
	}
	return m.plan.Alternatives
}

func (m *Model) candidates() int { return len(m.items()) }

// promise reports whether a refused remedy is an admin's promise that --accept
// would allow.
func promise(r *planfile.RefusedRemedy) bool { return r != nil && r.Accept != "" }

// acceptableItem reports whether a accepts the item.
func acceptableItem(it *item) bool {
	return it != nil && (it.cand.QualifiesWithRisks() || promise(it.refused))
}

// Update handles the screen's keys.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(k, m.Keys.AcceptRisk):
		it := m.selectedItem()
		if !acceptableItem(it) || m.busy != "" {
			return nil
		}
		var msg tea.Msg
		if it.refused != nil {
			msg = AcceptPromiseMsg{Refused: *it.refused}
		} else {
			msg = AcceptRiskMsg{Candidate: *it.cand}
		}
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
	it := m.selectedItem()
	m.Keys.Enable(&m.Keys.AcceptRisk, m.canReplan && acceptableItem(it) && m.busy == "")
	if it != nil && it.refused != nil {
		keymap.Describe(&m.Keys.AcceptRisk, "accept promise")
	} else {
		keymap.Describe(&m.Keys.AcceptRisk, "accept risk")
	}
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
	r := &rows{b: &strings.Builder{}, from: -1, to: -1}
	b := r.b
	if m.busy != "" {
		b.WriteString(st.Pending.Render("re-planning: "+m.busy+" ...") + "\n\n")
	}
	if m.plan == nil {
		b.WriteString(st.Section.Render("NO PLAN"))
		if m.err != nil {
			b.WriteString("\n" + st.Failed.Render(common.Wrap(errorLine(m.err), width)))
		}
		if m.hint != "" {
			b.WriteString("\n" + common.Wrap(m.hint, width))
		}
		m.renderRefused(r, width)
		if len(m.cands) > 0 {
			b.WriteString("\n\n" + st.Section.Render("CANDIDATES") + st.Dim.Render(" (best first; rule and reason)"))
			m.renderAlternatives(r, width)
		}
		return b.String(), r.from, r.to
	}
	if m.err != nil {
		b.WriteString(st.Failed.Render(common.Wrap(m.err.Error(), width)) + "\n\n")
	}
	t := m.plan.Target
	remediation := m.plan.Mode == planfile.ModeRemediation
	if remediation {
		b.WriteString(st.Section.Render("NO NEW RELEASE ") + st.Bold.Render("remediation only"))
		b.WriteString("\n  " + st.Dim.Render(common.WrapIndent(fmt.Sprintf("%d remediation(s), %d refused; the restored CVO resumes its desired update %s", len(m.plan.Remediations), len(m.plan.Refused), common.OrDash(m.plan.Cluster.ClaimedVersion)), width, 2)))
	} else {
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

	m.renderRemediations(b, width)
	m.renderRefused(r, width)

	if acc := m.plan.Inputs.Accepted; len(acc) > 0 {
		b.WriteString("\n\n" + st.Section.Render("ACCEPTED") + st.Dim.Render(" (--accept, recorded in inputs.accepted) ") + common.WrapIndent(strings.Join(acc, ", "), width, 10))
	}
	if !remediation {
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

	if !remediation || len(m.plan.Alternatives) > 0 {
		b.WriteString("\n\n" + st.Section.Render("ALTERNATIVES") + st.Dim.Render(" (best first; rule and reason)"))
		if len(m.plan.Alternatives) == 0 {
			b.WriteString("\n  " + st.Dim.Render("none: the planner considered no other release"))
		}
		m.renderAlternatives(r, width)
	}
	return b.String(), r.from, r.to
}

// rows tracks the rendered text and the line range of the selected row.
type rows struct {
	b        *strings.Builder
	from, to int
	// index counts the selectable rows written so far.
	index int
}

func (r *rows) line() int { return common.Lines(r.b.String()) }

// renderRemediations lists what the plan unblocks: remedy, finding, subject,
// its steps, and what they do.
func (m *Model) renderRemediations(b *strings.Builder, width int) {
	st := m.Styles
	if m.plan == nil || len(m.plan.Remediations) == 0 {
		return
	}
	b.WriteString("\n\n" + st.Section.Render("REMEDIATIONS") + st.Dim.Render(" (what holds the cluster, and the steps that unblock it)"))
	for _, rem := range m.plan.Remediations {
		var nums []string
		for _, id := range rem.Steps {
			nums = append(nums, planfile.StepNumber(id))
		}
		head := fmt.Sprintf("  %s  %s  %s", st.Bold.Render(rem.Remedy), rem.Finding, st.Dim.Render(rem.Subject))
		b.WriteString("\n" + common.WrapIndent(head, width, 6))
		what := "steps " + strings.Join(nums, ", ") + ": " + rem.Summary
		if rem.Accepted != "" {
			what += " Accepted with --accept " + rem.Accepted + "."
		}
		b.WriteString("\n      " + common.WrapIndent(what, width, 6))
	}
}

// renderRefused lists the refused remedies, each with why and whether --accept
// allows it; the selected one is expanded.
func (m *Model) renderRefused(r *rows, width int) {
	st := m.Styles
	blocking, other := m.refusals()
	if len(blocking)+len(other) == 0 {
		return
	}
	list := func(title string, rs []planfile.RefusedRemedy) {
		if len(rs) == 0 {
			return
		}
		r.b.WriteString("\n\n" + title)
		for i := range rs {
			m.refusedRow(r, &rs[i], width)
		}
	}
	if m.plan == nil {
		list(st.Section.Render("REFUSED")+st.Dim.Render(" (what holds the cluster has no remedy recover takes as things stand)"), blocking)
		list(st.Section.Render("ALSO NOT TAKEN"), other)
		return
	}
	list(st.Section.Render("REFUSED")+st.Dim.Render(" (remedies the plan does not take)"), other)
}

func (m *Model) refusedRow(r *rows, rf *planfile.RefusedRemedy, width int) {
	st := m.Styles
	selected := r.index == m.sel.Index
	r.index++
	if selected {
		r.from = r.line()
	}
	badge := st.Far.Render("never  ")
	if promise(rf) {
		badge = st.Near.Render("promise")
	}
	r.b.WriteString("\n" + common.Row(st, fmt.Sprintf("%s %s  %s  %s", badge, rf.Remedy, rf.Finding, rf.Subject), selected, width))
	if !selected {
		r.b.WriteString("\n" + st.Dim.Render(common.Truncate("      "+rf.Reason, width)))
		return
	}
	lines := []string{"      " + common.WrapIndent(rf.Reason, width, 6)}
	switch {
	case !promise(rf):
		lines = append(lines, st.Dim.Render("      never taken by recover"))
	case m.canReplan:
		lines = append(lines, st.Dim.Render(common.WrapIndent("      allow it with --accept "+rf.Accept+": press "+keymap.Name(m.Keys.AcceptRisk)+" to accept the promise and re-plan", width, 6)))
	default:
		lines = append(lines, st.Dim.Render(common.WrapIndent("      allow it with --accept "+rf.Accept+": this plan came from a file; re-plan with recover plan ... --accept "+rf.Accept, width, 6)))
	}
	r.b.WriteString("\n" + strings.Join(lines, "\n"))
	r.to = r.line() - 1
}

// renderAlternatives lists the alternatives (or candidates), the selected one
// expanded with its risks.
func (m *Model) renderAlternatives(r *rows, width int) {
	st := m.Styles
	b := r.b
	for _, c := range m.alternatives() {
		selected := r.index == m.sel.Index
		r.index++
		verdict := st.Far.Render(common.Pad(c.Verdict, 8))
		if c.Verdict == planfile.VerdictDemoted {
			verdict = st.Near.Render(common.Pad(c.Verdict, 8))
		}
		if selected {
			r.from = r.line()
		}
		b.WriteString("\n" + common.Row(st, fmt.Sprintf("%-3d %-8s %s %s", c.Rank, c.Version, verdict, c.Rule), selected, width))
		reason := "      " + common.WrapIndent(c.Reason, width, 6)
		if !selected {
			reason = st.Dim.Render(common.Truncate("      "+c.Reason, width))
		}
		b.WriteString("\n" + reason)
		if selected {
			for _, rk := range c.Risks {
				rl := common.WrapIndent("      risk "+st.Warning.Render(rk.Name)+": "+rk.Message, width, 8)
				if rk.URL != "" {
					rl += "\n        " + st.Dim.Render(rk.URL)
				}
				b.WriteString("\n" + rl)
			}
			if c.QualifiesWithRisks() {
				hint := "      press " + keymap.Name(m.Keys.AcceptRisk) + " to re-plan accepting " + riskNames(c.Risks)
				if !m.canReplan {
					hint = "      this plan came from a file: re-plan with recover plan ... " + acceptFlags(c.Risks)
				}
				b.WriteString("\n" + st.Dim.Render(common.WrapIndent(hint, width, 6)))
			}
			r.to = r.line() - 1
		}
	}
}

// errorLine is the planner's error in one line. A refusal's error repeats the
// first refusal's reason, which the screen lists below it: only its headline is
// kept, with the exit code recover plan gives it.
func errorLine(err error) string {
	var rre *planfile.RemedyRefusedError
	if !errors.As(err, &rre) || len(rre.Refused) == 0 {
		return err.Error()
	}
	full := rre.Error()
	head, _, _ := strings.Cut(full, ": ")
	head += fmt.Sprintf(" (recover plan exits %d); the refusals are below", rre.ExitCode())
	if names := rre.Accept(); len(names) > 0 {
		head += "; accepting needs --accept " + strings.Join(names, ",")
	}
	return strings.Replace(err.Error(), full, head, 1)
}

func riskNames(rs []planfile.Risk) string {
	var names []string
	for _, r := range rs {
		names = append(names, r.Name)
	}
	return strings.Join(names, ", ")
}

func acceptFlags(rs []planfile.Risk) string {
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
