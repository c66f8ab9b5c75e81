package stages

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/tui/common"
	"github.com/openshift-recover/recover/tui/state"
	"github.com/openshift-recover/recover/tui/styles"
)

// State is where a stage is in the session's run.
type State string

// The stage states.
const (
	Pending State = "pending"
	Running State = "running"
	Done    State = "done"
	Failed  State = "failed"
	// Stopped: the run stopped inside the stage (a step reverted, or some
	// steps done and none running).
	Stopped State = "stopped"
)

// Model is the stage view.
type Model struct {
	*common.Common
	plan *planfile.Plan
	run  *state.Run
	// chosen is the stage ] and [ expanded, 0 while the view follows the run.
	chosen int
}

// New returns an empty stage view over the session's run state.
func New(c *common.Common, run *state.Run) *Model {
	m := &Model{Common: c, run: run}
	m.enableKeys()
	return m
}

// SetPlan shows a plan's stages (none for a one-hop plan); the view follows
// the run again.
func (m *Model) SetPlan(p *planfile.Plan) {
	m.plan, m.chosen = p, 0
	m.enableKeys()
}

// Staged reports whether the plan has stages to show.
func (m *Model) Staged() bool { return m.plan != nil && len(m.plan.Stages) > 0 }

func (m *Model) enableKeys() {
	m.Keys.Enable(&m.Keys.NextStage, m.Staged())
	m.Keys.Enable(&m.Keys.PrevStage, m.Staged())
}

// StateOf is a stage's state from its steps' statuses in the run.
func (m *Model) StateOf(index int) State {
	steps := m.plan.StageSteps(index)
	n := map[state.StepStatus]int{}
	for _, s := range steps {
		n[m.run.Status(s.ID)]++
	}
	finished := n[state.StepDone] + n[state.StepSkipped]
	switch {
	case n[state.StepFailed] > 0:
		return Failed
	case n[state.StepRunning]+n[state.StepAwaiting]+n[state.StepApplied]+n[state.StepWaiting] > 0:
		return Running
	case len(steps) > 0 && finished == len(steps):
		return Done
	case finished > 0 || n[state.StepReverted] > 0:
		return Stopped
	}
	return Pending
}

// Current is the stage the run is at: the first that is not done (the last
// when every stage is), 0 for a plan without stages.
func (m *Model) Current() int {
	if !m.Staged() {
		return 0
	}
	for _, st := range m.plan.Stages {
		if m.StateOf(st.Index) != Done {
			return st.Index
		}
	}
	return len(m.plan.Stages)
}

// Expanded is the stage shown with its steps: the one ] and [ chose, else the
// current one.
func (m *Model) Expanded() int {
	if m.chosen > 0 {
		return m.chosen
	}
	return m.Current()
}

// Update handles ] and [.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	if !ok || !m.Staged() {
		return nil
	}
	switch {
	case key.Matches(k, m.Keys.NextStage):
		m.chosen = min(m.Expanded()+1, len(m.plan.Stages))
	case key.Matches(k, m.Keys.PrevStage):
		m.chosen = max(m.Expanded()-1, 1)
	}
	return nil
}

// Handles reports whether k is one of the view's keys.
func (m *Model) Handles(k tea.KeyMsg) bool {
	return m.Staged() && (key.Matches(k, m.Keys.NextStage) || key.Matches(k, m.Keys.PrevStage))
}

// stepRows is how many of the expanded stage's steps are listed at most.
const stepRows = 6

// View renders the stages in width columns, at most height lines ("" for a
// plan without stages).
func (m *Model) View(width, height int) string {
	if !m.Staged() || height <= 0 {
		return ""
	}
	st := m.Styles
	p := m.plan
	cur := m.Current()
	head := st.Section.Render("STAGES") + fmt.Sprintf(" to %s", p.Goal) +
		st.Dim.Render(fmt.Sprintf(" · stage %d of %d %s", cur, len(p.Stages), m.word(cur, cur)))
	lines := []string{common.Truncate(head, width)}
	fromW, toW := 4, 2
	for _, s := range p.Stages {
		fromW, toW = max(fromW, len(s.From)), max(toW, len(s.To))
	}
	cols := fmt.Sprintf("    %-3s%s%s%s%s%s", "#", common.Pad("FROM", fromW+4), common.Pad("TO", toW+2), common.Pad("EDGE", 13), common.Pad("WORKERS", 9), "STATE")
	lines = append(lines, st.Dim.Render(common.Truncate(cols, width)))
	exp := m.Expanded()
	for _, s := range p.Stages {
		sst := m.StateOf(s.Index)
		steps := p.StageSteps(s.Index)
		word := m.word(s.Index, cur)
		mark := m.stateStyle(sst).Render(glyph(sst))
		row := fmt.Sprintf("%s %-3d%s%s%s%s%s", mark, s.Index, common.Pad(s.From, fromW+1), common.Pad("→", 3),
			common.Pad(s.To, toW+2), common.Pad(s.Edge, 13), common.Pad(s.Workers, 9)) + word
		lines = append(lines, common.Row(st, row, s.Index == exp, width))
		if s.Index == exp {
			lines = append(lines, m.expanded(s, steps, width)...)
		}
	}
	if len(lines) > height {
		lines = lines[:height]
	}
	return strings.Join(lines, "\n")
}

