package apply_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/apply/printer"
	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/internal/testing/faultproxy"
	"github.com/openshift-recover/recover/plan/planfile"
)

// assertRevertedOnStop checks a stopped run's report and journal: the budget
// carries its spec from before the relax, the result and its one-line error
// say the change was reverted, the journal records the relax step reverted (not
// complete, nothing outstanding), and a plain printer shows it.
func assertRevertedOnStop(t *testing.T, ctx context.Context, c *lane, res *apply.Result, events []apply.Event, before policyv1.PodDisruptionBudgetSpec, relax string) {
	t.Helper()
	if got := pdbSpec(t, ctx, c, "web"); !reflect.DeepEqual(got, before) {
		t.Errorf("the budget is left changed after the run stopped:\n got %+v\nwant %+v", got, before)
	}
	if len(res.Reverted) != 1 || res.Reverted[0].Step != relax || res.Reverted[0].Result != journal.ResultReverted || len(res.NotReverted) != 0 {
		t.Errorf("result reverts: %+v, not reverted %+v", res.Reverted, res.NotReverted)
	}
	if res.Err == nil || !strings.Contains(res.Err.Error(), "reverted the temporary change(s) to their journaled pre-image: PodDisruptionBudget "+remedyNS+"/web (step "+relax+")") {
		t.Errorf("the one-line error should say what was reverted: %v", res.Err)
	}
	if count(events, apply.EventReverting) != 1 || count(events, apply.EventReverted) != 1 {
		t.Errorf("want one reverting and one reverted event:\n%s", dump(events))
	}
	for _, ev := range events {
		if ev.Type == apply.EventReverted && (ev.Change == nil || ev.Change.Reverts != relax || ev.Error != "") {
			t.Errorf("reverted event: %+v", ev)
		}
	}
	st := mustLoad(t, res.Journal).State()
	s := st.Step(relax)
	if s.Status != journal.StepReverted || s.Complete() || s.ChangeOutstanding || s.RestoredBy != journal.RestoredOnStop {
		t.Errorf("the journal should record the relax reverted: %+v", s)
	}
	var out strings.Builder
	pr := printer.NewPlain(&out, false)
	for _, e := range events {
		_ = pr.Print(e)
	}
	if !strings.Contains(out.String(), "reverted") || !strings.Contains(out.String(), "PodDisruptionBudget "+remedyNS+"/web") {
		t.Errorf("plain output should tell the revert:\n%s", out.String())
	}
}

// TestGateTimeoutRevertsTheRelaxedPDBAndResumeMakesItAgain: the drain never
// completes, the nodes-settled gate times out, the engine restores the budget
// before it stops; a resume relaxes it again (from the first pre-image), the
// drain completes, and the plan's revert restores it.
func TestGateTimeoutRevertsTheRelaxedPDBAndResumeMakesItAgain(t *testing.T) {
	c, ctx := setup(t)
	p, relax, revert, before := relaxCase(t, ctx, c)
	opts := defaults(t)
	opts.Timeouts = map[planfile.GateKind]time.Duration{planfile.GateNodesSettled: 2 * time.Second}
	res, events := run(t, ctx, c, p, opts)
	if res.Outcome != apply.OutcomeGateFailed {
		t.Fatalf("%s: %s\n%s", res.Outcome, res.Message, dump(events))
	}
	assertRevertedOnStop(t, ctx, c, res, events, before, relax)
	if !res.CVODisabled || !strings.Contains(res.Err.Error(), "next: recover apply --resume") {
		t.Errorf("the CVO stays disabled and the run is resumable: %v", res.Err)
	}

	ropts := opts
	ropts.Resume, ropts.Timeouts = true, nil
	relaxedAgain := false
	res, events = runWith(t, ctx, mustEngine(t, c), p, ropts, func(ev apply.Event) {
		if ev.Type == apply.EventWaiting && ev.Step != nil && ev.Step.ID == relax && !relaxedAgain {
			relaxedAgain = relaxed(t, ctx, c, "web")
			drainCompletes(t, ctx, c)
		}
	})
	if res.Outcome != apply.OutcomeCompleted {
		t.Fatalf("resume: %s: %s\n%s", res.Outcome, res.Message, dump(events))
	}
	if !relaxedAgain {
		t.Error("the resume must relax the budget again before waiting for the drain")
	}
	if got := pdbSpec(t, ctx, c, "web"); !reflect.DeepEqual(got, before) {
		t.Errorf("after the resume the budget is not restored:\n got %+v\nwant %+v", got, before)
	}
	st := mustLoad(t, opts.JournalPath).State()
	if s := st.Step(relax); !s.Complete() || s.ChangeOutstanding || s.RestoredBy != revert || s.Reverts != 2 || string(s.PreImage["spec.minAvailable"]) != "2" {
		t.Errorf("relax step after the resume: %+v", s)
	}
}

