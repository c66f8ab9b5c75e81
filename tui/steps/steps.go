package steps

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"sigs.k8s.io/yaml"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/gate"
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/tui/common"
	"github.com/openshift-recover/recover/tui/keymap"
	"github.com/openshift-recover/recover/tui/stages"
	"github.com/openshift-recover/recover/tui/state"
)

// wideWidth is the width from which the list and the details sit side by side.
const wideWidth = 140

// DiffRequestMsg asks the session for the selected step's diff against the live
// object.
type DiffRequestMsg struct {
	StepID string
}

// Diff is a step's previewed change, or why there is none.
type Diff struct {
	// Loading is set while the dry run runs.
	Loading bool
	Change  *apply.ChangeInfo
	Err     string
}

// Model is the Plan screen.
type Model struct {
	*common.Common
	plan *planfile.Plan
	// run is the session's run state: each step's status, read only.
	run      *state.Run
	diffs    map[string]*Diff
	canDiff  bool
	noDiff   string
	filter   common.Filter
	visible  []int
	sel      common.Selection
	first    int
	detail   viewport.Model
	detailOf string
	// diffLine is the line of the diff section in the detail pane.
	diffLine int
	// stages is the stage view above the steps of a staged plan.
	stages *stages.Model
}

// New returns an empty Plan screen.
func New(c *common.Common, run *state.Run) *Model {
	m := &Model{Common: c, run: run, diffs: map[string]*Diff{}, detail: viewport.New(0, 0),
		filter: common.NewFilter(c.Keys), stages: stages.New(c, run)}
	m.detail.KeyMap = viewport.KeyMap{}
	return m
}

// SetPlan shows a plan (nil: none); previews of an earlier plan are dropped.
func (m *Model) SetPlan(p *planfile.Plan) {
	m.plan = p
	m.stages.SetPlan(p)
	m.diffs = map[string]*Diff{}
	m.applyFilter()
	m.refresh()
}

// SetDiffAvailable says whether d can preview a diff, and if not why.
func (m *Model) SetDiffAvailable(ok bool, why string) {
	m.canDiff, m.noDiff = ok, why
	m.refresh()
}

// StatusChanged re-renders the steps after the run state changed.
func (m *Model) StatusChanged() { m.refresh() }

// SetDiff records a step's preview.
func (m *Model) SetDiff(id string, d *Diff) {
	m.diffs[id] = d
	m.refresh()
	if s := m.Selected(); s != nil && s.ID == id && !d.Loading {
		m.detail.SetYOffset(m.diffLine)
	}
}

// JumpToPair moves the cursor to the step paired with the selected one (the
// revert of a temporary change, or the change a revert undoes); a filter that
// hides it is cleared.
func (m *Model) JumpToPair() bool {
	id := common.Paired(m.Selected())
	if id == "" || m.plan.StepByID(id) == nil {
		return false
	}
	if !m.shown(id) {
		m.filter.Value, m.filter.Typing = "", false
		m.applyFilter()
	}
	m.Select(id)
	return true
}

func (m *Model) shown(id string) bool {
	for _, i := range m.visible {
		if m.plan.Steps[i].ID == id {
			return true
		}
	}
	return false
}

// Select moves the cursor to the step with the given ID (when shown).
func (m *Model) Select(id string) {
	for vi, i := range m.visible {
		if m.plan.Steps[i].ID == id {
			m.sel.Index = vi
			m.refresh()
			return
		}
	}
}

// Selected returns the selected step, nil when none.
func (m *Model) Selected() *planfile.Step {
	if m.plan == nil || len(m.visible) == 0 {
		return nil
	}
	return &m.plan.Steps[m.visible[m.sel.Index]]
}

// Capturing reports whether the filter input has the keyboard.
func (m *Model) Capturing() bool { return m.filter.Typing }

// SetSize sets the screen's size.
func (m *Model) SetSize(w, h int) {
	m.Width, m.Height = w, h
	m.refresh()
}

