package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/tui/common"
	"github.com/openshift-recover/recover/tui/internal/tuitest"
)

// fakeRunner stands in for the engine in the pure tests: it emits the engine's
// events in the engine's order for each step, asks its Decider where the engine
// would, and records every run's options and every answer. The real engine on a
// real API server is driven by the teatest program test.
type fakeRunner struct {
	mu      sync.Mutex
	runs    []apply.Options
	answers []apply.Decision
	// failGate makes this step's gate fail once; blockGate makes it wait until the
	// run's context ends.
	failGate  string
	blockGate string
	// refuse makes preflight refuse the first run (before any journal exists).
	refuse bool
	// failRevert makes the revert on stop fail (someone edited the object).
	failRevert bool
}

func (f *fakeRunner) record(o apply.Options) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.runs = append(f.runs, o)
}

func (f *fakeRunner) answered() []apply.Decision {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]apply.Decision(nil), f.answers...)
}

func (f *fakeRunner) options() []apply.Options {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]apply.Options(nil), f.runs...)
}

var t0 = fixedNow.Add(-10 * time.Minute)

// Run plays the plan.
func (f *fakeRunner) Run(ctx context.Context, p *planfile.Plan, opts apply.Options) <-chan apply.Event {
	f.record(opts)
	ch := make(chan apply.Event, 64)
	go func() {
		defer close(ch)
		tick := t0
		emit := func(ev apply.Event) {
			tick = tick.Add(time.Second)
			ev.Time = tick
			ch <- ev
		}
		one := int32(1)
		res := &apply.Result{StepsTotal: len(p.Steps), Journal: opts.JournalPath, DryRun: opts.DryRun}
		disabled := false
		revertNote := ""
		finish := func(o apply.Outcome, msg string, at string) {
			msg += revertNote
			res.Outcome, res.Message, res.StoppedAt = o, msg, at
			if o != apply.OutcomeCompleted {
				res.Err = fmt.Errorf("%s", msg)
				res.Error = msg
			}
			if disabled {
				res.CVODisabled, res.CVOReplicas = true, &one
				res.Message += "; the cluster-version operator is left DISABLED (scaled to 0; it ran 1 replica(s) before)"
				res.Next = []string{"recover apply --resume " + opts.JournalPath + " --yes   # continue the plan where it stopped",
					"oc scale deployment/cluster-version-operator -n openshift-cluster-version --replicas=1   # give control back to the CVO without finishing the plan"}
			}
			emit(apply.Event{Type: apply.EventDone, Message: res.Message, Result: res})
		}
		decide := func(req apply.Request) apply.Decision {
			emit(apply.Event{Type: apply.EventAwaitingConfirmation, Step: &req.Step, Message: req.Message, Request: &req})
			d, err := opts.Decider.Decide(ctx, req)
			if err != nil {
				d = apply.Abort
			}
			f.mu.Lock()
			f.answers = append(f.answers, d)
			f.mu.Unlock()
			return d
		}
		// outstanding are the temporary changes made and not yet reverted;
		// revertOnStop undoes them, newest first, as the engine does when a run
		// stops before their revert steps.
		var outstanding []*planfile.Step
		revertOnStop := func() {
			for i := len(outstanding) - 1; i >= 0; i-- {
				t := outstanding[i]
				ti := apply.StepInfo{ID: t.ID, Action: t.Action, Object: t.Object(), Remedy: t.Remedy, RevertedBy: t.RevertedBy}
				back := revertChange(t)
				emit(apply.Event{Type: apply.EventReverting, Step: &ti, Change: back, Message: "reverting the temporary change of step " + t.ID})
				if f.failRevert {
					why := t.Object() + " was edited since step " + t.ID + " journaled its pre-image"
					emit(apply.Event{Type: apply.EventReverted, Step: &ti, Error: why, Message: "could not revert the temporary change of step " + t.ID + ": " + why})
					res.NotReverted = append(res.NotReverted, apply.RevertInfo{Step: t.ID, RevertedBy: t.RevertedBy, Object: t.Object(), PreImage: back.PreImage, Error: why,
						Command: "oc patch poddisruptionbudget/deck -n ci --type=merge -p '{\"spec\":{\"minAvailable\":2}}'"})
					continue
				}
				done := *back
				done.Result = "reverted"
				emit(apply.Event{Type: apply.EventReverted, Step: &ti, Change: &done, Message: t.Object() + " restored to its pre-image because the run stopped before step " + t.RevertedBy + ", which restores it; a resume makes the change again"})
				res.Reverted = append(res.Reverted, apply.RevertInfo{Step: t.ID, RevertedBy: t.RevertedBy, Object: t.Object(), PreImage: back.PreImage, Result: "reverted"})
				revertNote += "; reverted the temporary change of step " + t.ID + " to its journaled pre-image"
			}
			outstanding = nil
		}
		emit(apply.Event{Type: apply.EventRunStarted, Message: fmt.Sprintf("applying plan to %s (%d steps)", p.Target.Version, len(p.Steps)),
			Run: &apply.RunInfo{TargetVersion: p.Target.Version, Steps: len(p.Steps), Journal: opts.JournalPath, DryRun: opts.DryRun, Resume: opts.Resume}})
		f.mu.Lock()
		refuse := f.refuse && len(f.runs) == 1
		f.mu.Unlock()
		if refuse {
			msg := "the cluster changed since the plan was made: make a new plan with 'recover plan', or pass --allow-stale"
			emit(apply.Event{Type: apply.EventPreflight, Preflight: &apply.PreflightCheck{Name: "staleness", Message: msg, Problems: []string{msg}}})
			res.Journal = ""
			finish(apply.OutcomeRefused, msg, "")
			return
		}
		emit(apply.Event{Type: apply.EventPreflight, Preflight: &apply.PreflightCheck{Name: "rbac", OK: true, Message: "all 12 permissions the plan needs are granted"}})
		for i := range p.Steps {
			s := &p.Steps[i]
			info := apply.StepInfo{ID: s.ID, Index: i + 1, Total: len(p.Steps), Action: s.Action, Component: s.Component, Reason: s.Reason, Object: s.Object()}
			emit(apply.Event{Type: apply.EventStepStarted, Step: &info, Message: s.Reason})
			if s.Action != planfile.ActionWait {
				change := &apply.ChangeInfo{Operation: "update", Object: info.Object,
					Diff: "--- live\n+++ plan\n@@ -1,3 +1,3 @@\n spec:\n-  version: 4.4.3\n+  version: 4.4.4\n"}
				if rc := remedyChange(p, s); rc != nil {
					change = rc
				}
				emit(apply.Event{Type: apply.EventDiff, Step: &info, Change: change, Message: "update " + info.Object})
				options := []apply.Decision{apply.Abort, apply.Proceed, apply.Skip}
				if s.Action == planfile.ActionDisableCVO || s.Action == planfile.ActionRestoreCVO || s.Action == planfile.ActionRevert {
					options = []apply.Decision{apply.Abort, apply.Proceed}
				}
				switch decide(apply.Request{Kind: apply.RequestStep, Step: info, Message: "update " + info.Object + " (" + s.Reason + ")", Change: change, Options: options}) {
				case apply.Skip:
					res.StepsSkipped++
					emit(apply.Event{Type: apply.EventSkipped, Step: &info, Message: "skipped by the user"})
					continue
				case apply.Abort:
					revertOnStop()
					finish(apply.OutcomeAborted, "aborted by the user before step "+s.ID, s.ID)
					return
				}
				if s.Action == planfile.ActionDisableCVO {
					disabled = true
					emit(apply.Event{Type: apply.EventCVO, Message: "scaling the cluster-version operator to 0", CVO: &apply.CVOInfo{State: apply.CVOScalingDown, OriginalReplicas: &one}})
					emit(apply.Event{Type: apply.EventCVO, Message: "the cluster-version operator is disabled", CVO: &apply.CVOInfo{State: apply.CVODisabled, OriginalReplicas: &one}})
				}
				if s.Action == planfile.ActionRestoreCVO {
					disabled = false
					emit(apply.Event{Type: apply.EventCVO, Message: "scaled the cluster-version operator back to 1", CVO: &apply.CVOInfo{State: apply.CVORestoring, Replicas: 1, OriginalReplicas: &one}})
				}
				applied := apply.ChangeInfo{Operation: "update", Object: info.Object, Result: "updated"}
				if s.Change != nil || s.CSR != nil {
					applied = *change
					applied.Result = map[planfile.Action]string{planfile.ActionRevert: "reverted", planfile.ActionApproveCSR: "approved"}[s.Action]
					if applied.Result == "" {
						applied.Result = "patched"
					}
				}
				if s.RevertedBy != "" {
					outstanding = append(outstanding, s)
				}
				if s.Reverts != "" {
					outstanding = slices.DeleteFunc(outstanding, func(o *planfile.Step) bool { return o.ID == s.Reverts })
				}
				emit(apply.Event{Type: apply.EventApplied, Step: &info, Change: &applied, Message: applied.Result + " " + info.Object})
			}
			if g := s.Gate; g != nil {
				gi := &apply.GateInfo{Kind: g.Kind, Subject: string(g.Kind), Description: g.Description, TimeoutSeconds: 1800}
				gi.Message, gi.Pending, gi.ElapsedSeconds = "2 of 3 masters at revision 8", []string{"master-2: revision 7, want 8"}, 65
				emit(apply.Event{Type: apply.EventWaiting, Step: &info, Gate: gi, Message: gi.Message})
				if s.ID == f.blockGate {
					<-ctx.Done()
					revertOnStop()
					finish(apply.OutcomeAborted, "interrupted: context canceled", s.ID)
					return
				}
				if s.ID == f.failGate {
					emit(apply.Event{Type: apply.EventGateFailed, Step: &info, Gate: gi, Error: "timed out after 30m", Message: "timed out after 30m"})
					switch decide(apply.Request{Kind: apply.RequestGate, Step: info, Message: "timed out after 30m", Gate: gi, Options: []apply.Decision{apply.Abort, apply.Retry, apply.Skip}}) {
					case apply.Abort:
						revertOnStop()
						finish(apply.OutcomeGateFailed, "step "+s.ID+": timed out after 30m", s.ID)
						return
					case apply.Skip:
						emit(apply.Event{Type: apply.EventSkipped, Step: &info, Gate: gi, Message: "gate skipped by the user"})
					}
				}
				passed := *gi
				passed.Met, passed.Pending, passed.Message = true, nil, "all masters at revision 8"
				emit(apply.Event{Type: apply.EventGatePassed, Step: &info, Gate: &passed, Message: passed.Message})
				if s.Action == planfile.ActionRestoreCVO {
					emit(apply.Event{Type: apply.EventCVO, Step: &info, Message: "the cluster-version operator is running again", CVO: &apply.CVOInfo{State: apply.CVORunning, Replicas: 1, OriginalReplicas: &one}})
				}
			}
			res.StepsDone++
			emit(apply.Event{Type: apply.EventStepDone, Step: &info, Message: "done"})
		}
		finish(apply.OutcomeCompleted, fmt.Sprintf("plan applied: %d steps done, %d skipped; target %s", res.StepsDone, res.StepsSkipped, p.Target.Version), "")
	}()
	return ch
}

