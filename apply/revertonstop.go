package apply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/openshift-recover/recover/apply/internal/retry"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/apply/lock"
	"github.com/openshift-recover/recover/internal/nextcmd"
	"github.com/openshift-recover/recover/plan/planfile"
)

// DefaultRevertTimeout bounds the reverts a stopping run makes (Options.RevertTimeout).
const DefaultRevertTimeout = 2 * time.Minute

// revertOnStop undoes every temporary change of this journal that is still
// outstanding, newest first, when the run ends before the plan's revert steps
// ran (a gate failed or timed out, the user aborted, a step was refused or
// failed, Ctrl-C or SIGTERM, --until-step): a relaxed PodDisruptionBudget is
// never left relaxed. A run --until-stage stopped keeps the pool pauses the
// later stages rely on (keptForLaterStage). Each revert is journaled like a
// change (an intent with RevertOf, its outcome) and then a reverted record, so
// a resume makes the change again before the waits that need it. Not when the lock was lost: another run
// owns the cluster now, and a resume's own revert step restores it.
func (r *run) revertOnStop(ctx context.Context, runErr error) {
	if r.j == nil || r.opts.DryRun {
		return
	}
	outstanding := r.j.State().Outstanding()
	if len(outstanding) == 0 {
		return
	}
	if errors.Is(context.Cause(ctx), lock.ErrLost) || OutcomeOf(runErr) == OutcomeLostLock {
		// What the run that took over did is in the journal as it stands now:
		// a change it already reverted is not claimed to be in place (issue 34:
		// the last message said so, and suggested --resume, which --in-cluster
		// refuses).
		if now := r.journalNow(); now != nil {
			var still []*journal.StepState
			for _, st := range outstanding {
				if cur := now.Step(st.ID); cur == nil || slices.ContainsFunc(now.Outstanding(), func(o *journal.StepState) bool { return o.ID == st.ID }) {
					still = append(still, st)
				} else {
					r.reverted = append(r.reverted, r.revertInfo(st, ""))
					r.revertedByOther = true
				}
			}
			outstanding = still
		}
		if len(outstanding) == 0 {
			return
		}
		r.warn("the lock was lost: %d temporary change(s) stay in place for the run that holds the cluster now, which restores them at their revert steps", len(outstanding))
		for _, st := range outstanding {
			ri := r.revertInfo(st, "")
			ri.Error = fmt.Sprintf("the lock was lost; the run that holds the cluster now restores it at step %s", orDash(ri.RevertedBy))
			r.notReverted = append(r.notReverted, ri)
		}
		return
	}
	timeout := r.opts.RevertTimeout
	if timeout <= 0 {
		timeout = DefaultRevertTimeout
	}
	// The run's context may be cancelled (Ctrl-C, SIGTERM): the reverts get
	// their own, bounded, and stop if the lock is lost meanwhile.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	if r.lock != nil {
		go func() {
			select {
			case <-r.lock.Lost():
				cancel()
			case <-rctx.Done():
			}
		}()
	}
	for _, st := range outstanding {
		if s := r.planStep(st.ID); s != nil && r.keptForLaterStage(s) {
			// The run stopped where it was asked to, at a stage boundary:
			// the pause is the later stages' (EUS), not a leftover.
			r.kept = append(r.kept, fmt.Sprintf("MachineConfigPool %s (step %s, unpaused by step %s)", s.Pool, st.ID, r.restoredBy(s)))
			continue
		}
		if s := r.planStep(st.ID); s != nil && s.Action == planfile.ActionPausePool && r.cvoDisabled {
			// A pool paused inside a push the CVO is disabled for stays
			// paused: the push orders its unpause after the control plane
			// is verified, and the CVO, which would order it otherwise, is
			// not running. A resume continues the push.
			r.warn("pool %s stays paused (step %s): the run stops with the CVO disabled, inside the push that paused it; resume, or unpause it by hand once the control plane runs the target: %s", s.Pool, st.ID, nextcmd.PausePool(s.Pool, false))
			// Not only a warning: the result, its one-line error and its
			// next commands name the pool left paused and how to unpause
			// it, as for any change not reverted (a script reads those).
			r.notReverted = append(r.notReverted, r.revertInfo(st, "kept paused: the run stops with the CVO disabled, inside the push that paused it; resume, or unpause it once the control plane runs the target"))
			continue
		}
		if err := r.revertOne(rctx, st); err != nil {
			var je *journalError
			if errors.As(err, &je) {
				// Without the journal nothing more may change.
				for _, rest := range outstanding {
					if !r.revertedStep(rest.ID) {
						r.notReverted = append(r.notReverted, r.revertInfo(rest, err.Error()))
					}
				}
				return
			}
			r.notReverted = append(r.notReverted, r.revertInfo(st, err.Error()))
		}
	}
}

