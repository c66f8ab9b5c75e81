package tui

import (
	"strings"
	"testing"

	"github.com/openshift-recover/recover/internal/testing/stagedplan"
)

// TestAStagedRunFollowsItsStages: a session on a staged plan shows the stage
// the run is at on the Apply screen's run line and in the Plan screen's stage
// view, derived from the engine's step events and the plan's step -> stage
// mapping (the events carry no stage): stage 1 while its steps run, stage 2,
// the paused hop, once they are done.
func TestAStagedRunFollowsItsStages(t *testing.T) {
	f := &fakeRunner{}
	s := liveSession(t, f)
	s.Plan = stagedplan.EUS()
	m := newTestModel(t, s, 120, 40)
	d := newDriver(t, m)
	p := s.Plan

	d.press("4")
	if v := m.View(); !strings.Contains(v, "stage 1 of 3: 4.18.3 → 4.18.9, workers follow") {
		t.Fatalf("before the run the Apply screen does not name stage 1:\n%s", v)
	}
	d.press("a")
	d.press("y")
	d.asked(p.Steps[0].ID)
	d.press("3")
	if v := m.View(); !strings.Contains(v, "STAGES to 4.20.3") || !strings.Contains(v, "stage 1 of 3 running") {
		t.Fatalf("the Plan screen does not show stage 1 running:\n%s", v)
	}
	d.press("4")
	d.press("y")
	d.finished()
	v := m.View()
	if !strings.Contains(v, "stage 2 of 3: 4.18.9 → 4.19.14, workers paused") {
		t.Fatalf("after stage 1's steps the Apply screen does not name stage 2:\n%s", v)
	}
	d.press("3")
	if v := m.View(); !strings.Contains(v, "done 2/2") || !strings.Contains(v, "stage2-002-pause-pool-worker") {
		t.Fatalf("the Plan screen does not show stage 1 done and stage 2 expanded:\n%s", v)
	}
}
