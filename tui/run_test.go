package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/internal/testing/golden"
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/tui/state"
)

func liveSession(t testing.TB, f *fakeRunner) *Session {
	return &Session{
		Source:   "live https://api.incident.example:6443",
		Snapshot: incidentSnapshot(t),
		Plan:     incidentPlan(),
		PlanPath: "plan.json", PlanDigest: "sha256:0123",
		Engine:  f,
		Options: apply.Options{JournalPath: "run.journal"},
	}
}

// goldenAt renders the model at each size and compares it with the golden file.
func goldenAt(t *testing.T, m *Model, name string) {
	t.Helper()
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%s/%dx%d", name, sz[0], sz[1]), func(t *testing.T) {
			send(m, teaSize(sz[0], sz[1]))
			v := m.View()
			checkFrame(t, v, sz[0], sz[1])
			golden.Assert(t, golden.Path(t), []byte(v))
		})
	}
	send(m, teaSize(80, 24))
}

// TestRunConfirmSkipAbortResume drives one run through every decision: the start
// dialog (which acknowledges the backup), y on a CVO step that cannot be skipped,
// s, y, then q on a question (the dialog says the CVO stays disabled), and a
// resume of the journal the abort left.
func TestRunConfirmSkipAbortResume(t *testing.T) {
	f := &fakeRunner{}
	m := newTestModel(t, liveSession(t, f), 80, 24)
	d := newDriver(t, m)
	p := m.session.Plan

	d.press("4")
	if !m.c.Keys.Start.Enabled() || m.c.Keys.Confirm.Enabled() {
		t.Fatalf("before a run: start enabled %v (want true), confirm enabled %v (want false)", m.c.Keys.Start.Enabled(), m.c.Keys.Confirm.Enabled())
	}
	d.press("a")
	if m.dialog == nil || !strings.Contains(flat(m.dialog.View()), "acknowledges that a current etcd backup exists") {
		t.Fatalf("a did not open the start dialog asking for the backup:\n%s", m.View())
	}
	goldenAt(t, m, "start-dialog")
	d.press("enter") // enter never confirms
	if m.dialog == nil || len(f.options()) != 0 {
		t.Fatal("enter answered the start dialog")
	}
	d.press("y")
	d.asked(p.Steps[0].ID)
	if opts := f.options()[0]; !opts.IHaveABackup || opts.PlanPath != "plan.json" || opts.PlanDigest != "sha256:0123" || opts.JournalPath != "run.journal" || opts.Resume {
		t.Fatalf("engine options: %+v", opts)
	}
	if m.c.Keys.Skip.Enabled() {
		t.Fatal("skip is offered on disable-cvo, which the engine does not allow")
	}
	d.press("s") // not an option: ignored
	if r := m.state.Request; r == nil || r.Step.ID != p.Steps[0].ID {
		t.Fatal("s answered a question that does not allow skip")
	}
	d.press("y")
	d.asked(p.Steps[1].ID)
	if m.state.CVO.State != state.CVODisabled {
		t.Fatalf("header CVO state after disable-cvo: %s", m.state.CVO.Text())
	}
	d.press("s")
	d.asked(p.Steps[2].ID)
	if st := m.state.Status(p.Steps[1].ID); st != state.StepSkipped {
		t.Fatalf("skipped step has status %q", st)
	}
	goldenAt(t, m, "awaiting-confirmation")
	d.press("y")
	d.asked(p.Steps[3].ID)
	if st := m.state.Status(p.Steps[2].ID); st != state.StepDone {
		t.Fatalf("confirmed step has status %q", st)
	}

	d.press("q")
	if m.dialog == nil || !strings.Contains(flat(m.dialog.View()), "stays DISABLED") {
		t.Fatalf("q did not ask again, explaining the CVO stays disabled:\n%s", m.View())
	}
	goldenAt(t, m, "abort-dialog")
	d.answer("n")
	if m.dialog != nil || m.state.Request == nil {
		t.Fatal("n did not keep the run waiting for a decision")
	}
	d.press("q")
	d.answer("y")
	d.finished()
	want := []apply.Decision{apply.Proceed, apply.Skip, apply.Proceed, apply.Abort}
	if got := f.answered(); !slices.Equal(got, want) {
		t.Fatalf("answers sent to the engine: %v, want %v", got, want)
	}
	res := m.Result()
	if res == nil || res.Outcome != apply.OutcomeAborted || m.state.Phase != state.Finished {
		t.Fatalf("result %+v, phase %v", res, m.state.Phase)
	}
	view := m.View()
	for _, next := range res.Next {
		if !strings.Contains(flat(view), flat(next)[:40]) {
			t.Errorf("the result does not show the engine's next command %q:\n%s", next, view)
		}
	}
	goldenAt(t, m, "aborted")

	// Resume: the journal the abort left.
	if !m.c.Keys.Start.Enabled() || m.c.Keys.Start.Help().Desc != "resume run" {
		t.Fatalf("after a resumable abort the start key is %v %q", m.c.Keys.Start.Enabled(), m.c.Keys.Start.Help().Desc)
	}
	d.press("a")
	if m.dialog == nil || strings.Contains(flat(m.dialog.View()), "etcd backup exists") {
		t.Fatalf("the resume dialog asks for a backup again (the journal holds it):\n%s", m.View())
	}
	d.press("y")
	d.asked(p.Steps[0].ID)
	if opts := f.options()[1]; !opts.Resume || opts.JournalPath != "run.journal" {
		t.Fatalf("resume options: %+v", opts)
	}
}

