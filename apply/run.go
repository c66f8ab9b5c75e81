package apply

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/openshift-recover/recover/internal/nextcmd"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift-recover/recover/apply/gate"
	"github.com/openshift-recover/recover/apply/internal/retry"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/apply/lock"
	"github.com/openshift-recover/recover/apply/resource"
	"github.com/openshift-recover/recover/plan/planfile"
)

// run is one execution of a plan.
type run struct {
	e *Engine
	// p is the plan as run: for a staged plan, every stage's steps in
	// plan.RunOrder (runPlan); orig is the plan as given.
	p    *planfile.Plan
	orig *planfile.Plan
	opts Options
	// stageOf is each step's stage in a staged plan (nil without stages);
	// stage is the stage running.
	stageOf map[string]int
	stage   int
	ch      chan<- Event

	runID   string
	holder  string
	applier *resource.Applier
	cv      *configv1.ClusterVersion
	store   journal.Store // where the journal is kept; nil for a dry run
	j       *journal.Writer
	state   *journal.State // the resumed journal's state; nil for a new run
	lock    *lock.Lock
	backup  *journal.Backup

	cvoOriginal *int32
	cvoDisabled bool
	done        int
	skipped     int
	stoppedAt   string
	untilHit    bool
	// reverted and notReverted are the temporary changes revert-on-stop undid,
	// or could not.
	reverted, notReverted []RevertInfo
	// kept are the pool pauses a run stopped by --until-stage leaves in
	// place for the later stages ("MachineConfigPool worker (step ID)").
	kept []string
	// revertedByOther: the reverted changes were reverted by the run that took
	// the lock over (its journal says so), not by this one.
	revertedByOther bool
	// now is the journal as read again after the lock was lost (journalNow).
	now     *journal.State
	nowRead bool
}

func newRun(e *Engine, p *planfile.Plan, opts Options, ch chan<- Event) *run {
	if opts.Decider == nil {
		opts.Decider = AutoDecider{}
	}
	if opts.Heartbeat == 0 {
		opts.Heartbeat = 15 * time.Second
	}
	if opts.Holder == "" {
		opts.Holder = DefaultHolder()
	}
	r := &run{e: e, p: p, orig: p, opts: opts, ch: ch, runID: newRunID(), holder: opts.Holder, store: opts.Journal}
	r.p, r.stageOf = runPlan(p)
	if r.store == nil && opts.JournalPath != "" {
		r.store = journal.NewFileStore(opts.JournalPath)
	}
	return r
}

func (r *run) emit(ev Event) {
	if r.ch == nil {
		return
	}
	if ev.Time.IsZero() {
		ev.Time = time.Now().UTC()
	}
	r.ch <- ev
}

func (r *run) warn(format string, args ...any) {
	r.emit(Event{Type: EventWarning, Message: fmt.Sprintf(format, args...)})
}

func (r *run) execute(ctx context.Context) *Result {
	res := &Result{StepsTotal: len(r.p.Steps), DryRun: r.opts.DryRun}
	err := r.main(ctx)
	r.finish(ctx, res, err)
	return res
}