func (m *Model) applyFilter() {
	m.visible = m.visible[:0]
	if m.plan == nil {
		return
	}
	q := strings.ToLower(strings.TrimSpace(m.filter.Value))
	for i, s := range m.plan.Steps {
		text := strings.ToLower(strings.Join([]string{s.ID, string(s.Action), s.Component, s.RunLevel, s.Reason, s.Object(), gateKind(&s), s.Remedy, s.Finding}, " "))
		if q == "" || strings.Contains(text, q) {
			m.visible = append(m.visible, i)
		}
	}
	m.sel.Clamp(len(m.visible))
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
		m.refresh()
		return nil
	}
	if m.stages.Handles(k) {
		return m.stages.Update(k)
	}
	switch {
	case key.Matches(k, m.Keys.Diff):
		s := m.Selected()
		if s == nil || !m.canDiff || !hasDiff(s) {
			return nil
		}
		if d := m.diffs[s.ID]; d != nil && d.Loading {
			return nil
		}
		m.diffs[s.ID] = &Diff{Loading: true}
		m.refresh()
		id := s.ID
		return func() tea.Msg { return DiffRequestMsg{StepID: id} }
	case key.Matches(k, m.Keys.Pair):
		m.JumpToPair()
		return nil
	case common.ScrollKeys(k, m.Keys, &m.detail):
		return nil
	}
	if m.sel.Move(k, m.Keys, len(m.visible), max(1, m.listHeight()-2)) {
		m.refresh()
	}
	return nil
}

// hasDiff reports whether a step changes an object a preview can diff: every
// step but one that only waits (plan.ActionSpec.WaitOnly).
func hasDiff(s *planfile.Step) bool { return !s.Spec().WaitOnly }

// layout returns the list's width and height and the detail pane's, in what
// the stages of a staged plan leave.
func (m *Model) layout() (lw, lh, dw, dh int) {
	h := m.Height - m.stagesHeight()
	if m.Width >= wideWidth {
		lw = min(m.Width/2, 90)
		return lw, h, m.Width - lw - 1, h
	}
	lh = max(4, h*2/5)
	return m.Width, lh, m.Width, max(1, h-lh-1)
}

// stagesHeight is the lines the stage view takes above the steps (with the
// rule under it): what it needs, at most half the screen; 0 for a plan
// without stages.
func (m *Model) stagesHeight() int {
	if !m.stages.Staged() {
		return 0
	}
	return min(m.stages.Height(m.Width)+1, m.Height/2)
}

func (m *Model) listHeight() int {
	_, lh, _, _ := m.layout()
	return lh
}

func (m *Model) refresh() {
	if m.Width <= 0 || m.Height <= 0 {
		return
	}
	m.Keys.Enable(&m.Keys.Diff, m.canDiff && m.Selected() != nil && hasDiff(m.Selected()))
	m.Keys.Enable(&m.Keys.Pair, common.Paired(m.Selected()) != "")
	_, _, dw, dh := m.layout()
	m.detail.Width, m.detail.Height = dw, dh
	s := m.Selected()
	id := ""
	if s != nil {
		id = s.ID
	}
	m.detail.SetContent(m.detailView(s, dw))
	if id != m.detailOf {
		m.detail.GotoTop()
		m.detailOf = id
	}
}

// View renders the screen.
func (m *Model) View() string {
	if m.plan == nil {
		return common.Fit(m.Styles.Section.Render("NO PLAN")+"\n"+m.Styles.Dim.Render("The Target screen says how to get one."), m.Width, m.Height)
	}
	lw, lh, _, dh := m.layout()
	list := common.Fit(m.listView(lw, lh), lw, lh)
	detail := m.detail.View()
	rule := m.Styles.Dim.Render(strings.Repeat("─", m.Width))
	top := ""
	if sh := m.stagesHeight(); sh > 0 {
		top = common.Fit(m.stages.View(m.Width, sh-1), m.Width, sh-1) + "\n" + rule + "\n"
	}
	if m.Width >= wideWidth {
		sep := strings.TrimSuffix(strings.Repeat(m.Styles.Dim.Render("│")+"\n", dh), "\n")
		return common.Fit(top+lipgloss.JoinHorizontal(lipgloss.Top, list, sep, detail), m.Width, m.Height)
	}
	return common.Fit(top+list+"\n"+rule+"\n"+detail, m.Width, m.Height)
}