// driver runs a model as the program would: commands run in goroutines and their
// messages come back to Update on the test's goroutine. Tests wait for a state
// (until), never for a time: an engine read that blocks while the engine waits
// for the user simply stays pending until the answer.
type driver struct {
	t    testing.TB
	m    *Model
	msgs chan tea.Msg
}

func newDriver(t testing.TB, m *Model) *driver {
	d := &driver{t: t, m: m, msgs: make(chan tea.Msg, 64)}
	t.Cleanup(func() { m.Close() })
	return d
}

func (d *driver) run(cmds ...tea.Cmd) {
	for _, c := range cmds {
		if c == nil {
			continue
		}
		go func() { d.msgs <- c() }()
	}
}

// press sends a key and starts the commands it returned.
func (d *driver) press(keys ...string) *driver {
	for _, k := range keys {
		d.run(send(d.m, tuitest.Key(k))...)
	}
	return d
}

// until processes messages until cond holds (checked before each one).
func (d *driver) until(what string, cond func() bool) {
	d.t.Helper()
	for !cond() {
		select {
		case msg := <-d.msgs:
			switch msg := msg.(type) {
			case nil:
			case tea.BatchMsg:
				d.run(msg...)
			default:
				d.run(send(d.m, msg)...)
			}
		case <-time.After(time.Minute):
			d.t.Fatalf("waiting for %s: nothing happened for a minute\n%s", what, d.m.View())
		}
	}
}