// TestGateFailureOffersRetry: a failed gate asks retry, skip or abort, and r
// sends retry.
func TestGateFailureOffersRetry(t *testing.T) {
	f := &fakeRunner{}
	s := liveSession(t, f)
	s.Options.IHaveABackup = true
	f.failGate = s.Plan.Steps[2].ID
	m := newTestModel(t, s, 80, 24)
	d := newDriver(t, m)
	d.press("4", "a")
	if strings.Contains(flat(m.dialog.View()), "etcd backup exists") {
		t.Fatal("the start dialog asks for a backup that --i-have-a-backup acknowledged")
	}
	d.press("y")
	for _, st := range s.Plan.Steps[:3] {
		d.asked(st.ID)
		d.press("y")
	}
	d.until("the gate question", func() bool { r := m.state.Request; return r != nil && r.Kind == apply.RequestGate })
	if !m.c.Keys.Retry.Enabled() || m.c.Keys.Confirm.Enabled() {
		t.Fatal("a gate question must offer retry and not confirm")
	}
	goldenAt(t, m, "gate-failed")
	d.press("r")
	d.asked(s.Plan.Steps[3].ID)
	if got := f.answered(); got[len(got)-1] != apply.Retry {
		t.Fatalf("answers %v: want retry last", got)
	}
}

// TestAbortWhileWaitingOnAGate: with no question open, abort cancels the run's
// context, which the engine answers with an aborted, resumable result.
func TestAbortWhileWaitingOnAGate(t *testing.T) {
	f := &fakeRunner{}
	s := liveSession(t, f)
	s.Options.IHaveABackup = true
	f.blockGate = s.Plan.Steps[0].ID
	m := newTestModel(t, s, 80, 24)
	d := newDriver(t, m)
	d.press("4", "a", "y")
	d.asked(s.Plan.Steps[0].ID)
	d.press("y")
	d.until("the gate wait", func() bool { return m.state.Busy() })
	goldenAt(t, m, "waiting")
	d.press("ctrl+c")
	if m.dialog == nil {
		t.Fatal("ctrl+c during a run did not ask before aborting")
	}
	d.answer("y")
	d.finished()
	if r := m.Result(); r == nil || r.Outcome != apply.OutcomeAborted || !r.CVODisabled {
		t.Fatalf("result after cancelling: %+v", r)
	}
	if m.state.CVO.State != state.CVODisabled {
		t.Fatalf("header after the abort: %s", m.state.CVO.Text())
	}
}

