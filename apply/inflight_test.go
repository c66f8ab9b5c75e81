package apply_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/plan/planfile"
)

// TestResumeRechecksTheStepInFlight plays a run killed between a step's intent and
// its outcome, after its change reached the API server: resume must find the
// change made and not make it again, for a create-only object and for a delete.
func TestResumeRechecksTheStepInFlight(t *testing.T) {
	c, ctx := setup(t)
	b, sc := applytest.FullPlan("inflight")
	prepareScenario(t, ctx, c, sc)
	p := b.Plan()
	index := func(match func(s planfile.Step) bool) int {
		for i, s := range p.Steps {
			if match(s) {
				return i
			}
		}
		t.Fatal("step not found")
		return -1
	}
	createOnly := index(func(s planfile.Step) bool { return s.Manifest != nil && s.Manifest.CreateOnly })
	del := index(func(s planfile.Step) bool { return s.Action == planfile.ActionDelete })

	opts := defaults(t)
	opts.UntilStep = p.Steps[createOnly-1].ID
	if res, events := run(t, ctx, c, p, opts); res.Outcome != apply.OutcomeStopped {
		t.Fatalf("first leg: %s\n%s", res.Message, dump(events))
	}
	// The dead run journaled its intent and its create reached the server.
	killedAfterIntent(t, opts.JournalPath, p.Steps[createOnly], "create")
	seed := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "seed", Namespace: sc.Namespace}, Data: map[string]string{"seed": "made by the dead run"}}
	created, err := c.Kube.CoreV1().ConfigMaps(sc.Namespace).Create(ctx, seed, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	ropts := opts
	ropts.Resume, ropts.UntilStep = true, p.Steps[del-1].ID
	res, events := run(t, ctx, c, p, ropts)
	if res.Outcome != apply.OutcomeStopped {
		t.Fatalf("second leg: %s\n%s", res.Message, dump(events))
	}
	got, err := c.Kube.CoreV1().ConfigMaps(sc.Namespace).Get(ctx, "seed", metav1.GetOptions{})
	if err != nil || got.UID != created.UID || got.Data["seed"] != "made by the dead run" {
		t.Fatalf("the create-only object must be left as the dead run made it: %v %+v", err, got)
	}

	// The dead run journaled a delete's intent and the delete reached the server.
	killedAfterIntent(t, opts.JournalPath, p.Steps[del], "delete")
	if err := c.Kube.CoreV1().ConfigMaps(sc.Namespace).Delete(ctx, "obsolete", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	ropts.UntilStep = ""
	res, events = run(t, ctx, c, p, ropts)
	if res.Outcome != apply.OutcomeCompleted {
		t.Fatalf("last leg: %s\n%s", res.Message, dump(events))
	}
	results := map[string]string{}
	for _, e := range events {
		if e.Type == apply.EventApplied {
			results[e.Step.ID] = e.Change.Result
		}
	}
	if results[p.Steps[del].ID] != "absent" {
		t.Errorf("the in-flight delete should be found done (absent), got %q", results[p.Steps[del].ID])
	}
	st := mustLoad(t, opts.JournalPath).State()
	for _, i := range []int{createOnly, del} {
		s := st.Step(p.Steps[i].ID)
		if s.Mutations != 0 || !s.Complete() || s.Intents != 1 {
			t.Errorf("step %s: %d mutations by recover, %d intents, status %s; want 0, 1, done", s.ID, s.Mutations, s.Intents, s.Status)
		}
	}
	assertAtMostOnce(t, opts.JournalPath, p)
}

// killedAfterIntent appends the intent a run killed right after it would leave.
func killedAfterIntent(t *testing.T, path string, s planfile.Step, op string) {
	t.Helper()
	w, _, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	m := s.Manifest
	if err := w.Write(journal.Record{Type: journal.TypeIntent, Step: s.ID, Action: string(s.Action), Intent: &journal.Intent{Operation: op,
		Object: journal.ObjectRef{APIVersion: m.APIVersion, Kind: m.Kind, Namespace: m.Namespace, Name: m.Name}, ManifestDigest: m.Digest}}); err != nil {
		t.Fatal(err)
	}
}