// journalError is a journal write that failed during a revert.
type journalError struct{ err error }

func (e *journalError) Error() string { return e.err.Error() }
func (e *journalError) Unwrap() error { return e.err }

func (r *run) revertedStep(id string) bool {
	for _, ri := range append(append([]RevertInfo(nil), r.reverted...), r.notReverted...) {
		if ri.Step == id {
			return true
		}
	}
	return false
}

func (r *run) revertInfo(st *journal.StepState, why string) RevertInfo {
	ri := RevertInfo{Step: st.ID, PreImage: st.PreImage, Error: why}
	if st.Object != nil {
		ri.Object = st.Object.String()
		ri.Command = journal.RestoreCommand(*st.Object, st.PreImage)
	}
	if s := r.planStep(st.ID); s != nil {
		ri.RevertedBy = r.restoredBy(s)
	}
	return ri
}

// restoredBy is the plan's step that restores what s changes: its revert
// step, or for a pool pause the plan's next unpause of the pool.
func (r *run) restoredBy(s *planfile.Step) string {
	if s.RevertedBy != "" || s.Action != planfile.ActionPausePool {
		return s.RevertedBy
	}
	after := false
	for i := range r.p.Steps {
		t := &r.p.Steps[i]
		if t.ID == s.ID {
			after = true
		} else if after && t.Action == planfile.ActionUnpausePool && t.Pool == s.Pool {
			return t.ID
		}
	}
	return ""
}

func (r *run) planStep(id string) *planfile.Step {
	for i := range r.p.Steps {
		if r.p.Steps[i].ID == id {
			return &r.p.Steps[i]
		}
	}
	return nil
}

// revertOne writes one outstanding change's pre-image back.
func (r *run) revertOne(ctx context.Context, st *journal.StepState) error {
	target := r.planStep(st.ID)
	if target == nil || (target.Change == nil && target.Action != planfile.ActionPausePool) {
		return fmt.Errorf("step %s is not a change of this plan", st.ID)
	}
	var info StepInfo
	for i := range r.p.Steps {
		if r.p.Steps[i].ID == st.ID {
			info = r.stepInfo(i)
		}
	}
	// A retried revert is one revert: one reverting event (from the attempt
	// that first prepared it), then one reverted.
	announced := false
	for attempt := 0; ; attempt++ {
		err := r.revertAttempt(ctx, target, st, info, &announced)
		if err == nil {
			return nil
		}
		var je *journalError
		if errors.As(err, &je) || ctx.Err() != nil || attempt >= retry.Retries || !(retry.Transient(err) || isConflict(err)) {
			r.emit(Event{Type: EventReverted, Step: &info, Error: err.Error(), Message: "could not revert the temporary change of step " + st.ID + ": " + err.Error()})
			return err
		}
		r.warn("reverting step %s: %v; retrying (%d of %d), prepared again from the live state", st.ID, err, attempt+1, retry.Retries)
		if !retry.Sleep(ctx, retry.Backoff(attempt)) {
			return ctx.Err()
		}
	}
}

