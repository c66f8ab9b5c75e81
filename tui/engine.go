package tui

import (
	"context"

	"github.com/openshift-recover/recover/inspect"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/tui/steps"
)

// engineRun is one run of the engine in the session: its event stream, the
// channel the Decider reads the user's answers from, and its cancel.
type engineRun struct {
	id      int
	events  <-chan apply.Event
	answers chan apply.Decision
	cancel  context.CancelFunc
	done    bool
}

// eventMsg carries one engine event into Update.
type eventMsg struct {
	run int
	ev  apply.Event
}

// runEndedMsg says the run's event channel is closed.
type runEndedMsg struct{ run int }

// startRun starts the engine. The Decider blocks the engine until the user
// answers through answer, or the run's context ends.
func startRun(parent context.Context, id int, r Runner, p *planfile.Plan, opts apply.Options) *engineRun {
	ctx, cancel := context.WithCancel(parent)
	answers := make(chan apply.Decision, 1)
	opts.Confirm = true
	opts.Decider = chanDecider{answers: answers}
	return &engineRun{id: id, events: r.Run(ctx, p, opts), answers: answers, cancel: cancel}
}

// next waits for the run's next event.
func (r *engineRun) next() tea.Cmd {
	events, id := r.events, r.id
	return func() tea.Msg {
		ev, ok := <-events
		if !ok {
			return runEndedMsg{run: id}
		}
		return eventMsg{run: id, ev: ev}
	}
}

// answer hands the engine the user's decision. The channel holds one answer;
// the session sends one per question, so it never blocks.
func (r *engineRun) answer(d apply.Decision) tea.Cmd {
	ch := r.answers
	return func() tea.Msg {
		select {
		case ch <- d:
		default:
		}
		return nil
	}
}

// drain cancels the run and waits for the engine to finish (journal closed, lock
// released), returning the last result seen.
func (r *engineRun) drain() *apply.Result {
	r.cancel()
	var res *apply.Result
	for ev := range r.events {
		if ev.Type == apply.EventDone {
			res = ev.Result
		}
	}
	return res
}

// chanDecider is the engine's Decider in the TUI: it waits for the user's answer.
type chanDecider struct {
	answers <-chan apply.Decision
}

// Decide waits for the answer the session sends after the user pressed a key.
func (d chanDecider) Decide(ctx context.Context, _ apply.Request) (apply.Decision, error) {
	select {
	case <-ctx.Done():
		return apply.Abort, ctx.Err()
	case a := <-d.answers:
		return a, nil
	}
}

// previewMsg carries a step's previewed diff.
type previewMsg struct {
	step string
	diff *steps.Diff
}

// preview asks the engine for one step's change against the live object: the
// engine's own preparation (read live, dry run, diff), so the TUI shows exactly
// what apply would send.
func preview(ctx context.Context, r Runner, p *planfile.Plan, stepID string) tea.Cmd {
	return func() tea.Msg {
		c, err := r.Preview(ctx, p, stepID)
		d := &steps.Diff{Change: c}
		if err != nil {
			d.Change, d.Err = nil, "no diff: "+err.Error()
		}
		return previewMsg{step: stepID, diff: d}
	}
}

// replanMsg carries the planner's answer to an accepted risk.
type replanMsg struct {
	plan     *planfile.Plan
	err      error
	accepted []string
}

func replan(ctx context.Context, fn func(context.Context, *inspect.Snapshot, []string) (*planfile.Plan, error), snap *inspect.Snapshot, accept []string) tea.Cmd {
	return func() tea.Msg {
		p, err := fn(ctx, snap, accept)
		return replanMsg{plan: p, err: err, accepted: accept}
	}
}

// savedMsg says the computed plan was saved (or not) before a run.
type savedMsg struct {
	path, digest string
	plan         *planfile.Plan // as read back from path
	err          error
}

func savePlan(save func(*planfile.Plan) (string, string, *planfile.Plan, error), p *planfile.Plan) tea.Cmd {
	return func() tea.Msg {
		path, digest, saved, err := save(p)
		return savedMsg{path: path, digest: digest, plan: saved, err: err}
	}
}
