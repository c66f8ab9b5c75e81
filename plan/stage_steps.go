package plan

import "strings"

// StageSteps are the steps of stage index of a staged plan, in the order they
// run: for stage 1 its own steps (the EUS pause, when stage 1 pauses) and then
// the plan's Steps, for a later stage its own (its outline). Nil when the plan
// has no such stage.
func (p *Plan) StageSteps(index int) []Step {
	if index < 1 || index > len(p.Stages) {
		return nil
	}
	st := p.Stages[index-1]
	if index > 1 {
		return st.Steps
	}
	out := make([]Step, 0, len(st.Steps)+len(p.Steps))
	return append(append(out, st.Steps...), p.Steps...)
}

// StageOf is the index of the stage a step of a staged plan belongs to: a
// stage's own step by its stageN- ID, any other step of the plan to stage 1.
// 0 when the plan has no stages or no step of that ID.
func (p *Plan) StageOf(id string) int {
	if len(p.Stages) == 0 {
		return 0
	}
	for _, st := range p.Stages {
		if !strings.HasPrefix(id, "stage") {
			break
		}
		for _, s := range st.Steps {
			if s.ID == id {
				return st.Index
			}
		}
	}
	if p.StepByID(id) != nil {
		return 1
	}
	return 0
}