// TestDeciderAbortRevertsTheRelaxedPDB: asked to confirm the revert step, the
// user aborts; the engine still restores the budget before it stops.
func TestDeciderAbortRevertsTheRelaxedPDB(t *testing.T) {
	c, ctx := setup(t)
	p, relax, revert, before := relaxCase(t, ctx, c)
	opts := defaults(t)
	opts.Confirm = true
	var asked []apply.Request
	opts.Decider = apply.DeciderFunc(func(_ context.Context, req apply.Request) (apply.Decision, error) {
		asked = append(asked, req)
		if req.Kind == apply.RequestStep && req.Step.ID == revert {
			if req.Allows(apply.Skip) {
				t.Error("a revert must not be skippable")
			}
			return apply.Abort, nil
		}
		return apply.Proceed, nil
	})
	res, events := runWith(t, ctx, mustEngine(t, c), p, opts, func(ev apply.Event) {
		if ev.Type == apply.EventWaiting && ev.Step != nil && ev.Step.ID == relax {
			drainCompletes(t, ctx, c)
		}
	})
	if res.Outcome != apply.OutcomeAborted {
		t.Fatalf("%s: %s\n%s", res.Outcome, res.Message, dump(events))
	}
	assertRevertedOnStop(t, ctx, c, res, events, before, relax)
	for _, req := range asked {
		if req.Kind == apply.RequestStep && req.Step.ID == relax && (req.Change == nil || req.Change.RevertedBy != revert || len(req.Change.Fields) != 1) {
			t.Errorf("the confirmation of the relax should show its fields and its revert: %+v", req.Change)
		}
	}
}

// TestCancelledContextRevertsTheRelaxedPDB: Ctrl-C (a cancelled context) while
// the drain is awaited: the revert runs on its own bounded context.
func TestCancelledContextRevertsTheRelaxedPDB(t *testing.T) {
	c, ctx := setup(t)
	p, relax, _, before := relaxCase(t, ctx, c)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	res, events := runWith(t, runCtx, mustEngine(t, c), p, defaults(t), func(ev apply.Event) {
		if ev.Type == apply.EventWaiting && ev.Step != nil && ev.Step.ID == relax {
			cancel()
		}
	})
	if res.Outcome != apply.OutcomeAborted || !strings.Contains(res.Message, "interrupted") {
		t.Fatalf("%s: %s\n%s", res.Outcome, res.Message, dump(events))
	}
	assertRevertedOnStop(t, ctx, c, res, events, before, relax)
}

