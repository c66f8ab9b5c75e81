package plan

import (
	"testing"

	"github.com/openshift-recover/recover/plan/planfile"
)

// TestStageStepsAndStageOf: stage 1 runs its own steps (none here: stage 1
// follows) then the plan's Steps; a later stage its outline; every step maps
// back to the stage it belongs to, and an unknown ID to none.
func TestStageStepsAndStageOf(t *testing.T) {
	p, err := makeStagedExample(t, healthyUpdating(t), stagedGraph(t, stagedEdges...), "4.6.1", true)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.StageSteps(1); len(got) != len(p.Stages[0].Steps)+len(p.Steps) || got[len(got)-1].ID != p.Steps[len(p.Steps)-1].ID {
		t.Fatalf("stage 1's steps: %d, want its own and the plan's %d", len(got), len(p.Steps))
	}
	for _, st := range p.Stages {
		for _, s := range p.StageSteps(st.Index) {
			if got := p.StageOf(s.ID); got != st.Index {
				t.Errorf("StageOf(%s) = %d, want %d", s.ID, got, st.Index)
			}
		}
	}
	if got := p.StageSteps(2); len(got) != 4 || got[1].Action != planfile.ActionPausePool {
		t.Errorf("stage 2's steps: %+v", got)
	}
	if p.StageOf("stage9-001-nothing") != 0 || p.StageSteps(0) != nil || p.StageSteps(4) != nil {
		t.Error("an unknown step or stage maps to a stage")
	}
	one := &planfile.Plan{Steps: p.Steps}
	if one.StageOf(p.Steps[0].ID) != 0 {
		t.Error("a one-hop plan has no stages")
	}
}