// word is a stage's state in the view: "next" for the current stage not
// started yet, with how many of its steps are finished once it has started.
func (m *Model) word(index, cur int) string {
	sst := m.StateOf(index)
	if sst == Pending {
		if index == cur {
			return "next"
		}
		return string(sst)
	}
	steps := m.plan.StageSteps(index)
	done := 0
	for _, x := range steps {
		if w := m.run.Status(x.ID); w == state.StepDone || w == state.StepSkipped {
			done++
		}
	}
	return fmt.Sprintf("%s %d/%d", sst, done, len(steps))
}

// Line is the current stage in one line, for the Apply screen's run line
// ("stage 2 of 3: 4.18.9 → 4.19.14, workers paused"); "" for a plan without
// stages.
func (m *Model) Line() string {
	if !m.Staged() {
		return ""
	}
	s := m.plan.Stages[m.Current()-1]
	return fmt.Sprintf("stage %d of %d: %s → %s, workers %s", s.Index, len(m.plan.Stages), s.From, s.To, s.Workers)
}

// Height is how many lines View takes at most.
func (m *Model) Height(width int) int {
	if !m.Staged() {
		return 0
	}
	return common.Lines(m.View(width, 1<<20))
}

// expanded lists a stage's steps (at most stepRows, the running one in view),
// its warnings, and for a later stage that it is planned again.
func (m *Model) expanded(s planfile.Stage, steps []planfile.Step, width int) []string {
	st := m.Styles
	var out []string
	first := 0
	for i, x := range steps {
		if w := m.run.Status(x.ID); w != state.StepDone && w != state.StepSkipped {
			first = max(0, i-1)
			break
		}
	}
	first = min(first, max(0, len(steps)-stepRows))
	if first > 0 {
		out = append(out, st.Dim.Render(fmt.Sprintf("      … %d step(s) before", first)))
	}
	for i := first; i < len(steps) && i < first+stepRows; i++ {
		x := steps[i]
		status := m.run.Status(x.ID)
		g := "-"
		if x.Gate != nil {
			g = string(x.Gate.Kind)
		}
		line := fmt.Sprintf("      %s %s%s%s", StepGlyph(m.Styles, status), common.Pad(common.Truncate(x.ID, 34), 35), common.Pad(string(x.Action), 19), g)
		out = append(out, common.Truncate(line, width))
	}
	if rest := len(steps) - first - stepRows; rest > 0 {
		more := fmt.Sprintf("      … %d more", rest)
		if s.Index == 1 {
			more += " (the STEPS below)"
		}
		out = append(out, st.Dim.Render(more))
	}
	for _, w := range s.Warnings {
		out = append(out, st.Warning.Render(common.Truncate("      ! "+w, width)))
	}
	if s.Index > 1 {
		out = append(out, st.Dim.Render(common.Truncate(fmt.Sprintf("      planned again against the cluster once stage %d lands", s.Index-1), width)))
	}
	return out
}

func glyph(s State) string {
	switch s {
	case Running:
		return "▶"
	case Done:
		return "✓"
	case Failed:
		return "✗"
	case Stopped:
		return "■"
	}
	return "·"
}

func (m *Model) stateStyle(s State) lipgloss.Style {
	switch s {
	case Done:
		return m.Styles.OK
	case Failed:
		return m.Styles.Failed
	case Pending:
		return m.Styles.Dim
	}
	return m.Styles.Pending
}

// StepGlyph is a step status's marker in its colour, as every step list
// shows it (this view's and the Plan screen's).
func StepGlyph(st *styles.Styles, s state.StepStatus) string {
	style := st.Pending
	switch s {
	case state.StepDone:
		style = st.OK
	case state.StepFailed:
		style = st.Failed
	case state.StepPending:
		style = st.Dim
	}
	return style.Render(s.Glyph())
}

// ShortHelp are the view's keys for the footer.
func (m *Model) ShortHelp() []key.Binding { return []key.Binding{m.Keys.NextStage} }

// FullHelp are the view's keys for the ? overlay.
func (m *Model) FullHelp() []key.Binding { return []key.Binding{m.Keys.NextStage, m.Keys.PrevStage} }