// main runs preflight, takes the lock, opens the journal and runs the steps.
func (r *run) main(ctx context.Context) error {
	r.emit(Event{Type: EventRunStarted, Message: fmt.Sprintf("applying plan, %s %s (%d steps)", targetText(r.p), r.p.Target.Image, len(r.p.Steps)), Run: &RunInfo{
		RunID: r.runID, PlanPath: r.opts.PlanPath, PlanDigest: r.opts.PlanDigest, TargetVersion: r.p.Target.Version, TargetImage: r.p.Target.Image,
		Steps: len(r.p.Steps), Journal: r.eventJournal(), DryRun: r.opts.DryRun, Resume: r.opts.Resume, Server: r.e.server, Mode: r.p.Mode,
		Goal: r.orig.Goal, Stages: len(r.orig.Stages),
	}})
	if err := planfile.Validate(r.orig); err != nil {
		r.emit(Event{Type: EventPreflight, Preflight: &PreflightCheck{Name: "plan", Message: err.Error()}})
		return &Error{Outcome: OutcomeBadInput, Err: err}
	}
	from, until, err := r.stepRange()
	if err != nil {
		return err
	}
	if !r.opts.DryRun && r.store == nil {
		return fail(OutcomeBadInput, "a journal path is required (--journal FILE)")
	}
	if r.opts.Resume && !r.opts.DryRun {
		w, j, err := journal.OpenIn(r.store)
		if err != nil {
			if errors.Is(err, journal.ErrInUse) {
				return &Error{Outcome: OutcomeLocked, Err: err}
			}
			return &Error{Outcome: OutcomeBadInput, Err: err}
		}
		r.j = w
		if r.opts.PlanDigest != "" && j.Header.Plan.Digest != r.opts.PlanDigest {
			return fail(OutcomeBadInput, "journal %s was written for plan %s (digest %s), not for this plan (digest %s); resume with the same plan file", r.store.Location(), j.Header.Plan.Path, j.Header.Plan.Digest, r.opts.PlanDigest)
		}
		r.state = j.State()
		r.cvoOriginal = r.state.CVO.OriginalReplicas
		r.cvoDisabled = r.state.CVO.Disabled
		r.backup = r.state.Backup
		if j.TornTail {
			r.warn("the journal's last line was torn (the previous run died while writing it); it was cut off: nothing had been changed on its behalf")
		}
	}
	if err := r.preflight(ctx); err != nil {
		return err
	}
	if !r.opts.DryRun {
		if err := r.acquireLock(ctx); err != nil {
			return err
		}
		runCtx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		go func() {
			select {
			case <-r.lock.Lost():
				cancel(r.lock.Err())
			case <-runCtx.Done():
			}
		}()
		ctx = runCtx
		if err := r.openJournal(); err != nil {
			return err
		}
	}
	err = r.steps(ctx, from, until)
	// Whatever ended the run, no temporary change stays in place behind it.
	r.revertOnStop(ctx, err)
	return err
}

// stepRange resolves --from-step and --until-step to indexes.
func (r *run) stepRange() (int, int, error) {
	from, until := 0, len(r.p.Steps)-1
	find := func(id, flag string) (int, error) {
		for i := range r.p.Steps {
			if r.p.Steps[i].ID == id {
				return i, nil
			}
		}
		return 0, fail(OutcomeBadInput, "%s %q: the plan has no such step (see 'recover journal' or the plan's steps)", flag, id)
	}
	var err error
	if r.opts.FromStep != "" {
		if from, err = find(r.opts.FromStep, "--from-step"); err != nil {
			return 0, 0, err
		}
	}
	if r.opts.UntilStep != "" {
		if until, err = find(r.opts.UntilStep, "--until-step"); err != nil {
			return 0, 0, err
		}
	}
	if r.opts.UntilStage != 0 {
		if until, err = r.untilStage(); err != nil {
			return 0, 0, err
		}
	}
	if from > until {
		return 0, 0, fail(OutcomeBadInput, "--from-step %s comes after the step the run stops after (%s)", r.opts.FromStep, r.p.Steps[until].ID)
	}
	return from, until, nil
}