func (m *Model) listView(width, height int) string {
	st := m.Styles
	counts := map[state.StepStatus]int{}
	for _, s := range m.plan.Steps {
		counts[m.run.Status(s.ID)]++
	}
	head := st.Section.Render("STEPS") + fmt.Sprintf(" %d", len(m.plan.Steps))
	if n := counts[state.StepDone]; n > 0 {
		head += st.OK.Render(fmt.Sprintf(" · %d done", n))
	}
	if n := counts[state.StepSkipped]; n > 0 {
		head += st.Pending.Render(fmt.Sprintf(" · %d skipped", n))
	}
	switch {
	case m.filter.Typing:
		head += "  " + m.filter.View()
	case m.filter.Value != "":
		head += st.Dim.Render(fmt.Sprintf("  filter %q: %d shown", m.filter.Value, len(m.visible)))
	}
	actW := 19
	for i := range m.plan.Steps {
		s := &m.plan.Steps[i]
		if mk := marker(s); mk != "" {
			actW = max(actW, len(s.Action)+1+lipgloss.Width(mk)+1)
		} else {
			actW = max(actW, len(s.Action)+1)
		}
	}
	compW := max(10, min(26, width-2-2-4-4-actW-10))
	compHead := "COMPONENT"
	if remedial(m.plan) {
		compHead = "COMPONENT/REMEDY"
	}
	cols := fmt.Sprintf("    %-4s%-4s%s%s%s", "#", "LVL", common.Pad(compHead, compW+1), common.Pad("ACTION", actW), "GATE")
	lines := []string{common.Truncate(head, width), st.Dim.Render(common.Truncate(cols, width))}
	rows := height - 2
	m.first = common.Window(m.sel.Index, m.first, rows, len(m.visible))
	for vi := m.first; vi < len(m.visible) && vi < m.first+rows; vi++ {
		i := m.visible[vi]
		s := &m.plan.Steps[i]
		selected := vi == m.sel.Index
		status := m.run.Status(s.ID)
		glyph := stages.StepGlyph(m.Styles, status)
		comp := s.Component
		if comp == "" {
			comp = s.Remedy
		}
		action := string(s.Action)
		if mk := marker(s); mk != "" {
			action += " " + mk
		}
		row := fmt.Sprintf("%s %-4d%-4s%s%s%s", glyph, i+1, common.OrDash(s.RunLevel),
			common.Pad(common.Truncate(common.OrDash(comp), compW), compW+1), common.Pad(action, actW), gateKind(s))
		lines = append(lines, common.Row(st, row, selected, width))
	}
	if len(m.visible) == 0 {
		lines = append(lines, st.Dim.Render("  no step matches the filter"))
	}
	return strings.Join(lines, "\n")
}

func gateKind(s *planfile.Step) string {
	if s.Gate == nil {
		return "-"
	}
	return string(s.Gate.Kind)
}