// answer answers the open dialog with key k and waits until it is closed.
func (d *driver) answer(k string) {
	d.t.Helper()
	d.press(k)
	d.until("the dialog to close", func() bool { return d.m.dialog == nil })
}

// asked waits until the engine asks about step id.
func (d *driver) asked(id string) {
	d.t.Helper()
	d.until("a question about "+id, func() bool { r := d.m.state.Request; return r != nil && r.Step.ID == id })
}

// finished waits until the run ended and its channel is closed.
func (d *driver) finished() {
	d.t.Helper()
	d.until("the end of the run", func() bool { return d.m.run != nil && d.m.run.done })
}

// Preview records the request as a dry run of one step and returns the change the
// fake engine would prepare.
func (f *fakeRunner) Preview(_ context.Context, p *planfile.Plan, stepID string) (*apply.ChangeInfo, error) {
	f.record(apply.Options{DryRun: true, FromStep: stepID, UntilStep: stepID})
	for i := range p.Steps {
		if s := &p.Steps[i]; s.ID == stepID && (s.Change != nil || s.CSR != nil) {
			// The real Preview returns the operation, the object and the field
			// lines; a revert has no journaled pre-image to restore yet.
			if s.Action == planfile.ActionRevert {
				return &apply.ChangeInfo{Operation: "unchanged", Object: s.Object(), DryRun: true}, nil
			}
			c := remedyChange(p, s)
			return &apply.ChangeInfo{Operation: c.Operation, Object: c.Object, Diff: c.Diff, DryRun: true}, nil
		}
		if p.Steps[i].ID == stepID {
			return &apply.ChangeInfo{Operation: "update", Object: p.Steps[i].Object(), DryRun: true,
				Diff: "--- live\n+++ plan\n@@ -1,3 +1,3 @@\n spec:\n-  version: 4.4.3\n+  version: 4.4.4\n"}, nil
		}
	}
	return nil, fmt.Errorf("the plan has no step %q", stepID)
}