func (r *run) acquireLock(ctx context.Context) error {
	opts := lock.Options{Holder: r.holder, RunID: r.runID, Journal: r.journalLocation(), Duration: r.opts.LeaseDuration, BreakLock: r.opts.BreakLock, WaitExpiry: r.opts.LockWait}
	if r.state != nil && r.j.Exclusive() {
		// Holding the journal's file lock proves the run that wrote it is dead.
		// A journal in the cluster proves nothing: its lease must expire.
		opts.TakeOverRunID = r.state.RunID
	}
	opts.Waiting = func(held *lock.HeldError, until time.Time) {
		who := fmt.Sprintf("%q", held.Holder)
		if held.RunID != "" {
			who += " (run " + held.RunID + ")"
		}
		r.emit(Event{Type: EventLock, Message: fmt.Sprintf("waiting for lease %s/%s, held by %s, last renewed %s: it is taken when it expires unrenewed, at most %s from now (%s)",
			lock.Namespace, lock.Name, who, held.Renewed.UTC().Format(time.RFC3339), time.Until(until).Round(time.Second), until.UTC().Format(time.RFC3339))})
	}
	// Acquire recognises a lease an earlier attempt of this run took, so a
	// transient failure (even one after the server acted) is safe to retry.
	var lk *lock.Lock
	err := retry.Do(ctx, func() (err error) {
		lk, err = lock.Acquire(ctx, r.e.kube, opts)
		return err
	})
	if err != nil {
		var held *lock.HeldError
		if errors.As(err, &held) {
			return &Error{Outcome: OutcomeLocked, Err: err}
		}
		return &Error{Outcome: OutcomeError, Err: err}
	}
	r.lock = lk
	msg := fmt.Sprintf("holding lease %s/%s as %q", lock.Namespace, lock.Name, r.holder)
	if lk.TookOver != "" {
		msg += fmt.Sprintf(" (taken over from %q)", lk.TookOver)
	}
	r.emit(Event{Type: EventLock, Message: msg, Lock: &LockInfo{Namespace: lock.Namespace, Name: lock.Name, Holder: r.holder, Since: lk.Since(), TookOver: lk.TookOver}})
	return nil
}

func (r *run) openJournal() error {
	if r.j != nil {
		rec := journal.Record{Type: journal.TypeResume, Resume: &journal.Resume{RunID: r.runID, Holder: r.holder, InFlight: r.state.InFlight}}
		if err := r.j.Write(rec); err != nil {
			if errors.Is(err, journal.ErrFenced) {
				// The run before this one wrote the journal after it was read
				// here (its lease had expired, it was still writing): this run's
				// view is stale. Nothing was changed; the next run reads it afresh.
				return &Error{Outcome: OutcomeLocked, Err: fmt.Errorf("%w (it changed after this run read it); nothing was changed: run again", err)}
			}
			return &Error{Outcome: OutcomeError, Err: err}
		}
		if r.state.InFlight != "" {
			r.warn("resuming: step %s was in flight; it is re-checked against the cluster, not trusted from the journal", r.state.InFlight)
		}
		if r.backup != nil && r.backup != r.state.Backup {
			return r.record(journal.Record{Type: journal.TypeBackup, Backup: r.backup})
		}
		return nil
	}
	planPath := r.opts.PlanPath
	if !r.opts.PlanNotAFile {
		planPath = absPath(planPath)
	}
	h := journal.Header{
		RunID: r.runID,
		Plan: journal.PlanRef{Path: planPath, Digest: r.opts.PlanDigest, TargetVersion: r.p.Target.Version,
			TargetImage: r.p.Target.Image, Steps: len(r.p.Steps), Mode: r.p.Mode, Outcome: r.p.Outcome},
		Server: r.e.server, Holder: r.holder, Generator: r.opts.Generator,
		StartVersion: startVersion(r.orig), Goal: r.orig.Goal, Stages: stageRefs(r.orig, r.stageOf),
	}
	if r.cv != nil {
		h.ClusterID = string(r.cv.Spec.ClusterID)
	}
	w, err := journal.CreateIn(r.store, h)
	if err != nil {
		return fail(OutcomeBadInput, "%v; to continue a stopped run use '%s'", err, r.store.ResumeCommand(h))
	}
	r.j = w
	return r.record(journal.Record{Type: journal.TypeBackup, Backup: r.backup})
}

