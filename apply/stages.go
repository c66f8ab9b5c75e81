package apply

import (
	"fmt"
	"strings"

	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/plan/planfile"
)

// Staged runs (plan formatVersion 1.4). A staged plan is run stage by stage in
// plan.RunOrder: stage 1's own steps and its hop (the plan's Steps), then each
// later stage's outline (the EUS pause, set-desired-update with the CVO
// running, the wait for machine-config at the stage's target, the unpause on
// the last stage). A stage starts once every step before it is done, so its
// gates passed: stage N+1's desiredUpdate is handed to the CVO only after
// stage N's control plane is verified at its target. The outline is run as
// the plan wrote it, not planned again: planning a stage again needs the
// update graph and the target's payload, which apply does not have; the admin
// who wants the later stages planned against the cluster as it is then stops
// the run and asks 'recover plan --to GOAL' (docs/apply.md, "Staged runs").

// runPlan is the plan a run executes: p itself without stages; for a staged
// plan a copy whose Steps are every stage's steps in plan.RunOrder, with the
// stage of each step by ID.
func runPlan(p *planfile.Plan) (*planfile.Plan, map[string]int) {
	if len(p.Stages) == 0 {
		return p, nil
	}
	order := planfile.RunOrder(p)
	flat := *p
	flat.Steps = make([]planfile.Step, len(order))
	stageOf := make(map[string]int, len(order))
	for i, rs := range order {
		flat.Steps[i] = *rs.Step
		stageOf[rs.Step.ID] = rs.Stage
	}
	return &flat, stageOf
}

// stageAt is the stage of the run's i-th step (0 without stages).
func (r *run) stageAt(i int) int {
	if r.stageOf == nil || i < 0 || i >= len(r.p.Steps) {
		return 0
	}
	return r.stageOf[r.p.Steps[i].ID]
}

// stageRefs are the journal header's stages: from -> to, the workers, and
// how many steps each runs.
func stageRefs(p *planfile.Plan, stageOf map[string]int) []journal.StageRef {
	var out []journal.StageRef
	for _, st := range p.Stages {
		n := 0
		for _, s := range stageOf {
			if s == st.Index {
				n++
			}
		}
		out = append(out, journal.StageRef{Index: st.Index, From: st.From, To: st.To, Workers: st.Workers, Steps: n})
	}
	return out
}

// startVersion is the release the cluster ran when the plan was made.
func startVersion(p *planfile.Plan) string {
	if len(p.Stages) > 0 {
		return p.Stages[0].From
	}
	return p.Cluster.ClaimedVersion
}

// enterStage journals and announces that the run starts (or, resumed, goes
// on with) stage n, after the stage before it landed.
func (r *run) enterStage(n int) error {
	if n == 0 || n == r.stage {
		return nil
	}
	if r.stage > 0 {
		if err := r.landStage(r.stage); err != nil {
			return err
		}
	}
	r.stage = n
	st := r.orig.Stages[n-1]
	if err := r.record(journal.Record{Type: journal.TypeStage, StageMark: &journal.StageMark{Index: n, State: journal.StageRunning}}); err != nil {
		return err
	}
	msg := fmt.Sprintf("stage %d of %d: %s -> %s", n, len(r.orig.Stages), st.From, st.To)
	if st.Workers == planfile.WorkersPaused {
		msg += " (workers paused: control plane only)"
	}
	r.emit(Event{Type: EventStage, Message: msg, Stage: r.stageInfo(n, journal.StageRunning)})
	return nil
}

// landStage journals that every step of stage n is done.
func (r *run) landStage(n int) error {
	if n == 0 {
		return nil
	}
	if err := r.record(journal.Record{Type: journal.TypeStage, StageMark: &journal.StageMark{Index: n, State: journal.StageLanded}}); err != nil {
		return err
	}
	st := r.orig.Stages[n-1]
	r.emit(Event{Type: EventStage, Message: fmt.Sprintf("stage %d of %d landed: the cluster is at %s", n, len(r.orig.Stages), st.To), Stage: r.stageInfo(n, journal.StageLanded)})
	return nil
}