// TestARetriedRevertIsOneRevert: the revert on stop meets a conflict (a
// status write lands between its read and its patch, as the disruption
// controller's does when the budget changes) and is prepared again from the
// live state: the event stream says one revert, one reverting then one
// reverted, with a warning for the retry. The conflict is made for certain: the
// engine talks through a proxy that, just before forwarding the revert's
// patch, writes the budget's status on the API server itself.
func TestARetriedRevertIsOneRevert(t *testing.T) {
	c, ctx := setup(t)
	p, relax, _, before := relaxCase(t, ctx, c)
	pdbs := c.Kube.PolicyV1().PodDisruptionBudgets(remedyNS)
	var mu sync.Mutex
	patches := 0
	proxy, err := faultproxy.Start(faultproxy.Options{Upstream: c.env.Config, Hook: func(e faultproxy.Entry, stage faultproxy.Stage) bool {
		if stage != faultproxy.Before || e.Method != http.MethodPatch || e.DryRun || !strings.HasSuffix(e.Path, "/poddisruptionbudgets/web") {
			return false
		}
		mu.Lock()
		patches++
		n := patches
		mu.Unlock()
		if n != 2 { // the relax is the first patch, the revert's first attempt the second
			return false
		}
		// kube-controller-manager's disruption controller writes this status too:
		// re-read and retry on a conflict, as a controller would.
		if _, err := applytest.Update(ctx, pdbs.Get, pdbs.UpdateStatus, "web", func(live *policyv1.PodDisruptionBudget) {
			live.Status.DisruptionsAllowed++
		}); err != nil {
			t.Error(err)
		}
		return false
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	e, err := apply.New(proxy.Config())
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	res, events := runWith(t, runCtx, e, p, defaults(t), func(ev apply.Event) {
		if ev.Type == apply.EventWaiting && ev.Step != nil && ev.Step.ID == relax {
			cancel()
		}
	})
	if res.Outcome != apply.OutcomeAborted {
		t.Fatalf("%s: %s\n%s", res.Outcome, res.Message, dump(events))
	}
	conflicts := 0
	for _, l := range proxy.Log() {
		if l.Method == http.MethodPatch && strings.HasSuffix(l.Path, "/poddisruptionbudgets/web") && l.Status == http.StatusConflict {
			conflicts++
		}
	}
	retried := false
	for _, ev := range events {
		retried = retried || ev.Type == apply.EventWarning && strings.Contains(ev.Message, "reverting step "+relax) && strings.Contains(ev.Message, "retrying")
	}
	if conflicts != 1 || !retried {
		t.Fatalf("the revert met %d conflict(s), retry warned %v; want one conflict and a retry\n%s", conflicts, retried, dump(events))
	}
	assertRevertedOnStop(t, ctx, c, res, events, before, relax)
}

// TestLostLockLeavesTheChangeToTheResume: when another run takes the lock the
// engine changes nothing more; the budget stays relaxed, the result and recover
// journal say so, and a resume restores it at the plan's revert step.
func TestLostLockLeavesTheChangeToTheResume(t *testing.T) {
	c, ctx := setup(t)
	p, relax, revert, before := relaxCase(t, ctx, c)
	opts := defaults(t)
	opts.LeaseDuration = 3 * time.Second
	leases := c.Kube.CoordinationV1().Leases("openshift-cluster-version")
	taken := false
	res, events := runWith(t, ctx, mustEngine(t, c), p, opts, func(ev apply.Event) {
		if ev.Type == apply.EventWaiting && ev.Step != nil && ev.Step.ID == relax && !taken {
			taken = true
			// The engine renews this lease meanwhile: re-read and retry on a conflict.
			other := "another run"
			if _, err := applytest.Update(ctx, leases.Get, leases.Update, "recover-apply", func(l *coordinationv1.Lease) {
				l.Spec.HolderIdentity = &other
				l.Annotations = nil
			}); err != nil {
				t.Error(err)
			}
		}
	})
	if res.Outcome != apply.OutcomeLostLock {
		t.Fatalf("%s: %s\n%s", res.Outcome, res.Message, dump(events))
	}
	if !relaxed(t, ctx, c, "web") {
		t.Error("with the lock lost the engine must not touch the budget")
	}
	if count(events, apply.EventReverting) != 0 || len(res.NotReverted) != 1 || !strings.Contains(res.NotReverted[0].Error, "lock was lost") || !strings.Contains(res.NotReverted[0].Command, "oc patch poddisruptionbudget/web") {
		t.Errorf("not reverted: %+v\n%s", res.NotReverted, dump(events))
	}
	if s := mustLoad(t, opts.JournalPath).State().Step(relax); !s.ChangeOutstanding {
		t.Errorf("the journal must show the change outstanding: %+v", s)
	}
	if err := leases.Delete(ctx, "recover-apply", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	ropts := opts
	ropts.Resume = true
	res, events = runWith(t, ctx, mustEngine(t, c), p, ropts, func(ev apply.Event) {
		if ev.Type == apply.EventWaiting && ev.Step != nil && ev.Step.ID == relax {
			drainCompletes(t, ctx, c)
		}
	})
	if res.Outcome != apply.OutcomeCompleted {
		t.Fatalf("resume: %s: %s\n%s", res.Outcome, res.Message, dump(events))
	}
	if got := pdbSpec(t, ctx, c, "web"); !reflect.DeepEqual(got, before) {
		t.Errorf("after the resume the budget is not restored:\n got %+v\nwant %+v", got, before)
	}
	if s := mustLoad(t, opts.JournalPath).State().Step(relax); s.ChangeOutstanding || s.RestoredBy != revert || s.Mutations != 1 {
		t.Errorf("the resume found the budget relaxed (no second patch) and its revert restored it: %+v", s)
	}
}

// TestRevertNeverOverwritesSomeoneElsesEdit: the budget is edited while it is
// relaxed (its minAvailable set to 1 over the relaxation's 0); the revert step
// (and the revert on stop after it) refuse to
// overwrite the edit and name the command that restores the pre-image.
func TestRevertNeverOverwritesSomeoneElsesEdit(t *testing.T) {
	c, ctx := setup(t)
	pdb := newPDB(t, ctx, c, "web")
	drainingMaster(t, ctx, c)
	p, relax, revert := relaxPlan(pdb)
	pdbs := c.Kube.PolicyV1().PodDisruptionBudgets(remedyNS)
	one := intstr.FromInt32(1)
	res, events := runWith(t, ctx, mustEngine(t, c), p, defaults(t), func(ev apply.Event) {
		if ev.Type == apply.EventWaiting && ev.Step != nil && ev.Step.ID == relax {
			// The disruption controller writes the budget's status meanwhile (a
			// new resourceVersion): re-read and retry on a conflict.
			if _, err := applytest.Update(ctx, pdbs.Get, pdbs.Update, "web", func(cur *policyv1.PodDisruptionBudget) {
				cur.Spec.MinAvailable = &one
			}); err != nil {
				t.Error(err)
			}
			drainCompletes(t, ctx, c)
		}
	})
	if res.Outcome != apply.OutcomeStepFailed || res.StoppedAt != revert {
		t.Fatalf("%s at %s: %s\n%s", res.Outcome, res.StoppedAt, res.Message, dump(events))
	}
	if got := pdbSpec(t, ctx, c, "web"); got.MinAvailable == nil || got.MinAvailable.String() != "1" {
		t.Errorf("the edit must survive: %+v", got)
	}
	want := `oc patch poddisruptionbudget/web -n ` + remedyNS + ` --type=merge -p '{"spec":{"maxUnavailable":null,"minAvailable":2}}'`
	msg := res.Err.Error()
	if !strings.Contains(msg, "spec.minAvailable is 1") || !strings.Contains(msg, "spec.minAvailable=2") || !strings.Contains(msg, want) || strings.Contains(msg, "\n") {
		t.Errorf("one line naming the object, the pre-image and the restore command:\n%s", msg)
	}
	if len(res.NotReverted) != 1 || res.NotReverted[0].Command != want {
		t.Errorf("the revert on stop refuses too, with the command: %+v", res.NotReverted)
	}
	var edited *apply.EditedError
	if !errors.As(res.Err, &edited) {
		t.Errorf("the error should be an EditedError: %T", res.Err)
	}
}

// TestChangeOfARecreatedObjectIsRefused: a plan made for another object of the
// same name changes nothing.
func TestChangeOfARecreatedObjectIsRefused(t *testing.T) {
	c, ctx := setup(t)
	pdb := newPDB(t, ctx, c, "web")
	p, _, _ := relaxPlan(pdb)
	p.Steps[1].Change.UID = "00000000-0000-0000-0000-000000000000"
	before := pdbSpec(t, ctx, c, "web")
	res, events := run(t, ctx, c, p, defaults(t))
	if res.Outcome != apply.OutcomeStepRefused || !res.Outcome.Resumable() {
		t.Fatalf("%s: %s\n%s", res.Outcome, res.Message, dump(events))
	}
	if !strings.Contains(res.Message, "not the plan's 00000000-0000-0000-0000-000000000000") || !strings.Contains(res.Message, "recover plan") {
		t.Errorf("message: %s", res.Message)
	}
	if got := pdbSpec(t, ctx, c, "web"); !reflect.DeepEqual(got, before) {
		t.Errorf("a refused step changed the budget")
	}
	if s := mustLoad(t, res.Journal).State().Step(p.Steps[1].ID); s.Intents != 0 || s.ChangeOutstanding {
		t.Errorf("a refused step journals no intent: %+v", s)
	}
}