// record writes a journal record; without a journal (dry run) it does nothing.
func (r *run) record(rec journal.Record) error {
	if r.j == nil {
		return nil
	}
	if err := r.j.Write(rec); err != nil {
		if errors.Is(err, journal.ErrFenced) {
			// Another run owns the journal now: as when the lock is lost.
			return &Error{Outcome: OutcomeLostLock, Err: fmt.Errorf("%w; nothing further was changed", err)}
		}
		return &Error{Outcome: OutcomeError, Err: fmt.Errorf("%w; nothing further was changed", err)}
	}
	return nil
}

// eventJournal names the journal in the run-started event: the path as given,
// or the store's location.
func (r *run) eventJournal() string {
	if r.opts.Journal != nil {
		return r.opts.Journal.Location()
	}
	return r.opts.JournalPath
}

// journalLocation names the journal in the lock and in messages: a file's
// absolute path, or its store's location.
func (r *run) journalLocation() string {
	if r.opts.Journal != nil {
		return r.opts.Journal.Location()
	}
	return absPath(r.opts.JournalPath)
}

func (r *run) stepInfo(i int) StepInfo {
	s := &r.p.Steps[i]
	info := StepInfo{ID: s.ID, Index: i + 1, Total: len(r.p.Steps), Action: s.Action, Component: s.Component, Reason: s.Reason, Object: s.Object(),
		Remedy: s.Remedy, RevertedBy: s.RevertedBy, Reverts: s.Reverts, Stage: r.stageAt(i)}
	if s.Spec().Undoes {
		if t, err := r.revertTarget(s); err == nil {
			info.Object = t.Object()
		}
	}
	return info
}

// steps runs the selected steps in order.
func (r *run) steps(ctx context.Context, from, until int) error {
	for i := range r.p.Steps {
		s := &r.p.Steps[i]
		info := r.stepInfo(i)
		if st := r.journaled(s.ID); st.Complete() {
			r.emit(Event{Type: EventSkipped, Step: &info, Message: fmt.Sprintf("already %s in the journal", st.Status)})
			continue
		}
		if i < from {
			if err := r.skipStep(info, "before --from-step "+r.opts.FromStep); err != nil {
				return err
			}
			continue
		}
		if i > until {
			r.untilHit = true
			r.stoppedAt = r.p.Steps[until].ID
			return r.landUntilStage()
		}
		if err := ctx.Err(); err != nil {
			r.stoppedAt = s.ID
			return r.ctxError(ctx)
		}
		if err := r.enterStage(r.stageAt(i)); err != nil {
			r.stoppedAt = s.ID
			return err
		}
		if err := r.step(ctx, s, info); err != nil {
			r.stoppedAt = s.ID
			return err
		}
	}
	if !r.opts.DryRun {
		return r.landStage(r.stage)
	}
	return nil
}

func (r *run) journaled(id string) *journal.StepState {
	if r.state == nil {
		return nil
	}
	return r.state.Step(id)
}

func (r *run) skipStep(info StepInfo, why string) error {
	if err := r.record(journal.Record{Type: journal.TypeStep, Step: info.ID, Action: string(info.Action), Status: journal.StepSkipped, Message: why}); err != nil {
		return err
	}
	r.skipped++
	r.emit(Event{Type: EventSkipped, Step: &info, Message: why})
	return nil
}

// ctxError turns a cancelled context into the run's outcome.
func (r *run) ctxError(ctx context.Context) error {
	cause := context.Cause(ctx)
	if errors.Is(cause, lock.ErrLost) {
		return &Error{Outcome: OutcomeLostLock, Err: cause}
	}
	return &Error{Outcome: OutcomeAborted, Err: fmt.Errorf("interrupted: %w", ctx.Err())}
}

var errSkip = errors.New("skipped")