// flat folds whitespace (and a dialog's borders) so text can be found across
// wrapped lines.
func flat(s string) string {
	s = strings.NewReplacer("║", " ", "│", " ").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// TestRefusedRunCanStartAgain: a run that preflight refused journaled nothing, so
// the Apply screen offers a new start (not a resume).
func TestRefusedRunCanStartAgain(t *testing.T) {
	f := &fakeRunner{refuse: true}
	s := liveSession(t, f)
	s.Options.IHaveABackup = true
	m := newTestModel(t, s, 80, 24)
	d := newDriver(t, m)
	d.press("4", "a")
	d.answer("y")
	d.finished()
	if r := m.Result(); r == nil || r.Outcome != apply.OutcomeRefused || !strings.Contains(m.View(), "stopped: refused") {
		t.Fatalf("result %+v\n%s", r, m.View())
	}
	if !m.c.Keys.Start.Enabled() || m.c.Keys.Start.Help().Desc != "start apply" {
		t.Fatalf("after a refused run: start %v %q", m.c.Keys.Start.Enabled(), m.c.Keys.Start.Help().Desc)
	}
	d.press("a")
	d.answer("y")
	d.asked(s.Plan.Steps[0].ID)
	if o := f.options()[1]; o.Resume || o.JournalPath != "run.journal" {
		t.Fatalf("second start: %+v", o)
	}
}

// TestAbortWhileSavingThePlan: aborting while the computed plan is being saved
// keeps the engine from starting at all.
func TestAbortWhileSavingThePlan(t *testing.T) {
	f := &fakeRunner{}
	s := liveSession(t, f)
	s.PlanPath, s.PlanDigest = "", ""
	s.Options.IHaveABackup = true
	release := make(chan struct{})
	s.SavePlan = func(p *planfile.Plan) (string, string, *planfile.Plan, error) {
		<-release
		return "recover-plan.json", "sha256:feed", p, nil
	}
	m := newTestModel(t, s, 80, 24)
	d := newDriver(t, m)
	d.press("4", "a")
	d.answer("y")
	if m.state.Phase != state.Starting {
		t.Fatalf("phase %v, want starting", m.state.Phase)
	}
	d.press("q")
	if m.dialog == nil {
		t.Fatal("q while starting did not ask")
	}
	d.answer("y")
	close(release)
	for saved := false; !saved; {
		msg := <-d.msgs
		_, saved = msg.(savedMsg)
		d.run(send(m, msg)...)
	}
	if len(f.options()) != 0 {
		t.Fatal("the engine started after the start was cancelled")
	}
	if !strings.Contains(m.View(), "start cancelled") {
		t.Fatalf("the screen does not say the start was cancelled:\n%s", m.View())
	}
}

// TestQuestionNeverCut: however long a step's reason (the planner's are several
// sentences), the question and its keys stay on an 80×24 screen.
func TestQuestionNeverCut(t *testing.T) {
	f := &fakeRunner{}
	s := liveSession(t, f)
	s.Options.IHaveABackup = true
	s.Plan.Steps[0].Reason = strings.Repeat("Stop the cluster-version operator so it cannot push manifests behind the plan's back. ", 12)
	m := newTestModel(t, s, 80, 24)
	d := newDriver(t, m)
	d.press("4", "a")
	d.answer("y")
	d.asked(s.Plan.Steps[0].ID)
	v := m.View()
	checkFrame(t, v, 80, 24)
	if !strings.Contains(v, "DECIDE") || !strings.Contains(v, "y apply · q abort") || !strings.Contains(v, "…") {
		t.Fatalf("the question is cut, or the reason is not:\n%s", v)
	}
	goldenAt(t, m, "long-reason")
}
