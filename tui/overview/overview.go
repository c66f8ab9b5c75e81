package overview

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/tui/common"
	"github.com/openshift-recover/recover/tui/keymap"
)

// wideWidth is the width from which state and findings sit side by side.
const wideWidth = 140

// Model is the Overview screen.
type Model struct {
	*common.Common
	snap   *inspect.Snapshot
	target string

	sel    common.Selection
	filter common.Filter
	// visible are the indexes of the findings the filter lets through.
	visible []int
	vp      viewport.Model
	// claimWidth is the claim column's width in the current layout.
	claimWidth int
	// moved is set once the user moved the cursor: from then on the viewport
	// follows it (before, the screen opens at its top).
	moved bool
}

// New returns an empty Overview.
func New(c *common.Common) *Model {
	m := &Model{Common: c, filter: common.NewFilter(c.Keys), vp: viewport.New(0, 0)}
	m.vp.KeyMap = viewport.KeyMap{} // the screen handles keys itself
	return m
}

// SetSnapshot shows a snapshot as inspect analyzed it (every source returns it
// refreshed); the screen never changes it. One without a Summary is shown as
// not analyzed.
func (m *Model) SetSnapshot(s *inspect.Snapshot) {
	m.snap = s
	m.applyFilter()
	m.refresh()
}

// SetTarget sets the plan's target version, against which versions are measured.
func (m *Model) SetTarget(v string) {
	m.target = v
	m.refresh()
}

// SetSize sets the screen's size.
func (m *Model) SetSize(w, h int) {
	m.Width, m.Height = w, h
	m.refresh()
}

// Capturing reports whether the filter input has the keyboard.
func (m *Model) Capturing() bool { return m.filter.Typing }

// Selected returns the selected finding, nil when none is shown.
func (m *Model) Selected() *inspect.Finding {
	if m.snap == nil || len(m.visible) == 0 {
		return nil
	}
	return &m.snap.Findings[m.visible[m.sel.Index]]
}

// Filter returns the current filter text.
func (m *Model) Filter() string { return m.filter.Value }

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
		m.moved = true
		m.applyFilter()
		m.refresh()
		return nil
	}
	if common.ScrollKeys(k, m.Keys, &m.vp) {
		return nil
	}
	if m.sel.Move(k, m.Keys, len(m.visible), 5) {
		m.moved = true
		m.refresh()
	}
	return nil
}

// applyFilter recomputes the visible findings.
func (m *Model) applyFilter() {
	m.visible = m.visible[:0]
	if m.snap == nil {
		return
	}
	q := strings.ToLower(strings.TrimSpace(m.filter.Value))
	for i, f := range m.snap.Findings {
		if q == "" || strings.Contains(findingText(f), q) {
			m.visible = append(m.visible, i)
		}
	}
	m.sel.Clamp(len(m.visible))
}

// findingText is everything a filter matches: severity, class, code, subject,
// message, evidence.
func findingText(f inspect.Finding) string {
	parts := []string{f.Severity, f.Class, f.Code, f.Subject, f.Message}
	for _, e := range f.Evidence {
		parts = append(parts, e.Text, e.Source)
	}
	return strings.ToLower(strings.Join(parts, "\n"))
}

// refresh re-renders the scrolling content for the current size and state.
func (m *Model) refresh() {
	if m.Width <= 0 || m.Height <= 0 {
		return
	}
	switch {
	case m.snap == nil:
		m.vp.Width, m.vp.Height = m.Width, m.Height
		m.vp.SetContent("No snapshot.")
		return
	case m.snap.Summary == nil:
		m.vp.Width, m.vp.Height = m.Width, m.Height
		m.vp.SetContent("The snapshot was not analyzed: read it through 'recover inspect' (or --snapshot FILE), which summarizes it.")
		return
	}
	if m.Width >= wideWidth {
		left := m.Width / 2
		right := m.Width - left - 1
		text, from, to := m.findingsView(right)
		m.vp.Width, m.vp.Height = right, m.Height
		m.vp.SetContent(text)
		if m.moved {
			common.Follow(&m.vp, from, to)
		}
		return
	}
	state := m.stateView(m.Width)
	text, from, to := m.findingsView(m.Width)
	offset := common.Lines(state) + 1
	m.vp.Width, m.vp.Height = m.Width, m.Height
	m.vp.SetContent(state + "\n\n" + text)
	if m.moved && from >= 0 {
		common.Follow(&m.vp, from+offset, to+offset)
	}
}

