package state

import (
	"errors"
	"testing"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/inspect"
)

func i32(v int32) *int32 { return &v }

func step(id string) *apply.StepInfo { return &apply.StepInfo{ID: id, Index: 1, Total: 2} }

func TestCVOFromSnapshot(t *testing.T) {
	for _, tc := range []struct {
		name string
		snap *inspect.Snapshot
		want string
	}{
		{"no snapshot", nil, "unknown"},
		{"not collected", &inspect.Snapshot{}, "unknown"},
		{"default replicas", &inspect.Snapshot{CVO: &inspect.Deployment{}}, "running (1)"},
		{"scaled to 0", &inspect.Snapshot{CVO: &inspect.Deployment{Replicas: i32(0)}}, "found scaled to 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := New(tc.snap).CVO.Text(); got != tc.want {
				t.Fatalf("CVO %q, want %q", got, tc.want)
			}
		})
	}
}

// TestApplyFollowsARun feeds the events of a run and checks the state after each.
func TestApplyFollowsARun(t *testing.T) {
	r := New(&inspect.Snapshot{CVO: &inspect.Deployment{Replicas: i32(1)}})
	req := &apply.Request{Kind: apply.RequestStep, Step: *step("001"), Options: []apply.Decision{apply.Proceed, apply.Skip, apply.Abort}}
	for _, tc := range []struct {
		ev     apply.Event
		phase  Phase
		cvo    string
		status StepStatus
		asking bool
	}{
		{apply.Event{Type: apply.EventRunStarted}, Running, "running (1)", StepPending, false},
		{apply.Event{Type: apply.EventCVO, CVO: &apply.CVOInfo{State: apply.CVOScalingDown, OriginalReplicas: i32(1)}}, Running, "scaling down (recover)", StepPending, false},
		{apply.Event{Type: apply.EventCVO, CVO: &apply.CVOInfo{State: apply.CVODisabled}}, Running, "DISABLED by recover, ran 1 before", StepPending, false},
		{apply.Event{Type: apply.EventStepStarted, Step: step("001")}, Running, "DISABLED by recover, ran 1 before", StepRunning, false},
		{apply.Event{Type: apply.EventAwaitingConfirmation, Step: step("001"), Request: req}, Running, "DISABLED by recover, ran 1 before", StepAwaiting, true},
		{apply.Event{Type: apply.EventApplied, Step: step("001")}, Running, "DISABLED by recover, ran 1 before", StepApplied, true},
		{apply.Event{Type: apply.EventWaiting, Step: step("001"), Gate: &apply.GateInfo{}}, Running, "DISABLED by recover, ran 1 before", StepWaiting, true},
		{apply.Event{Type: apply.EventSkipped, Step: step("001"), Gate: &apply.GateInfo{}}, Running, "DISABLED by recover, ran 1 before", StepWaiting, true},
		{apply.Event{Type: apply.EventStepDone, Step: step("001")}, Running, "DISABLED by recover, ran 1 before", StepDone, true},
		{apply.Event{Type: apply.EventSkipped, Step: step("001")}, Running, "DISABLED by recover, ran 1 before", StepDone, true},
		{apply.Event{Type: apply.EventCVO, CVO: &apply.CVOInfo{State: apply.CVORunning, Replicas: 1}}, Running, "restored (1)", StepDone, true},
		{apply.Event{Type: apply.EventDone, Result: &apply.Result{Outcome: apply.OutcomeCompleted}}, Finished, "restored (1)", StepDone, false},
	} {
		r.Apply(tc.ev)
		if r.Phase != tc.phase || r.CVO.Text() != tc.cvo || r.Status("001") != tc.status || (r.Request != nil) != tc.asking {
			t.Fatalf("after %s: phase %v cvo %q status %q asking %v; want %v %q %q %v",
				tc.ev.Type, r.Phase, r.CVO.Text(), r.Status("001"), r.Request != nil, tc.phase, tc.cvo, tc.status, tc.asking)
		}
	}
	if r.Result == nil || r.Result.Outcome != apply.OutcomeCompleted {
		t.Fatalf("result %+v", r.Result)
	}
}