// revertAttempt prepares the revert from the live object and makes it; it
// emits the reverting event unless an earlier attempt did (*announced).
func (r *run) revertAttempt(ctx context.Context, target *planfile.Step, st *journal.StepState, info StepInfo, announced *bool) error {
	var m *mutation
	var err error
	if target.Action == planfile.ActionPausePool {
		m, err = r.prepareUnpauseOnStop(ctx, target)
	} else {
		m, err = r.prepareRestore(ctx, target, target, st, true)
	}
	if err != nil {
		return err
	}
	change := m.changeInfo(false)
	change.Reverts, change.RevertedBy = target.ID, ""
	why := "the run stopped before step " + orDash(r.restoredBy(target)) + ", which restores it"
	if !*announced {
		*announced = true
		r.emit(Event{Type: EventReverting, Step: &info, Change: change, Message: fmt.Sprintf("reverting the temporary change of step %s: %s back to its pre-image (%s)", target.ID, m.object, why)})
	}
	ri := r.revertInfo(st, "")
	applied := *change
	if m.noop {
		applied.Result = "unchanged"
	} else {
		intent := m.intent
		if err := r.record(journal.Record{Type: journal.TypeIntent, Step: target.ID, Action: string(target.Action), Intent: &intent}); err != nil {
			return &journalError{err}
		}
		out, err := m.commit(ctx)
		if err != nil {
			_ = r.record(journal.Record{Type: journal.TypeOutcome, Step: target.ID, Action: string(target.Action), Outcome: &journal.Outcome{Result: "failed", Error: err.Error()}})
			return err
		}
		if err := r.record(journal.Record{Type: journal.TypeOutcome, Step: target.ID, Action: string(target.Action), Outcome: out}); err != nil {
			return &journalError{err}
		}
		applied.Result, applied.ResourceVersion = out.Result, out.ResourceVersion
	}
	msg := fmt.Sprintf("%s restored to its pre-image (%s) because %s; a resume makes the change again", m.object, preImageText(st.PreImage), why)
	if m.noop {
		msg = fmt.Sprintf("%s was at its pre-image already (%s); %s", m.object, preImageText(st.PreImage), why)
	}
	if err := r.record(journal.Record{Type: journal.TypeReverted, Step: target.ID, Action: string(target.Action), Message: msg}); err != nil {
		return &journalError{err}
	}
	ri.Result, ri.Error, ri.Command = applied.Result, "", ""
	r.reverted = append(r.reverted, ri)
	r.emit(Event{Type: EventReverted, Step: &info, Change: &applied, Message: msg})
	return nil
}

// prepareUnpauseOnStop undoes a pool pause this run made (the EUS pause of a
// staged plan's workers, among others): the pool is unpaused, as
// oran-o2ims and ClusterCurator unpause on failure, so that a stopped run
// never leaves the workers without their updates and the kubelet CA bundle
// (MCO #2802). Only a pause the journal records is undone (Outstanding).
func (r *run) prepareUnpauseOnStop(ctx context.Context, target *planfile.Step) (*mutation, error) {
	m, err := r.preparePaused(ctx, target.Pool, false)
	if err != nil {
		return nil, err
	}
	m.op, m.reverts, m.critical = "revert", target.ID, true
	m.preImage = map[string]json.RawMessage{pausedField: json.RawMessage("false")}
	m.intent.Operation, m.intent.RevertOf = journal.OperationRevert, target.ID
	if m.noop {
		m.op = "unchanged"
		return m, nil
	}
	commit := m.commit
	m.commit = func(ctx context.Context) (*journal.Outcome, error) {
		out, err := commit(ctx)
		if err != nil {
			return nil, err
		}
		out.Result = journal.ResultReverted
		return out, nil
	}
	return m, nil
}

// revertSummary is the part of a stopped run's message about its reverts.
func (r *run) revertSummary() string {
	var parts []string
	if len(r.reverted) > 0 {
		var ss []string
		for _, ri := range r.reverted {
			ss = append(ss, fmt.Sprintf("%s (step %s)", ri.Object, ri.Step))
		}
		who := "reverted"
		if r.revertedByOther {
			who = "the run that took over reverted"
		}
		parts = append(parts, who+" the temporary change(s) to their journaled pre-image: "+strings.Join(ss, ", "))
	}
	for _, ri := range r.notReverted {
		parts = append(parts, fmt.Sprintf("the temporary change of step %s to %s is NOT reverted (%s): restore it by hand with: %s", ri.Step, ri.Object, ri.Error, ri.Command))
	}
	return strings.Join(parts, "; ")
}

// journalNow is the journal as it stands now, read again from its store (after
// the lock was lost, the run that took over has written to it), or nil when it
// cannot be read. It is read once.
func (r *run) journalNow() *journal.State {
	if r.store == nil {
		return nil
	}
	if !r.nowRead {
		r.nowRead = true
		if j, err := journal.LoadFrom(r.store); err == nil {
			r.now = j.State()
		}
	}
	return r.now
}