func (r *run) stageInfo(n int, state journal.StageState) *StageInfo {
	st := r.orig.Stages[n-1]
	return &StageInfo{Index: n, Of: len(r.orig.Stages), From: st.From, To: st.To, Workers: st.Workers, State: string(state)}
}

// stageHolds is the stopped run's sentence about the stage that holds it.
func (r *run) stageHolds() string {
	if r.stageOf == nil || r.j == nil {
		return ""
	}
	return journal.StageHolds(r.j.Header(), r.j.State(), r.j.ResumeCommand())
}

// untilStage resolves --until-stage N to the index of the last step of stage
// N in the run's order (plan.RunOrder, as plan.StageSteps reads it): the step
// --until-step would name. A plan without stages, a stage it does not have
// and both flags at once are bad input (CheckUntilStage).
func (r *run) untilStage() (int, error) {
	n := r.opts.UntilStage
	if r.opts.UntilStep != "" {
		return 0, fail(OutcomeBadInput, "--until-stage %d and --until-step %s both say where to stop: pass one", n, r.opts.UntilStep)
	}
	last, err := CheckUntilStage(r.orig, n)
	if err != nil {
		return 0, &Error{Outcome: OutcomeBadInput, Err: err}
	}
	for i := range r.p.Steps {
		if r.p.Steps[i].ID == last {
			return i, nil
		}
	}
	return 0, fail(OutcomeBadInput, "--until-stage %d: its last step %s is not in the plan's run order", n, last)
}

// CheckUntilStage checks --until-stage n against plan p and returns the ID of
// the step the run stops after: the last of stage n in plan.RunOrder. The CLI
// asks it before connecting; the engine again, for every caller.
func CheckUntilStage(p *planfile.Plan, n int) (string, error) {
	switch {
	case len(p.Stages) == 0:
		return "", fmt.Errorf("--until-stage %d: the plan has no stages (a one-hop plan; 'recover plan --to VERSION' makes a staged one): stop it with --until-step ID instead", n)
	case n < 1 || n > len(p.Stages):
		return "", fmt.Errorf("--until-stage %d: the plan has stages 1 to %d", n, len(p.Stages))
	}
	steps := p.StageSteps(n)
	if len(steps) == 0 {
		return "", fmt.Errorf("--until-stage %d: stage %d has no steps", n, n)
	}
	return steps[len(steps)-1].ID, nil
}

// landUntilStage journals, when the run stops as --until-stage asked, that the
// stage has landed: every one of its steps is done, its gates passed. A
// stage a resumed run found landed already is not journaled again.
func (r *run) landUntilStage() error {
	n := r.opts.UntilStage
	if n == 0 || r.opts.DryRun {
		return nil
	}
	if r.stage != n && r.state != nil && n <= len(r.state.Stages) && r.state.Stages[n-1].State == journal.StageLanded {
		return nil
	}
	r.stage = n
	return r.landStage(n)
}

// keptForLaterStage reports whether a pool pause (step s) stays in place when
// the run stops as --until-stage asked: the step that unpauses it belongs to
// a later stage, which relies on the pause (the EUS path's workers stay
// paused across the intermediate minor). Any other stop reverts it.
func (r *run) keptForLaterStage(s *planfile.Step) bool {
	if !r.untilHit || r.opts.UntilStage == 0 || s.Action != planfile.ActionPausePool {
		return false
	}
	by := r.restoredBy(s)
	return by != "" && r.stageOf[by] > r.opts.UntilStage
}

// untilStageMessage is the one line of a run that stopped as --until-stage
// asked: the stage that landed, and the pools it leaves paused for the next.
func (r *run) untilStageMessage() string {
	n := r.opts.UntilStage
	st := r.orig.Stages[n-1]
	msg := fmt.Sprintf("stage %d of %d landed (%s -> %s): stopped as asked (--until-stage %d), %d steps done this run", n, len(r.orig.Stages), st.From, st.To, n, r.done)
	if len(r.kept) > 0 {
		msg += "; kept paused for the later stages (recover unpauses them at the end): " + strings.Join(r.kept, ", ")
	}
	if n < len(r.orig.Stages) {
		next := r.orig.Stages[n]
		msg += fmt.Sprintf("; stage %d (%s -> %s) is next", n+1, next.From, next.To)
	}
	return msg
}