// remedyChange is the change the fake engine prepares for a remediation step,
// shaped as the real one's: the fields that change from their live value (the
// snapshot's, here) to the new one, the pre-image, the pairing.
func remedyChange(p *planfile.Plan, s *planfile.Step) *apply.ChangeInfo {
	switch {
	case s.Action == planfile.ActionRevert:
		if t := p.StepByID(s.Reverts); t != nil {
			c := revertChange(t)
			c.Reverts, c.RevertedBy = t.ID, ""
			return c
		}
	case s.CSR != nil:
		return &apply.ChangeInfo{Operation: "approve", Object: s.Object(), Remedy: s.Remedy, VouchedBy: s.CSR.VouchedBy,
			Diff: "status.conditions: + Approved (" + s.CSR.VouchedBy + ")\n"}
	case s.Change != nil:
		c := &apply.ChangeInfo{Operation: "patch", Object: s.Object(), Remedy: s.Remedy, RevertedBy: s.RevertedBy, PreImage: map[string]json.RawMessage{}}
		for i, f := range common.ChangeFields(s.Change) {
			k := journal.FieldKey(s.Change.Fields[i])
			c.PreImage[k] = rawValue(f.Before)
			if f.Before != f.After {
				c.Fields = append(c.Fields, apply.FieldChange{Path: k, From: rawValue(f.Before), To: rawValue(f.After)})
				c.Diff += k + ": " + f.Before + " -> " + f.After + "\n"
			}
		}
		return c
	}
	return nil
}

// revertChange is the change that writes a temporary change's pre-image back.
func revertChange(t *planfile.Step) *apply.ChangeInfo {
	c := &apply.ChangeInfo{Operation: "revert", Object: t.Object(), Remedy: t.Remedy, Reverts: t.ID, PreImage: map[string]json.RawMessage{}}
	for i, f := range common.ChangeFields(t.Change) {
		k := journal.FieldKey(t.Change.Fields[i])
		c.PreImage[k] = rawValue(f.Before)
		if f.Before != f.After {
			c.Fields = append(c.Fields, apply.FieldChange{Path: k, From: rawValue(f.After), To: rawValue(f.Before)})
			c.Diff += k + ": " + f.After + " -> " + f.Before + "\n"
		}
	}
	return c
}

func rawValue(text string) json.RawMessage {
	if text == "(absent)" {
		return json.RawMessage("null")
	}
	return json.RawMessage(text)
}
