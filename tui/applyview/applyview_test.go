package applyview

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/key"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/internal/testing/golden"
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/tui/common"
	"github.com/openshift-recover/recover/tui/internal/tuitest"
	"github.com/openshift-recover/recover/tui/keymap"
	"github.com/openshift-recover/recover/tui/state"
	"github.com/openshift-recover/recover/tui/styles"
)

var t0 = time.Date(2020, 5, 25, 9, 0, 0, 0, time.UTC)

func newScreen() (*Model, *state.Run) {
	c := &common.Common{Styles: styles.Plain(), Keys: keymap.Default(), Now: func() time.Time { return t0.Add(5 * time.Second) }}
	run := state.New(nil)
	m := New(c, run)
	m.Info = Info{Target: "4.4.4", Steps: 2, Journal: "run.journal", Backup: "acknowledged"}
	m.SetSize(80, 20)
	return m, run
}

// feed applies events the way the session does: the run state first, then the screen.
func feed(m *Model, run *state.Run, evs ...apply.Event) {
	for _, ev := range evs {
		run.Apply(ev)
		m.HandleEvent(ev)
	}
}

func TestViewFollowsTheRunState(t *testing.T) {
	step := &apply.StepInfo{ID: "001-disable-cvo", Index: 1, Total: 2, Action: planfile.ActionDisableCVO, Reason: "hold the CVO while steps apply"}
	req := &apply.Request{Kind: apply.RequestStep, Step: *step, Options: []apply.Decision{apply.Proceed, apply.Abort}}
	gate := &apply.GateInfo{Kind: planfile.GateClusterOperator, Subject: "etcd", Description: "etcd reports 4.4.4", TimeoutSeconds: 1800}
	gate.Message = "1 of 3 members at 4.4.4"
	for _, tc := range []struct {
		name string
		evs  []apply.Event
		want []string
		not  []string
	}{
		{"idle", nil, []string{"not started", "Press a to start applying", "y apply, s skip, q abort", "r retry"}, nil},
		{"asking", []apply.Event{
			{Type: apply.EventRunStarted, Time: t0, Message: "run started"},
			{Type: apply.EventStepStarted, Time: t0, Step: step},
			{Type: apply.EventAwaitingConfirmation, Time: t0, Step: step, Request: req},
		}, []string{"WAITING FOR YOUR DECISION", "STEP 1/2", "y apply · q abort"}, []string{"s skip"}},
		{"waiting on a gate", []apply.Event{
			{Type: apply.EventRunStarted, Time: t0},
			{Type: apply.EventStepStarted, Time: t0, Step: step},
			{Type: apply.EventWaiting, Time: t0, Step: step, Gate: gate},
		}, []string{"waiting for a gate", "GATE"}, []string{"RUN running"}},
		{"gate passed", []apply.Event{
			{Type: apply.EventRunStarted, Time: t0},
			{Type: apply.EventStepStarted, Time: t0, Step: step},
			{Type: apply.EventWaiting, Time: t0, Step: step, Gate: gate},
			{Type: apply.EventGatePassed, Time: t0, Step: step, Gate: gate},
		}, []string{"RUN running", "GATE ✓"}, []string{"waiting for a gate"}},
		{"finished", []apply.Event{
			{Type: apply.EventRunStarted, Time: t0},
			{Type: apply.EventDone, Time: t0, Result: &apply.Result{Outcome: apply.OutcomeAborted, Message: "aborted", Journal: "run.journal", StepsTotal: 2}},
		}, []string{"stopped: aborted", "press a to resume here, or q to quit"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, run := newScreen()
			feed(m, run, tc.evs...)
			v := m.View()
			tuitest.Shows(t, v, tc.want, tc.not)
			golden.Assert(t, golden.Path(t), []byte(v))
		})
	}
}

// TestProseFollowsTheKeymap: rebinding a key changes what the screen tells the
// user to press.
func TestProseFollowsTheKeymap(t *testing.T) {
	m, _ := newScreen()
	m.Keys.Confirm = key.NewBinding(key.WithKeys("Y"), key.WithHelp("Y", "apply step"))
	m.Keys.Start = key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "start apply"))
	v := m.View()
	if !strings.Contains(v, "Press S to start") || !strings.Contains(v, "Y apply") {
		t.Fatalf("rebound keys not named:\n%s", v)
	}
}

func TestAnsweredLogsAndClears(t *testing.T) {
	m, run := newScreen()
	step := &apply.StepInfo{ID: "002", Index: 2, Total: 2}
	req := &apply.Request{Kind: apply.RequestStep, Step: *step, Options: []apply.Decision{apply.Proceed, apply.Skip}}
	feed(m, run, apply.Event{Type: apply.EventRunStarted, Time: t0}, apply.Event{Type: apply.EventAwaitingConfirmation, Step: step, Request: req})
	run.Answered(apply.Skip)
	m.Answered(req, apply.Skip)
	if last := m.Log()[len(m.Log())-1]; last != "[2/2] you answered: skip" {
		t.Fatalf("last log line %q", last)
	}
	if strings.Contains(m.View(), "WAITING FOR YOUR DECISION") || run.Status("002") != state.StepSkipped {
		t.Fatal("the answered question is still shown, or the step is not skipped")
	}
}
