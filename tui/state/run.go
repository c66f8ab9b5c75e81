package state

import (
	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/inspect"
)

// Phase is where the session's run is.
type Phase int

// The phases.
const (
	// Idle: no run yet (or a start failed before the engine ran).
	Idle Phase = iota
	// Starting: the start was confirmed; the plan is being saved or the engine started.
	Starting
	// Running: the engine runs (and may be asking).
	Running
	// Finished: the engine ended; Result is set.
	Finished
)

// String names the phase.
func (p Phase) String() string {
	switch p {
	case Starting:
		return "starting"
	case Running:
		return "running"
	case Finished:
		return "finished"
	}
	return "idle"
}

// Run is the session's run state. The zero value is an idle session with the
// CVO's state unknown; New starts one from a snapshot.
type Run struct {
	// Phase is the run's phase.
	Phase Phase
	// CVO is the CVO's state.
	CVO CVO
	// Request is the engine's open question, nil when none.
	Request *apply.Request
	// Result is the last run's result, nil until one ended.
	Result *apply.Result
	// StartErr is why the last start failed before the engine ran ("" when it did not).
	StartErr string
	// WaitingOnGate is set while the engine waits for a step's gate: from its
	// first waiting report until the gate passes or fails, the step ends or the
	// run does.
	WaitingOnGate bool

	steps map[string]StepStatus
}

// New returns an idle run state with the CVO as the snapshot found it.
func New(s *inspect.Snapshot) *Run {
	return &Run{CVO: CVOFromSnapshot(s)}
}

// Status returns a step's status (StepPending when nothing was reported).
func (r *Run) Status(id string) StepStatus { return r.steps[id] }

// Statuses counts the steps by status, over the given step IDs.
func (r *Run) Statuses(ids []string) map[StepStatus]int {
	n := map[StepStatus]int{}
	for _, id := range ids {
		n[r.steps[id]]++
	}
	return n
}

func (r *Run) setStatus(id string, s StepStatus) {
	if r.steps == nil {
		r.steps = map[string]StepStatus{}
	}
	r.steps[id] = s
}

// ResetSteps forgets every step's status: a new plan is shown.
func (r *Run) ResetSteps() { r.steps = nil }

// Running reports whether a run is starting or running.
func (r *Run) Running() bool { return r.Phase == Starting || r.Phase == Running }

// Busy reports whether something animates: a start, or a gate being waited on
// while no question is open.
func (r *Run) Busy() bool {
	return r.Phase == Starting || (r.Phase == Running && r.WaitingOnGate && r.Request == nil)
}

// FromJournal records what a journal to resume says: the CVO's state and the
// steps already done, skipped, failed, in flight or reverted.
func (r *Run) FromJournal(j *journal.State) {
	if j == nil {
		return
	}
	switch {
	case j.CVO.Disabled:
		r.CVO = CVO{State: CVODisabled, Original: j.CVO.OriginalReplicas}
	case j.CVO.Restored:
		r.CVO = CVO{State: CVORestored, Replicas: deref(j.CVO.OriginalReplicas, 1)}
	}
	for _, st := range j.Steps {
		switch st.Status {
		case journal.StepDone:
			r.setStatus(st.ID, StepDone)
		case journal.StepSkipped:
			r.setStatus(st.ID, StepSkipped)
		case journal.StepFailed:
			r.setStatus(st.ID, StepFailed)
		case journal.StepInFlight, journal.StepApplied:
			r.setStatus(st.ID, StepApplied)
		case journal.StepReverted:
			r.setStatus(st.ID, StepReverted)
		}
	}
}

func deref(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}

// SetStarting records that the user confirmed a start.
func (r *Run) SetStarting() { r.Phase, r.StartErr = Starting, "" }

// SetStartError records a start that failed before the engine ran.
func (r *Run) SetStartError(err error) {
	r.Phase, r.StartErr, r.Result = Idle, err.Error(), nil
}

// Answered records the user's answer to the open question: the question
// closes, and a skipped step is marked skipped at once.
func (r *Run) Answered(d apply.Decision) {
	if r.Request != nil && d == apply.Skip {
		r.setStatus(r.Request.Step.ID, StepSkipped)
	}
	r.Request = nil
}

// Apply follows one engine event.
func (r *Run) Apply(ev apply.Event) {
	if ev.CVO != nil {
		r.CVO = cvoFromEvent(ev.CVO, r.CVO)
	}
	switch ev.Type {
	case apply.EventRunStarted:
		r.Phase, r.Result, r.Request, r.StartErr = Running, nil, nil, ""
	case apply.EventAwaitingConfirmation:
		r.Request = ev.Request
	case apply.EventDone:
		r.Phase, r.Result, r.Request = Finished, ev.Result, nil
		if ev.Result != nil && ev.Result.CVODisabled {
			r.CVO = CVO{State: CVODisabled, Original: ev.Result.CVOReplicas}
		}
	}
	r.WaitingOnGate = waitingOnGate(ev, r.WaitingOnGate)
	if ev.Step != nil {
		if st, ok := statusFor(ev, r.steps[ev.Step.ID]); ok {
			r.setStatus(ev.Step.ID, st)
		}
	}
}

// waitingOnGate is whether the engine waits for a gate after ev, given whether
// it did before.
func waitingOnGate(ev apply.Event, cur bool) bool {
	switch ev.Type {
	case apply.EventWaiting:
		return true
	case apply.EventGatePassed, apply.EventGateFailed, apply.EventSkipped, apply.EventStepStarted, apply.EventStepDone,
		apply.EventError, apply.EventReverting, apply.EventRunStarted, apply.EventDone:
		return false
	}
	return cur
}

// statusFor maps an event to its step's new status; ok is false when the event
// does not change it. A step the journal already records as done or skipped keeps
// that status (a resumed run reports it as skipped).
func statusFor(ev apply.Event, cur StepStatus) (StepStatus, bool) {
	switch ev.Type {
	case apply.EventStepStarted:
		return StepRunning, true
	case apply.EventAwaitingConfirmation:
		return StepAwaiting, true
	case apply.EventApplied:
		return StepApplied, true
	case apply.EventWaiting:
		return StepWaiting, true
	case apply.EventGateFailed, apply.EventError:
		return StepFailed, true
	case apply.EventSkipped:
		if ev.Gate != nil || cur == StepDone || cur == StepSkipped {
			return cur, false
		}
		return StepSkipped, true
	case apply.EventStepDone:
		return StepDone, true
	case apply.EventReverted:
		if ev.Error == "" {
			return StepReverted, true
		}
	}
	return cur, false
}

// Reloaded follows a re-read snapshot. The CVO's state follows it, except that
// what this session's run knows (it disabled or restored the CVO) is kept while
// the snapshot agrees, and nothing changes while a run is going.
func (r *Run) Reloaded(s *inspect.Snapshot) {
	if r.Running() {
		return
	}
	found, cur := CVOFromSnapshot(s), r.CVO
	switch {
	case found.State == CVOFoundDisabled && (cur.State == CVODisabled || cur.State == CVOScalingDown):
	case found.State == CVORunning && (cur.State == CVORestored || cur.State == CVORestoring):
		r.CVO = CVO{State: CVORestored, Replicas: found.Replicas, Original: cur.Original}
	default:
		r.CVO = found
	}
}