func TestStatusFor(t *testing.T) {
	for _, tc := range []struct {
		name string
		ev   apply.Event
		cur  StepStatus
		want StepStatus
		ok   bool
	}{
		{"gate failed", apply.Event{Type: apply.EventGateFailed}, StepWaiting, StepFailed, true},
		{"error", apply.Event{Type: apply.EventError}, StepRunning, StepFailed, true},
		{"skipped pending", apply.Event{Type: apply.EventSkipped}, StepPending, StepSkipped, true},
		{"resumed done stays done", apply.Event{Type: apply.EventSkipped}, StepDone, StepDone, false},
		{"gate skip keeps status", apply.Event{Type: apply.EventSkipped, Gate: &apply.GateInfo{}}, StepWaiting, StepWaiting, false},
		{"reverted", apply.Event{Type: apply.EventReverted}, StepDone, StepReverted, true},
		{"revert failed keeps status", apply.Event{Type: apply.EventReverted, Error: "forbidden"}, StepDone, StepDone, false},
		{"warning", apply.Event{Type: apply.EventWarning}, StepRunning, StepRunning, false},
		{"started", apply.Event{Type: apply.EventStepStarted}, StepPending, StepRunning, true},
		{"resumed skip keeps done", apply.Event{Type: apply.EventSkipped, Message: "already done in the journal"}, StepDone, StepDone, false},
		{"user skip", apply.Event{Type: apply.EventSkipped, Message: "skipped by the user"}, StepRunning, StepSkipped, true},
		{"gate skip keeps failed", apply.Event{Type: apply.EventSkipped, Gate: &apply.GateInfo{}}, StepFailed, StepFailed, false},
		{"done after failed", apply.Event{Type: apply.EventStepDone}, StepFailed, StepDone, true},
		{"lock", apply.Event{Type: apply.EventLock}, StepPending, StepPending, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := statusFor(tc.ev, tc.cur)
			if got != tc.want || ok != tc.ok {
				t.Fatalf("statusFor = %q, %v; want %q, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestDoneWithTheCVOStillDisabled(t *testing.T) {
	r := New(nil)
	r.Apply(apply.Event{Type: apply.EventRunStarted})
	r.Apply(apply.Event{Type: apply.EventDone, Result: &apply.Result{Outcome: apply.OutcomeAborted, CVODisabled: true, CVOReplicas: i32(3)}})
	if r.CVO.State != CVODisabled || r.CVO.Text() != "DISABLED by recover, ran 3 before" {
		t.Fatalf("CVO after an abort with the CVO disabled: %q", r.CVO.Text())
	}
}

func TestAnsweredSkipMarksTheStep(t *testing.T) {
	r := New(nil)
	r.Apply(apply.Event{Type: apply.EventRunStarted})
	r.Apply(apply.Event{Type: apply.EventAwaitingConfirmation, Step: step("002"), Request: &apply.Request{Step: *step("002")}})
	r.Answered(apply.Skip)
	if r.Request != nil || r.Status("002") != StepSkipped {
		t.Fatalf("request %v, status %q", r.Request, r.Status("002"))
	}
	r.Answered(apply.Proceed) // no question open: nothing changes
	if r.Status("002") != StepSkipped {
		t.Fatalf("status %q", r.Status("002"))
	}
}

func TestStartError(t *testing.T) {
	r := New(nil)
	r.SetStarting()
	if !r.Running() || !r.Busy() {
		t.Fatal("a confirmed start is running and busy")
	}
	r.SetStartError(errors.New("disk full"))
	if r.Phase != Idle || r.StartErr != "disk full" || r.Running() {
		t.Fatalf("phase %v err %q", r.Phase, r.StartErr)
	}
}

func TestFromJournal(t *testing.T) {
	r := New(&inspect.Snapshot{CVO: &inspect.Deployment{Replicas: i32(0)}})
	r.FromJournal(&journal.State{
		CVO: journal.CVOState{Disabled: true, OriginalReplicas: i32(1)},
		Steps: []*journal.StepState{
			{ID: "001", Status: journal.StepDone}, {ID: "002", Status: journal.StepSkipped},
			{ID: "003", Status: journal.StepInFlight}, {ID: "004", Status: journal.StepReverted},
			{ID: "005", Status: journal.StepFailed},
		},
	})
	want := map[string]StepStatus{"001": StepDone, "002": StepSkipped, "003": StepApplied, "004": StepReverted, "005": StepFailed, "006": StepPending}
	for id, st := range want {
		if got := r.Status(id); got != st {
			t.Errorf("step %s: %q, want %q", id, got, st)
		}
	}
	if r.CVO.Text() != "DISABLED by recover, ran 1 before" {
		t.Fatalf("CVO %q", r.CVO.Text())
	}
}

func TestReloaded(t *testing.T) {
	zero := &inspect.Snapshot{CVO: &inspect.Deployment{Replicas: i32(0)}}
	two := &inspect.Snapshot{CVO: &inspect.Deployment{Replicas: i32(2)}}
	for _, tc := range []struct {
		name string
		cur  CVO
		snap *inspect.Snapshot
		want string
	}{
		{"disabled by recover stays so", CVO{State: CVODisabled, Original: i32(1)}, zero, "DISABLED by recover, ran 1 before"},
		{"restored follows replicas", CVO{State: CVORestored, Replicas: 1}, two, "restored (2)"},
		{"someone scaled it up", CVO{State: CVODisabled}, two, "running (2)"},
		{"found disabled", CVO{State: CVORunning, Replicas: 1}, zero, "found scaled to 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Run{CVO: tc.cur}
			r.Reloaded(tc.snap)
			if got := r.CVO.Text(); got != tc.want {
				t.Fatalf("CVO %q, want %q", got, tc.want)
			}
		})
	}
	r := &Run{Phase: Running, CVO: CVO{State: CVODisabled}}
	r.Reloaded(two)
	if r.CVO.State != CVODisabled {
		t.Fatal("a reload during a run changed the CVO's state")
	}
}

// TestWaitingOnGate: the run state, not the Apply screen, says whether the
// engine waits for a gate, and so whether the session animates.
func TestWaitingOnGate(t *testing.T) {
	gate := &apply.GateInfo{Kind: "ClusterOperator"}
	started := []apply.Event{{Type: apply.EventRunStarted}, {Type: apply.EventStepStarted, Step: step("001")}}
	waiting := append(started[:len(started):len(started)], apply.Event{Type: apply.EventWaiting, Step: step("001"), Gate: gate})
	then := func(evs ...apply.Event) []apply.Event { return append(waiting[:len(waiting):len(waiting)], evs...) }
	failedReq := &apply.Request{Kind: apply.RequestGate, Step: *step("001"), Options: []apply.Decision{apply.Retry, apply.Abort}}
	for _, tc := range []struct {
		name          string
		evs           []apply.Event
		waiting, busy bool
	}{
		{"step started", started, false, false},
		{"waiting", waiting, true, true},
		{"still waiting after a CVO report", then(apply.Event{Type: apply.EventCVO, CVO: &apply.CVOInfo{State: apply.CVODisabled}}), true, true},
		{"still waiting after a second report", then(apply.Event{Type: apply.EventWaiting, Step: step("001"), Gate: gate}), true, true},
		{"passed", then(apply.Event{Type: apply.EventGatePassed, Step: step("001"), Gate: gate}), false, false},
		{"failed and asking", then(apply.Event{Type: apply.EventGateFailed, Step: step("001"), Gate: gate},
			apply.Event{Type: apply.EventAwaitingConfirmation, Step: step("001"), Request: failedReq}), false, false},
		{"skipped by the user", then(apply.Event{Type: apply.EventSkipped, Step: step("001"), Gate: gate}), false, false},
		{"run stopped", then(apply.Event{Type: apply.EventDone, Result: &apply.Result{Outcome: apply.OutcomeAborted}}), false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := New(nil)
			for _, ev := range tc.evs {
				r.Apply(ev)
			}
			if r.WaitingOnGate != tc.waiting || r.Busy() != tc.busy {
				t.Fatalf("waiting %v busy %v, want %v %v", r.WaitingOnGate, r.Busy(), tc.waiting, tc.busy)
			}
		})
	}
}

// TestCVOPredicates: the header's danger and OK colours come from these, one
// state each at most.
func TestCVOPredicates(t *testing.T) {
	for _, tc := range []struct {
		state                 CVOState
		disabled, reconciling bool
	}{
		{CVOUnknown, false, false},
		{CVORunning, false, true},
		{CVOFoundDisabled, true, false},
		{CVOScalingDown, true, false},
		{CVODisabled, true, false},
		{CVORestoring, false, false},
		{CVORestored, false, true},
	} {
		c := CVO{State: tc.state}
		if c.Disabled() != tc.disabled || c.Reconciling() != tc.reconciling {
			t.Errorf("%s: disabled %v reconciling %v, want %v %v", c.Text(), c.Disabled(), c.Reconciling(), tc.disabled, tc.reconciling)
		}
	}
}