func (m *Model) detailView(s *planfile.Step, width int) string {
	st := m.Styles
	if s == nil {
		return ""
	}
	label := func(l string) string { return st.Label.Render(common.Pad(l, 10)) }
	var b strings.Builder
	idx := 0
	for i := range m.plan.Steps {
		if m.plan.Steps[i].ID == s.ID {
			idx = i + 1
		}
	}
	b.WriteString(st.Section.Render(fmt.Sprintf("STEP %d/%d ", idx, len(m.plan.Steps))) + st.Bold.Render(common.Truncate(s.ID, width-12)))
	b.WriteString("\n" + label("action") + string(s.Action))
	if s.RunLevel != "" || s.Component != "" {
		b.WriteString(fmt.Sprintf("\n%s%s · level %s · group %d", label("component"), common.OrDash(s.Component), common.OrDash(s.RunLevel), s.Group))
	}
	if o := s.Object(); o != "-" && s.Change == nil {
		b.WriteString("\n" + label("object") + common.WrapIndent(o, width, 10))
	}
	for _, l := range m.remedyLines(s, width) {
		b.WriteString("\n" + l)
	}
	if s.DesiredUpdate != nil {
		du := fmt.Sprintf("%s %s", s.DesiredUpdate.Version, s.DesiredUpdate.Image)
		if s.DesiredUpdate.Force {
			du += " (force)"
		}
		b.WriteString("\n" + label("desired") + common.WrapIndent(du, width, 10))
	}
	b.WriteString("\n" + label("reason") + common.WrapIndent(common.OrDash(s.Reason), width, 10))
	g := "none"
	if s.Gate != nil {
		g = string(s.Gate.Kind) + ": " + gate.Describe(s.Gate)
		to := s.Gate.Timeout
		if to == "" {
			if d, ok := gate.DefaultTimeouts[s.Gate.Kind]; ok {
				to = d.String()
			}
		}
		if to != "" {
			g += " (timeout " + to + ")"
		}
	}
	b.WriteString("\n" + label("gate") + common.WrapIndent(g, width, 10))
	b.WriteString("\n" + label("status") + m.run.Status(s.ID).Word())

	if hasDiff(s) {
		b.WriteString("\n\n")
		m.diffLine = common.Lines(b.String()) - 1
		b.WriteString(st.Section.Render("DIFF AGAINST THE LIVE OBJECT"))
		d := m.diffs[s.ID]
		switch {
		case d != nil && d.Loading:
			b.WriteString("\n" + st.Pending.Render("server-side dry run ..."))
		case d != nil && d.Err != "":
			b.WriteString("\n" + st.Failed.Render(common.Wrap(d.Err, width)))
		case d != nil && d.Change != nil && remedyStep(s):
			b.WriteString("\n" + strings.Join(m.changeView(s, d.Change, width), "\n"))
		case d != nil && d.Change != nil:
			b.WriteString("\n" + common.Wrap(d.Change.Operation+" "+d.Change.Object+st.Dim.Render(" (prepared by a server-side dry run)"), width))
			if d.Change.Diff == "" {
				b.WriteString("\n" + st.Dim.Render("no difference: the live object already matches"))
			} else {
				b.WriteString("\n" + common.RenderDiff(st, d.Change.Diff, width, 0))
			}
		case !m.canDiff:
			b.WriteString("\n" + st.Dim.Render(common.Wrap(m.noDiff, width)))
		default:
			b.WriteString("\n" + st.Dim.Render("press "+keymap.Name(m.Keys.Diff)+" for a server-side dry run against the live cluster"))
		}
	}
	if s.Manifest != nil {
		b.WriteString("\n\n" + st.Section.Render("MANIFEST ") + st.Dim.Render(fmt.Sprintf("%s[%d]", s.Manifest.File, s.Manifest.Index)))
		if s.Manifest.CreateOnly {
			b.WriteString(st.Dim.Render(" create-only"))
		}
		y, err := yaml.JSONToYAML(s.Manifest.Object)
		if err != nil {
			b.WriteString("\n" + st.Failed.Render("cannot render: "+err.Error()))
		} else {
			for _, l := range strings.Split(strings.TrimRight(string(y), "\n"), "\n") {
				b.WriteString("\n" + common.Truncate(l, width))
			}
		}
	}
	return b.String()
}

// ShortHelp are the screen's keys for the footer.
func (m *Model) ShortHelp() []key.Binding {
	return append([]key.Binding{m.Keys.Up, m.Keys.Down, m.Keys.Diff, m.Keys.Pair, m.Keys.ScrollDown}, m.stages.ShortHelp()...)
}

// FullHelp are the screen's keys for the ? overlay.
func (m *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{append([]key.Binding{m.Keys.Up, m.Keys.Down, m.Keys.PageUp, m.Keys.PageDown, m.Keys.Top, m.Keys.Bottom, m.Keys.ScrollUp, m.Keys.ScrollDown, m.Keys.Filter, m.Keys.Back, m.Keys.Diff, m.Keys.Pair}, m.stages.FullHelp()...)}
}

// remedyStep reports whether a step is a remediation step whose change the
// engine describes field by field.
func remedyStep(s *planfile.Step) bool {
	return s.Change != nil || s.CSR != nil || s.Spec().Undoes
}

// Stages is the stage view above the steps (empty for a one-hop plan).
func (m *Model) Stages() *stages.Model { return m.stages }

// Diff returns a step's preview, nil when none was asked for.
func (m *Model) Diff(id string) *Diff { return m.diffs[id] }