// View renders the screen.
func (m *Model) View() string {
	if m.Width >= wideWidth && m.snap != nil && m.snap.Summary != nil {
		left := m.Width / 2
		state := common.Fit(m.stateView(left-1), left-1, m.Height)
		sep := strings.TrimSuffix(strings.Repeat(m.Styles.Dim.Render("│")+"\n", m.Height), "\n")
		return lipgloss.JoinHorizontal(lipgloss.Top, state, " ", sep, m.vp.View())
	}
	return common.Fit(m.vp.View(), m.Width, m.Height)
}

// stateView renders why the cluster is stuck, the claim beside the reality,
// then the version groups.
func (m *Model) stateView(width int) string {
	st := m.Styles
	s := m.snap
	sum := s.Summary
	var b strings.Builder
	b.WriteString(m.wedgesView(width) + "\n\n")

	m.claimWidth = width
	if width >= 76 {
		m.claimWidth = (width - 3) / 2
	}
	claim := m.claimLines()
	reality := m.realityLines()
	if width >= 76 {
		col := (width - 3) / 2
		left := common.Fit(strings.Join(claim, "\n"), col, max(len(claim), len(reality)))
		right := common.Fit(strings.Join(reality, "\n"), col, max(len(claim), len(reality)))
		b.WriteString(lipgloss.JoinHorizontal(lipgloss.Top, left, " │ ", right))
	} else {
		b.WriteString(strings.Join(claim, "\n") + "\n\n" + strings.Join(reality, "\n"))
	}

	b.WriteString("\n\n")
	title := "OPERATORS BY VERSION"
	if m.target != "" {
		title += st.Dim.Render(" (distance to target " + m.target + ")")
	}
	b.WriteString(st.Section.Render(title))
	facts := map[string]inspect.VersionFact{}
	for _, f := range sum.Operators {
		facts[f.Name] = f
	}
	vw := versionWidth(sum.OperatorsByVersion)
	for _, g := range sum.OperatorsByVersion {
		var names []string
		for _, n := range g.Names {
			if f := facts[n]; f.Contradicted() {
				n += fmt.Sprintf(" (runs %s)", f.Verified)
			}
			names = append(names, n)
		}
		label, style := m.distance(g.Version)
		head := fmt.Sprintf("  %s (%d) ", common.Pad(common.OrDash(g.Version), vw), len(g.Names))
		head += style.Render(common.Pad(label, 16))
		indent := lipgloss.Width(head) + 1
		b.WriteString("\n" + head + " " + common.WrapIndent(strings.Join(names, ", "), width, indent))
	}

	b.WriteString("\n\n" + st.Section.Render("NODES BY KUBELET VERSION"))
	kas := ""
	if sum.OldestKubeAPIServer != nil {
		kas = sum.OldestKubeAPIServer.Version
	}
	vw = versionWidth(sum.NodesByKubelet)
	for _, g := range sum.NodesByKubelet {
		label, style := "", st.Dim
		if v, ok := sum.KubeletSkew(g.Version); ok {
			switch {
			case v.Newer:
				label, style = "newer than kube-apiserver "+kas, st.Far
			case v.TooOldOpenShift || v.TooOldUpstream:
				label, style = "too far behind kube-apiserver "+kas, st.Far
			case v.Skew == 0:
				label, style = "same minor as kube-apiserver", st.AtTarget
			default:
				label, style = fmt.Sprintf("%d minor behind kube-apiserver", -v.Skew), st.Near
			}
		}
		head := fmt.Sprintf("  %s (%d) ", common.Pad(common.OrDash(g.Version), vw), len(g.Names))
		line := head + strings.Join(g.Names, ", ")
		if label != "" {
			line += "  " + style.Render(label)
		}
		b.WriteString("\n" + common.WrapIndent(line, width, lipgloss.Width(head)))
	}
	if len(s.MachineConfigPools) > 0 {
		var pools []string
		for _, p := range s.MachineConfigPools {
			t := fmt.Sprintf("%s %d/%d updated", p.Name, p.UpdatedMachineCount, p.MachineCount)
			if p.Paused {
				t += " (paused)"
			}
			if p.DegradedMachineCount > 0 {
				t += fmt.Sprintf(" %d degraded", p.DegradedMachineCount)
			}
			pools = append(pools, t)
		}
		b.WriteString("\n" + common.WrapIndent("  pools: "+strings.Join(pools, " · "), width, 9))
	}

	if sp := m.staticPodLines(width); len(sp) > 0 && m.Height < 40 && !m.staticPodsDiffer() {
		var parts []string
		for _, op := range s.StaticPodOperators {
			if len(op.Truth()) > 0 {
				parts = append(parts, fmt.Sprintf("%s r%d", op.Component, op.LatestAvailableRevision))
			}
		}
		line := st.Section.Render("STATIC PODS") + " " + strings.Join(parts, ", ") + " " + st.AtTarget.Render("claims agree with the mirror pods")
		b.WriteString("\n\n" + common.WrapIndent(line, width, 2))
	} else if len(sp) > 0 {
		b.WriteString("\n\n" + st.Section.Render("STATIC PODS") + st.Dim.Render(" (claimed revision beside the running mirror pod)"))
		for _, l := range sp {
			b.WriteString("\n" + l)
		}
	}
	return b.String()
}

