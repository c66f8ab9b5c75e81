package planfile

import (
	"strings"

	"github.com/openshift-recover/recover/plan/graph"
)

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

// FormatVersionStages is the format of a staged plan (formatVersion 1.4 adds
// goal, goalReasons and stages). A one-hop plan keeps FormatVersion: readers of
// 1.3 read it unchanged, and a 1.4 reader reads both.
const FormatVersionStages = "1.4"

// Stage is one hop of a staged plan (formatVersion 1.4): the CVO carries it out
// as a desiredUpdate recover sets and watches; the first stage's steps are the
// plan's Steps (the per-hop planner's, remedies included), a later stage's are
// its outline, planned again against the cluster once the stage before it lands
// (`recover plan --to GOAL` from there: the same rules, on the cluster as it is).
type Stage struct {
	// Index counts from 1.
	Index int    `json:"index"`
	From  string `json:"from"`
	To    string `json:"to"`
	// Image is To's release image, by digest.
	Image string `json:"image"`
	// Edge is the update service's edge From -> To ("supported", or
	// "conditional" with its risks accepted for this stage).
	Edge string `json:"edge"`
	// Workers says what the worker pools do in this stage: "follow" (they
	// update with the control plane) or "paused" (an EUS control-plane-only
	// hop: their kubelets stay where they were).
	Workers string `json:"workers"`
	// Reasons say why To was chosen.
	Reasons []string `json:"reasons"`
	// Passed are the other releases of To's minor and why each was not chosen.
	Passed []graph.PassedRelease `json:"passed,omitempty"`
	// Accept are the --accept names that hold for this stage (stage N:NAME).
	Accept []string `json:"accept,omitempty"`
	// Steps are the stage's own steps: for stage 1, what runs before the
	// plan's Steps (the EUS pools' pause, when stage 1 is the paused hop); for
	// a later stage, its outline: the pause when it is the first paused hop,
	// set-desired-update, the wait for the control plane at To, and on the
	// last stage the unpause of what the plan paused.
	Steps []Step `json:"steps,omitempty"`
	// Warnings are this stage's (a long pause, an ack owed when it lands).
	Warnings []string `json:"warnings,omitempty"`
}

// RunStep is one step of a plan in the order apply runs it, with its stage.
type RunStep struct {
	// Stage is the step's stage (from 1); 0 in a plan without stages.
	Stage int
	Step  *Step
}

// RunOrder is the order apply runs a plan's steps in: a plan without stages
// runs its Steps; a staged plan (formatVersion 1.4) runs stage 1's own steps
// (the EUS pause when stage 1 is the paused hop), then the plan's Steps (stage
// 1's hop), then each later stage's steps in turn. It is the one place that
// says so: apply, its journal and the TUI read it. The steps point into p.
func RunOrder(p *Plan) []RunStep {
	if len(p.Stages) == 0 {
		out := make([]RunStep, len(p.Steps))
		for i := range p.Steps {
			out[i] = RunStep{Step: &p.Steps[i]}
		}
		return out
	}
	var out []RunStep
	for si := range p.Stages {
		st := &p.Stages[si]
		for i := range st.Steps {
			out = append(out, RunStep{Stage: st.Index, Step: &st.Steps[i]})
		}
		if si == 0 {
			for i := range p.Steps {
				out = append(out, RunStep{Stage: st.Index, Step: &p.Steps[i]})
			}
		}
	}
	return out
}

// validateStages checks a staged plan's stages: numbered from 1 in order,
// each hop starting where the one before it ended, the last ending at the
// goal, and each stage's steps, as RunOrder runs them, valid as a plan of their own (the
// fields each action needs, its gates, the CVO bracket within the stage) with
// IDs unique across the whole plan.
func validateStages(p *Plan, add func(format string, args ...any)) {
	if len(p.Stages) == 0 {
		return
	}
	seen := map[string]bool{}
	for i := range p.Steps {
		seen[p.Steps[i].ID] = true
	}
	for i := range p.Stages {
		st := &p.Stages[i]
		if st.Index != i+1 {
			add("stage %d is numbered %d", i+1, st.Index)
		}
		if i > 0 && st.From != p.Stages[i-1].To {
			add("stage %d starts at %s, not where stage %d ends (%s)", st.Index, st.From, i, p.Stages[i-1].To)
		}
		if st.To == "" {
			add("stage %d has no target release", st.Index)
		}
		for j := range st.Steps {
			id := st.Steps[j].ID
			if seen[id] {
				add("stage %d: step %s: duplicate step id", st.Index, id)
			}
			seen[id] = true
		}
		if len(st.Steps) == 0 {
			if i > 0 {
				add("stage %d has no steps: a later stage needs at least its desiredUpdate", st.Index)
			}
			continue
		}
		// A stage is valid as the steps it runs (RunOrder): stage 1's own
		// steps (the EUS pause) run before the plan's Steps, which hold its
		// hand-over to the CVO, so they are checked together.
		sub := *p
		sub.Steps, sub.Stages = p.StageSteps(st.Index), nil
		if err := Validate(&sub); err != nil {
			add("stage %d: %s", st.Index, strings.TrimPrefix(err.Error(), "invalid plan: "))
		}
	}
	if last := p.Stages[len(p.Stages)-1]; p.Goal != "" && last.To != p.Goal {
		add("the last stage ends at %s, not at the goal %s", last.To, p.Goal)
	}
}