// step runs one step: its mutation (with retries the Decider asks for), then its
// gates, then journals it done.
func (r *run) step(ctx context.Context, s *planfile.Step, info StepInfo) error {
	r.emit(Event{Type: EventStepStarted, Step: &info, Message: s.Reason})
	for attempt := 0; ; attempt++ {
		err := r.act(ctx, s, info)
		if err == nil {
			break
		}
		if errors.Is(err, errSkip) {
			return r.skipStep(info, "skipped by the user")
		}
		if ctx.Err() != nil {
			return r.ctxError(ctx)
		}
		var e *Error
		if errors.As(err, &e) {
			return err
		}
		_ = r.record(journal.Record{Type: journal.TypeOutcome, Step: s.ID, Action: string(s.Action), Outcome: &journal.Outcome{Result: "failed", Error: err.Error()}})
		// A transient API failure is retried by preparing the step again from the
		// live object, as a resume would: a change the server made before the
		// answer was lost is found done, so create-only and delete stay at most once.
		// A conflict (the object changed under a patch carrying its
		// resourceVersion) is prepared again the same way.
		if attempt < retry.Retries && (retry.Transient(err) || isConflict(err)) {
			r.warn("step %s: %v; retrying (%d of %d), prepared again from the live state", s.ID, err, attempt+1, retry.Retries)
			r.e.mapper.Reset() // discovery caches a failed fetch
			if !retry.Sleep(ctx, retry.Backoff(attempt)) {
				return r.ctxError(ctx)
			}
			continue
		}
		var refused *RefusedError
		what, outcome := "step failed: ", OutcomeStepFailed
		if errors.As(err, &refused) {
			what, outcome = "", OutcomeStepRefused
		}
		r.emit(Event{Type: EventError, Step: &info, Error: err.Error(), Message: what + err.Error()})
		d, derr := r.decide(ctx, Request{Kind: RequestError, Step: info, Message: err.Error(), Options: r.failureOptions(s)})
		switch {
		case derr != nil:
			return derr
		case d == Retry:
			continue
		case d == Skip:
			return r.skipStep(info, "skipped by the user after: "+err.Error())
		}
		if refused != nil {
			return &Error{Outcome: outcome, Err: err}
		}
		return &Error{Outcome: outcome, Err: fmt.Errorf("step %s failed: %w", s.ID, err)}
	}
	for _, g := range r.stepGates(s) {
		if err := r.waitGate(ctx, s, info, g); err != nil {
			if errors.Is(err, errSkip) {
				break
			}
			return err
		}
	}
	if r.opts.DryRun {
		r.done++
		r.emit(Event{Type: EventStepDone, Step: &info, Message: "dry run: checked"})
		return nil
	}
	if err := r.record(journal.Record{Type: journal.TypeStep, Step: s.ID, Action: string(s.Action), Status: journal.StepDone}); err != nil {
		return err
	}
	r.done++
	r.emit(Event{Type: EventStepDone, Step: &info, Message: "done"})
	return nil
}

// failureOptions are the decisions offered after a failure: CVO steps cannot be
// skipped (skipping them would leave the CVO fighting the plan, or off).
func (r *run) failureOptions(s *planfile.Step) []Decision {
	if s.Spec().NoSkip {
		// Skipping a revert would leave its temporary change in place.
		return []Decision{Abort, Retry}
	}
	return []Decision{Abort, Retry, Skip}
}

func (r *run) decide(ctx context.Context, req Request) (Decision, error) {
	r.emit(Event{Type: EventAwaitingConfirmation, Step: &req.Step, Message: req.Message, Request: &req})
	d, err := r.opts.Decider.Decide(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return Abort, r.ctxError(ctx)
		}
		return Abort, &Error{Outcome: OutcomeAborted, Err: fmt.Errorf("no decision for step %s: %w", req.Step.ID, err)}
	}
	if !req.Allows(d) {
		return Abort, nil
	}
	return d, nil
}

// stepGates are the gates a step waits for: its plan gate, and for the CVO steps
// the CVO's own gate even when the plan leaves it out.
func (r *run) stepGates(s *planfile.Step) []*planfile.Gate { return stepGates(r.p, s) }

