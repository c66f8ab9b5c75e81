package stages

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/internal/testing/golden"
	"github.com/openshift-recover/recover/internal/testing/stagedplan"
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/tui/internal/tuitest"
	"github.com/openshift-recover/recover/tui/state"
)

// newView is the stage view over tuitest.StagedPlan and a fresh run.
func newView(t *testing.T) (*Model, *state.Run, *planfile.Plan) {
	t.Helper()
	run := state.New(nil)
	p := stagedplan.EUS()
	m := New(tuitest.Common(), run)
	m.SetPlan(p)
	return m, run, p
}

// finish reports the steps done as the engine's events do.
func finish(run *state.Run, steps ...planfile.Step) {
	for _, s := range steps {
		run.Apply(apply.Event{Type: apply.EventStepStarted, Step: &apply.StepInfo{ID: s.ID}})
		run.Apply(apply.Event{Type: apply.EventStepDone, Step: &apply.StepInfo{ID: s.ID}})
	}
}

// TestTheCurrentStageFollowsTheRun: the current stage is the stage of the
// step the engine is at, by the plan's step -> stage mapping: stage 1 until
// its own and the plan's steps are done, then the stage whose step runs; a
// failed step fails its stage; every stage done leaves the last current.
func TestTheCurrentStageFollowsTheRun(t *testing.T) {
	m, run, p := newView(t)
	if m.Current() != 1 || m.StateOf(1) != Pending {
		t.Fatalf("before a run: current %d (%s)", m.Current(), m.StateOf(1))
	}
	finish(run, p.StageSteps(1)[0])
	if m.Current() != 1 || m.StateOf(1) != Stopped {
		t.Fatalf("stage 1 half done: current %d, %s", m.Current(), m.StateOf(1))
	}
	finish(run, p.StageSteps(1)[1:]...)
	s2 := p.StageSteps(2)
	finish(run, s2[:2]...)
	run.Apply(apply.Event{Type: apply.EventWaiting, Step: &apply.StepInfo{ID: s2[2].ID}})
	if m.Current() != 2 || m.StateOf(1) != Done || m.StateOf(2) != Running || m.StateOf(3) != Pending {
		t.Fatalf("in stage 2: current %d, states %s %s %s", m.Current(), m.StateOf(1), m.StateOf(2), m.StateOf(3))
	}
	run.Apply(apply.Event{Type: apply.EventGateFailed, Step: &apply.StepInfo{ID: s2[2].ID}})
	if m.StateOf(2) != Failed || m.Current() != 2 {
		t.Fatalf("a failed gate: stage 2 %s, current %d", m.StateOf(2), m.Current())
	}
	finish(run, s2[2:]...)
	finish(run, p.StageSteps(3)...)
	if m.Current() != 3 || m.StateOf(3) != Done {
		t.Fatalf("all done: current %d, %s", m.Current(), m.StateOf(3))
	}
}

// TestStageKeys: ] and [ expand another stage within the plan's; a new plan
// follows the run again; a one-hop plan has no stage keys and no view.
func TestStageKeys(t *testing.T) {
	m, _, p := newView(t)
	for _, tc := range []struct {
		keys []string
		want int
	}{{nil, 1}, {[]string{"]"}, 2}, {[]string{"]", "]", "]"}, 3}, {[]string{"]", "[", "["}, 1}} {
		m.SetPlan(p)
		tuitest.Press(m, tc.keys...)
		if got := m.Expanded(); got != tc.want {
			t.Errorf("%v: stage %d expanded, want %d", tc.keys, got, tc.want)
		}
	}
	if !m.Keys.NextStage.Enabled() {
		t.Error("] is off for a staged plan")
	}
	m.SetPlan(&planfile.Plan{Steps: p.Steps})
	if m.Keys.NextStage.Enabled() || m.Keys.PrevStage.Enabled() || m.View(80, 10) != "" || m.Height(80) != 0 {
		t.Error("a one-hop plan shows stages or their keys")
	}
}

// TestView pins the view: before a run (stage 1 expanded), in stage 2 with
// its pause done and the desiredUpdate waiting, and stage 3 chosen with ].
func TestView(t *testing.T) {
	for _, tc := range []struct {
		name  string
		width int
		setup func(m *Model, run *state.Run, p *planfile.Plan)
	}{
		{"before", 80, nil},
		{"stage2", 80, func(m *Model, run *state.Run, p *planfile.Plan) {
			finish(run, p.StageSteps(1)...)
			s2 := p.StageSteps(2)
			finish(run, s2[:2]...)
			run.Apply(apply.Event{Type: apply.EventWaiting, Step: &apply.StepInfo{ID: s2[2].ID}})
		}},
		{"stage3-chosen", 120, func(m *Model, run *state.Run, p *planfile.Plan) {
			finish(run, p.StageSteps(1)...)
			tuitest.Press(m, "]", "]")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, run, p := newView(t)
			if tc.setup != nil {
				tc.setup(m, run, p)
			}
			v := m.View(tc.width, 40)
			for i, l := range strings.Split(v, "\n") {
				if w := len([]rune(l)); w > tc.width {
					t.Errorf("line %d is %d wide: %q", i, w, l)
				}
			}
			if h := m.Height(tc.width); h != len(strings.Split(v, "\n")) {
				t.Errorf("Height %d, View has %d lines", h, len(strings.Split(v, "\n")))
			}
			if cut := m.View(tc.width, 3); len(strings.Split(cut, "\n")) != 3 {
				t.Errorf("at most 3 lines asked, got\n%s", cut)
			}
			golden.Assert(t, golden.Path(t), []byte(v+"\n"))
		})
	}

}

// TestDocsShowTheStageView keeps docs/tui.md's stage view the frame the view
// renders (the stage2 golden, trailing blanks aside).
func TestDocsShowTheStageView(t *testing.T) {
	const marker = "<!-- stage-view: tui/stages/testdata/TestView/stage2.golden -->\n```\n"
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "tui.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), marker)
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/tui.md has no stage view under its marker")
	}
	g, err := os.ReadFile(filepath.Join("testdata", "TestView", "stage2.golden"))
	if err != nil {
		t.Fatal(err)
	}
	trim := func(s string) string {
		lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
		for i := range lines {
			lines[i] = strings.TrimRight(lines[i], " ")
		}
		return strings.Join(lines, "\n")
	}
	if trim(block) != trim(string(g)) {
		t.Errorf("docs/tui.md's stage view is not the view's frame; copy testdata/TestView/stage2.golden there:\n%s", g)
	}
}