func versionWidth(groups []inspect.VersionGroup) int {
	w := 1
	for _, g := range groups {
		w = max(w, len(g.Version))
	}
	return w
}

// distance labels a version by how far it is from the target.
func (m *Model) distance(v string) (string, lipgloss.Style) {
	st := m.Styles
	if m.target == "" || v == "" {
		return "", st.Dim
	}
	if v == m.target {
		return "at target", st.AtTarget
	}
	a, errA := inspect.ParseVersion(v)
	t, errT := inspect.ParseVersion(m.target)
	if errA != nil || errT != nil {
		return "unknown", st.Dim
	}
	dir := "behind"
	if a.GT(t) {
		dir = "ahead"
	}
	switch {
	case a.Major != t.Major:
		return "other major", st.Far
	case a.Minor != t.Minor:
		d := int(a.Minor) - int(t.Minor)
		return fmt.Sprintf("%d minor %s", abs(d), dir), st.Far
	default:
		d := int(a.Patch) - int(t.Patch)
		return fmt.Sprintf("%d patch %s", abs(d), dir), st.Near
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func (m *Model) claimLines() []string {
	st := m.Styles
	s := m.snap
	sum := s.Summary
	lines := []string{st.Section.Render("CLAIM") + st.Dim.Render(" (ClusterVersion)")}
	if s.ClusterVersion == nil {
		return append(lines, st.Warning.Render("ClusterVersion not collected"))
	}
	cv := s.ClusterVersion
	desired := common.OrDash(sum.DesiredVersion)
	if sum.HistoryState != "" {
		desired += " " + sum.HistoryState
		if len(cv.Status.History) > 0 && !cv.Status.History[0].Verified {
			desired += st.Dim.Render(" (unverified)")
		}
	}
	lines = append(lines, st.Label.Render("desired   ")+desired)
	if u := cv.Spec.DesiredUpdate; u != nil {
		req := common.OrDash(u.Version)
		if u.Force {
			req += st.Warning.Render(" force")
		}
		lines = append(lines, st.Label.Render("requested ")+req)
	}
	var hist []string
	for i := len(cv.Status.History) - 1; i >= 0 && len(hist) < 4; i-- {
		hist = append(hist, cv.Status.History[i].Version)
	}
	if len(hist) > 0 {
		lines = append(lines, st.Label.Render("history   ")+strings.Join(hist, " → "))
	}
	var conds []string
	for _, c := range cv.Status.Conditions {
		switch c.Type {
		case configv1.OperatorAvailable, configv1.OperatorProgressing, openshift.ConditionFailing:
			conds = append(conds, fmt.Sprintf("%s=%s", c.Type, c.Status))
		}
	}
	if len(conds) > 0 {
		lines = append(lines, strings.Split(st.Label.Render("status    ")+common.WrapIndent(strings.Join(conds, " "), m.claimWidth, 10), "\n")...)
	}
	return lines
}

func (m *Model) realityLines() []string {
	st := m.Styles
	s := m.snap
	sum := s.Summary
	lines := []string{st.Section.Render("REALITY") + st.Dim.Render(" (what runs)")}
	cvo := "not collected"
	if s.CVO != nil {
		cvo = fmt.Sprintf("%d replica(s), %d available", s.CVO.EffectiveReplicas(), s.CVO.AvailableReplicas)
	}
	lines = append(lines, st.Label.Render("CVO       ")+cvo)
	lines = append(lines, st.Label.Render("CVO mode  ")+string(sum.CVOMode)+" if (re)started")
	kas := "unknown"
	if k := sum.OldestKubeAPIServer; k != nil {
		kas = k.Version + " (claimed)"
		if k.Verified {
			kas = k.Version + " (verified)"
		}
	}
	lines = append(lines, st.Label.Render("oldest KAS ")+kas)
	var ops []string
	for _, g := range sum.OperatorsByVersion {
		ops = append(ops, fmt.Sprintf("%s ×%d", common.OrDash(g.Version), len(g.Names)))
	}
	lines = append(lines, st.Label.Render("operators ")+strings.Join(ops, ", "))
	return lines
}

// staticPodsDiffer reports whether any node's mirror pod contradicts its claim,
// by inspect's own checks.
func (m *Model) staticPodsDiffer() bool {
	for i := range m.snap.StaticPodOperators {
		op := &m.snap.StaticPodOperators[i]
		known := m.snap.MirrorPodsCollected(op)
		for _, t := range op.Truth() {
			if t.MissingMirror(known) || t.RevisionMismatch() {
				return true
			}
		}
	}
	return false
}

// staticPodLines lists, per static-pod component, the revision every node runs,
// or the nodes where the claim and the mirror pod disagree.
func (m *Model) staticPodLines(width int) []string {
	st := m.Styles
	var lines []string
	for i := range m.snap.StaticPodOperators {
		op := &m.snap.StaticPodOperators[i]
		truth := op.Truth()
		if len(truth) == 0 {
			continue
		}
		known := m.snap.MirrorPodsCollected(op)
		var differ []string
		for _, t := range truth {
			switch {
			case t.MissingMirror(known):
				differ = append(differ, fmt.Sprintf("%s claims r%d, no mirror pod", t.Node, t.Claimed))
			case t.RevisionMismatch():
				differ = append(differ, fmt.Sprintf("%s claims r%d, runs r%d", t.Node, t.Claimed, t.Running))
			}
		}
		name := common.Pad(op.Component, 24)
		if len(differ) == 0 {
			lines = append(lines, fmt.Sprintf("  %s r%d on %d node(s)  %s", name, op.LatestAvailableRevision, len(truth), st.AtTarget.Render("claims agree")))
			continue
		}
		line := fmt.Sprintf("  %s latest r%d: %s", name, op.LatestAvailableRevision, st.Far.Render(strings.Join(differ, "; ")+" ← differs"))
		lines = append(lines, common.WrapIndent(line, width, 27))
	}
	return lines
}

// findingsView renders the findings list, the selected one expanded, and returns
// the line range of the selected finding (-1 when none).
func (m *Model) findingsView(width int) (string, int, int) {
	st := m.Styles
	counts := map[string]int{}
	for _, f := range m.snap.Findings {
		counts[f.Severity]++
	}
	var b strings.Builder
	head := st.Section.Render("FINDINGS") + fmt.Sprintf(" %s · %s · %s",
		st.Error.Render(fmt.Sprintf("%d error", counts[inspect.SeverityError])),
		st.Warning.Render(fmt.Sprintf("%d warning", counts[inspect.SeverityWarning])),
		st.Info.Render(fmt.Sprintf("%d info", counts[inspect.SeverityInfo])))
	switch {
	case m.filter.Typing:
		head += "  " + m.filter.View()
	case m.filter.Value != "":
		head += st.Dim.Render(fmt.Sprintf("  filter %q: %d of %d (%s clears)", m.filter.Value, len(m.visible), len(m.snap.Findings), keymap.Name(m.Keys.Back)))
	}
	b.WriteString(common.Truncate(head, width))
	line := 1
	from, to := -1, -1
	if len(m.snap.Findings) == 0 {
		b.WriteString("\n  " + st.AtTarget.Render("none: claims and reality agree"))
		return b.String(), from, to
	}
	if len(m.visible) == 0 {
		b.WriteString("\n  " + st.Dim.Render("no finding matches the filter"))
		return b.String(), from, to
	}
	for vi, fi := range m.visible {
		f := m.snap.Findings[fi]
		selected := vi == m.sel.Index
		sev := st.Severity(f.Severity).Render(common.Pad(strings.ToUpper(f.Severity), 7))
		if selected {
			from = line
		}
		b.WriteString("\n" + common.Row(st, sev+" "+m.classBadge(f.Class)+" "+f.Code+"  "+st.Dim.Render(f.Subject), selected, width))
		line++
		if !selected {
			continue
		}
		msg := common.WrapIndent(f.Message, width, 4)
		b.WriteString("\n    " + msg)
		line += common.Lines(msg)
		for _, e := range f.Evidence {
			kind := common.Pad(e.Kind, 8)
			text := e.Text
			if e.Source != "" {
				text += st.Dim.Render("  [" + e.Source + "]")
			}
			ev := common.WrapIndent(st.Label.Render(kind)+" "+text, width, 13)
			b.WriteString("\n    " + ev)
			line += common.Lines(ev)
		}
		to = line - 1
	}
	return b.String(), from, to
}

// ShortHelp are the screen's keys for the footer.
func (m *Model) ShortHelp() []key.Binding {
	return []key.Binding{m.Keys.Up, m.Keys.Down, m.Keys.Filter}
}

// FullHelp are the screen's keys for the ? overlay.
func (m *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{{m.Keys.Up, m.Keys.Down, m.Keys.PageUp, m.Keys.PageDown, m.Keys.Top, m.Keys.Bottom, m.Keys.ScrollUp, m.Keys.ScrollDown, m.Keys.Filter, m.Keys.Back}}
}