// stepGates are the gates a step of p waits for: its own, and the one its
// action implies (disable-cvo, restore-cvo), a restored gate pointed at the
// object the reverted step changed.
func stepGates(p *planfile.Plan, s *planfile.Step) []*planfile.Gate {
	var gates []*planfile.Gate
	if kind := s.Spec().ImpliedGate; kind != "" && (s.Gate == nil || s.Gate.Kind != kind) {
		gates = append(gates, &planfile.Gate{Kind: kind})
	}
	if s.Gate != nil {
		g := s.Gate
		if g.Kind == planfile.GateRestored && g.Object == nil {
			// A restored gate watches the object the reverted step changed.
			if t, err := revertTarget(p, s); err == nil {
				cp := *g
				cp.Object = &t.Change.Object
				g = &cp
			}
		}
		gates = append(gates, g)
	}
	return gates
}

// gateOptions are the options a gate needs besides its plan form: a restored
// gate's journaled pre-image.
func (r *run) gateOptions(s *planfile.Step, g *planfile.Gate) gate.WaitOptions {
	var o gate.WaitOptions
	if g.Kind != planfile.GateRestored {
		return o
	}
	target := s
	if s.Spec().Undoes {
		t, err := r.revertTarget(s)
		if err != nil {
			return o
		}
		target = t
	}
	if target.Change == nil {
		return o
	}
	o.Restore = &gate.Restore{Step: target.ID, Fields: target.Change.Fields}
	if js := r.journaledStep(target.ID); js != nil {
		o.Restore.PreImage = js.PreImage
	}
	return o
}

// waitGate waits for one gate; on failure the Decider says retry, skip or abort.
func (r *run) waitGate(ctx context.Context, s *planfile.Step, info StepInfo, g *planfile.Gate) error {
	timeout, explicit, hard := timeoutFor(g, r.opts.Timeouts)
	gi := func(p gate.Progress, elapsed time.Duration) *GateInfo {
		return &GateInfo{Kind: g.Kind, Subject: gate.Subject(g), Description: gate.Describe(g), Progress: p, ElapsedSeconds: elapsed.Seconds(), TimeoutSeconds: timeout.Seconds()}
	}
	gopts := r.gateOptions(s, g)
	if r.opts.DryRun {
		p, err := r.e.gates.CheckWith(ctx, g, gopts)
		if err != nil {
			p = gate.Progress{Message: err.Error()}
		}
		r.emit(Event{Type: EventSkipped, Step: &info, Gate: gi(p, 0), Message: "dry run: not waiting for " + gate.Describe(g) + "; now: " + p.Message})
		return nil
	}
	heartbeat := r.opts.Heartbeat
	if heartbeat < 0 {
		heartbeat = 0
	}
	warnedSlow := false
	for {
		start := time.Now()
		gopts.Timeout, gopts.HardTimeout, gopts.Heartbeat = 0, hard, heartbeat
		if explicit {
			gopts.Timeout = timeout
		}
		gopts.OnProgress = func(p gate.Progress, elapsed time.Duration) {
			if p.Met {
				return
			}
			r.emit(Event{Type: EventWaiting, Step: &info, Gate: gi(p, elapsed), Message: p.Message})
			if p.Slow && !warnedSlow {
				// The CVO says "longer than expected" here and keeps
				// waiting; so does recover, and the admin may stop it.
				warnedSlow = true
				r.emit(Event{Type: EventWarning, Step: &info, Gate: gi(p, elapsed),
					Message: fmt.Sprintf("step %s: %s is slow: %s; still waiting, as the CVO would (stop with Ctrl-C: the run resumes with recover apply --resume)", s.ID, gate.Describe(g), p.Message)})
			}
		}
		p, err := r.e.gates.Wait(ctx, g, gopts)
		elapsed := time.Since(start)
		if err == nil {
			if err := r.record(journal.Record{Type: journal.TypeGate, Step: s.ID, Action: string(s.Action), Gate: &journal.GateResult{Kind: string(g.Kind), Result: "passed", Message: p.Message, Duration: elapsed}}); err != nil {
				return err
			}
			r.emit(Event{Type: EventGatePassed, Step: &info, Gate: gi(p, elapsed), Message: p.Message})
			if s.Spec().RestartsCVO && g.Kind == planfile.GateCVORunning {
				r.emit(Event{Type: EventCVO, Step: &info, Message: "the cluster-version operator is running again", CVO: &CVOInfo{State: CVORunning, Replicas: ptrValue(r.cvoOriginal, 1), OriginalReplicas: r.cvoOriginal}})
			}
			return nil
		}
		if ctx.Err() != nil {
			return r.ctxError(ctx)
		}
		result := "failed"
		var te *gate.TimeoutError
		if errors.As(err, &te) {
			result = "timeout"
		}
		if p.Message == "" {
			p.Message = err.Error()
		}
		if rerr := r.record(journal.Record{Type: journal.TypeGate, Step: s.ID, Action: string(s.Action), Gate: &journal.GateResult{Kind: string(g.Kind), Result: result, Message: err.Error(), Duration: elapsed}}); rerr != nil {
			return rerr
		}
		r.emit(Event{Type: EventGateFailed, Step: &info, Gate: gi(p, elapsed), Error: err.Error(), Message: err.Error()})
		d, derr := r.decide(ctx, Request{Kind: RequestGate, Step: info, Message: err.Error(), Gate: gi(p, elapsed), Options: r.failureOptions(s)})
		switch {
		case derr != nil:
			return derr
		case d == Retry:
			continue
		case d == Skip:
			if err := r.record(journal.Record{Type: journal.TypeGate, Step: s.ID, Action: string(s.Action), Gate: &journal.GateResult{Kind: string(g.Kind), Result: "skipped", Message: "skipped by the user"}}); err != nil {
				return err
			}
			r.emit(Event{Type: EventSkipped, Step: &info, Gate: gi(p, elapsed), Message: "gate skipped by the user: " + gate.Describe(g)})
			return nil
		}
		return &Error{Outcome: OutcomeGateFailed, Err: fmt.Errorf("step %s: %w", s.ID, err)}
	}
}

