package plan

// StageSteps are the steps of stage index of a staged plan, in the order they
// run (RunOrder: for stage 1 its own steps, the EUS pause when stage 1 pauses,
// and then the plan's Steps; for a later stage its outline). Nil when the plan
// has no such stage.
func (p *Plan) StageSteps(index int) []Step {
	if index < 1 || index > len(p.Stages) {
		return nil
	}
	var out []Step
	for _, rs := range RunOrder(p) {
		if rs.Stage == index {
			out = append(out, *rs.Step)
		}
	}
	return out
}

// StageOf is the index of the stage a step of a staged plan belongs to, as
// RunOrder runs it; 0 when the plan has no stages or no step of that ID.
func (p *Plan) StageOf(id string) int {
	for _, rs := range RunOrder(p) {
		if rs.Step.ID == id {
			return rs.Stage
		}
	}
	return 0
}