func ptrValue(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}

// finish records how the run ended, releases the lock and fills the result.
func (r *run) finish(ctx context.Context, res *Result, err error) {
	res.StepsDone, res.StepsSkipped = r.done, r.skipped
	res.StoppedAt = r.stoppedAt
	res.CVODisabled, res.CVOReplicas = r.cvoDisabled, r.cvoOriginal
	cvoRestoredByOther := false
	if res.CVODisabled && (OutcomeOf(err) == OutcomeLostLock || errors.Is(context.Cause(ctx), lock.ErrLost)) {
		// The run that took over may have restored the CVO since.
		if now := r.journalNow(); now != nil && !now.CVO.Disabled {
			res.CVODisabled, cvoRestoredByOther = false, true
		}
	}
	if r.j != nil {
		res.Journal = r.j.Path()
	}
	switch {
	case err == nil && r.untilHit && r.opts.UntilStage > 0:
		res.Outcome = OutcomeStopped
		res.Message = r.untilStageMessage()
	case err == nil && r.untilHit:
		res.Outcome = OutcomeStopped
		res.Message = fmt.Sprintf("stopped after step %s as asked (--until-step): %d steps done", r.stoppedAt, r.done)
	case err == nil && r.opts.DryRun:
		res.Outcome = OutcomeCompleted
		res.Message = fmt.Sprintf("dry run: %d steps checked with server-side dry runs; nothing was changed", r.done)
	case err == nil:
		res.Outcome = OutcomeCompleted
		res.Message = fmt.Sprintf("plan applied: %d steps done, %d skipped; %s", r.done, r.skipped, targetText(r.p))
	default:
		if ctx.Err() != nil && OutcomeOf(err) == OutcomeError {
			err = r.ctxError(ctx)
		}
		var pe *PreflightError
		if errors.As(err, &pe) {
			err = &Error{Outcome: OutcomeRefused, Err: err}
		}
		res.Outcome = OutcomeOf(err)
		var e *Error
		if !errors.As(err, &e) {
			err = &Error{Outcome: res.Outcome, Err: err}
		}
		res.Err = err
		res.Error = err.Error()
		res.Message = err.Error()
	}
	res.Reverted, res.NotReverted = r.reverted, r.notReverted
	res.Stage = r.stage
	if sum := r.revertSummary(); sum != "" {
		res.Message += "; " + sum
		if res.Err != nil {
			inner := res.Err
			var e *Error
			if errors.As(res.Err, &e) {
				inner = e.Err
			}
			res.Err = &Error{Outcome: res.Outcome, Err: fmt.Errorf("%w; %s", inner, sum)}
			res.Error = res.Err.Error()
		}
	}
	if res.CVODisabled || cvoRestoredByOther {
		note := fmt.Sprintf("; the cluster-version operator is left DISABLED (scaled to 0; it ran %d replica(s) before)", ptrValue(r.cvoOriginal, 1))
		if cvoRestoredByOther {
			note = "; the run that took over restored the cluster-version operator"
		}
		res.Message += note
		if res.Err != nil {
			// The one-line error a CLI prints must say so too.
			inner := res.Err
			var e *Error
			if errors.As(res.Err, &e) {
				inner = e.Err
			}
			res.Err = &Error{Outcome: res.Outcome, Err: fmt.Errorf("%w%s", inner, note)}
			res.Error = res.Err.Error()
		}
	}
	if r.j != nil {
		if res.Outcome == OutcomeCompleted {
			_ = r.j.Write(journal.Record{Type: journal.TypeFinish, Message: res.Message})
		} else {
			_ = r.j.Write(journal.Record{Type: journal.TypeStop, Step: r.stoppedAt, Stop: &journal.Stop{Reason: string(res.Outcome), Message: res.Message, CVODisabled: res.CVODisabled, CVOReplicas: r.cvoOriginal}})
			res.Holds = r.stageHolds()
		}
		_ = r.j.Close()
	}
	if r.lock != nil {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		if err := r.lock.Release(rctx); err != nil {
			r.warn("%v; it expires by itself", err)
		}
		cancel()
	}
	res.Next = r.nextCommands(res)
	if res.Err != nil && len(res.Next) > 0 {
		var cmds []string
		for _, n := range res.Next {
			c, _, _ := strings.Cut(n, "   #")
			cmds = append(cmds, c)
		}
		inner := res.Err
		var e *Error
		if errors.As(res.Err, &e) {
			inner = e.Err
		}
		res.Err = &Error{Outcome: res.Outcome, Err: fmt.Errorf("%w; next: %s", inner, strings.Join(cmds, ", or "))}
		res.Error = res.Err.Error()
	}
}

// nextCommands are the exact commands to resume or to restore the CVO.
func (r *run) nextCommands(res *Result) []string {
	var next []string
	// A journal the run that took over finished needs no resume.
	if r.j != nil && res.Outcome.Resumable() && (r.now == nil || !r.now.Finished) {
		next = append(next, r.j.ResumeCommand()+"   # continue the plan where it stopped")
	}
	for _, ri := range res.NotReverted {
		if ri.Command != "" {
			next = append(next, ri.Command+"   # restore the temporary change of step "+ri.Step+" by hand")
		}
	}
	if res.CVODisabled {
		next = append(next, nextcmd.RestoreCVO(r.cvoOriginal)+"   # give control back to the CVO without finishing the plan")
	}
	return next
}

// targetText names what a plan moves the cluster to: its target release, or
// no release for a remediation-only plan.
func targetText(p *planfile.Plan) string {
	if p.Mode == planfile.ModeRemediation || p.Target.Version == "" {
		return "remediation only, no new release"
	}
	if len(p.Stages) > 0 {
		return fmt.Sprintf("goal %s in %d stages (%s first)", p.Goal, len(p.Stages), p.Target.Version)
	}
	return "target " + p.Target.Version
}

func absPath(p string) string {
	if p == "" {
		return ""
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
