package apply_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/internal/testing/faultproxy"
	"github.com/openshift-recover/recover/plan/planfile"
)

const remedyNS = "recover-remedy"

// The drain the relaxed PDB lets through, as the MCO writes it on master-1.
const (
	drainReq  = "drain-rendered-master-2"
	drainLast = "uncordon-rendered-master-1"
)

// newPDB creates the PodDisruptionBudget ns/name that holds the drain:
// minAvailable 2 of app=<name>, with a label and an annotation of its own.
func newPDB(t testing.TB, ctx context.Context, c *lane, name string) *policyv1.PodDisruptionBudget {
	t.Helper()
	if _, err := c.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: remedyNS}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	pdbs := c.Kube.PolicyV1().PodDisruptionBudgets(remedyNS)
	_ = pdbs.Delete(ctx, name, metav1.DeleteOptions{})
	two := intstr.FromInt32(2)
	pdb, err := pdbs.Create(ctx, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"team": "web"}, Annotations: map[string]string{"owner": "someone"}},
		Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: &two, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pdbs.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	return pdb
}

// drainingMaster starts master-1 on a drain the PDB holds, and clears it at
// the end of the test.
func drainingMaster(t testing.TB, ctx context.Context, c *lane) {
	t.Helper()
	if err := c.SetDrain(ctx, "master-1", drainReq, drainLast, "Working"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.SetDrain(context.Background(), "master-1", "", "", "") })
}

// drainCompletes plays the drain controller once the budget is relaxed.
func drainCompletes(t testing.TB, ctx context.Context, c *lane) {
	t.Helper()
	if err := c.SetDrain(ctx, "master-1", drainReq, drainReq, "Done"); err != nil {
		t.Error(err)
	}
}

// relaxPlan is disable-cvo, relax-pdb (gated on master-1 settling), its revert
// and restore-cvo.
func relaxPlan(pdb *policyv1.PodDisruptionBudget) (*planfile.Plan, string, string) {
	b := applytest.NewPlan().DisableCVO().RelaxPDB(pdb.Namespace, pdb.Name, string(pdb.UID), applytest.NodesSettled("master-1"))
	relax := b.LastID()
	b.Revert(relax)
	revert := b.LastID()
	return b.RestoreCVO().Plan(), relax, revert
}

// relaxCase is the start of a remediation test on the (reset) fixture: the
// budget "web" made while master-1 drains, the plan that relaxes it (relaxPlan),
// the relax and revert steps' IDs, and the budget's spec before the run.
func relaxCase(t testing.TB, ctx context.Context, c *lane) (*planfile.Plan, string, string, policyv1.PodDisruptionBudgetSpec) {
	t.Helper()
	pdb := newPDB(t, ctx, c, "web")
	drainingMaster(t, ctx, c)
	p, relax, revert := relaxPlan(pdb)
	return p, relax, revert, pdbSpec(t, ctx, c, "web")
}

func pdbSpec(t testing.TB, ctx context.Context, c *lane, name string) policyv1.PodDisruptionBudgetSpec {
	t.Helper()
	p, err := c.Kube.PolicyV1().PodDisruptionBudgets(remedyNS).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p.Spec
}

func relaxed(t testing.TB, ctx context.Context, c *lane, name string) bool {
	s := pdbSpec(t, ctx, c, name)
	// The planner's relaxation (plan.RelaxPDBChange): minAvailable 0, maxUnavailable dropped.
	return s.MinAvailable != nil && s.MinAvailable.String() == "0" && s.MaxUnavailable == nil
}

var pdbPatch = func(name string) func(faultproxy.Entry) bool {
	return req(http.MethodPatch, "/namespaces/"+remedyNS+"/poddisruptionbudgets/"+name, "")
}

// lastRecord is the journal's last record.
func lastRecord(t testing.TB, path string) journal.Record {
	t.Helper()
	j, err := journal.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return j.Records[len(j.Records)-1]
}

// TestRelaxPDBJournalsThePreImageFirstAndRestoresTheBudgetExactly runs the
// relax-pdb remedy through the audit proxy: the journal holds the budget's
// pre-image before the server sees the patch (and no outcome before the
// server answered), the drain completes, the revert writes the pre-image back,
// and the budget's whole spec, labels and annotations equal what they were.
func TestRelaxPDBJournalsThePreImageFirstAndRestoresTheBudgetExactly(t *testing.T) {
	c, ctx := setup(t)
	pdb := newPDB(t, ctx, c, "web")
	drainingMaster(t, ctx, c)
	p, relax, revert := relaxPlan(pdb)
	opts := defaults(t)

	var mu sync.Mutex
	var problems []string
	patches := 0
	wantPre := map[string]json.RawMessage{"spec.minAvailable": json.RawMessage(`2`), "spec.maxUnavailable": json.RawMessage(`null`)}
	hook := func(e faultproxy.Entry, stage faultproxy.Stage) bool {
		if !pdbPatch("web")(e) {
			return false
		}
		mu.Lock()
		defer mu.Unlock()
		if stage == faultproxy.Before {
			patches++
		}
		last := lastRecord(t, opts.JournalPath)
		bad := func(format string, args ...any) {
			problems = append(problems, "patch "+string(rune('0'+patches))+": "+strings.TrimSpace(sprintf(format, args...)))
		}
		switch {
		case last.Type != journal.TypeIntent || last.Intent == nil:
			bad("the journal's last record before/after the server acted is %s, not the intent", last.Type)
		case patches == 1 && (last.Step != relax || !reflect.DeepEqual(normalizeRaw(last.Intent.PreImage), normalizeRaw(wantPre)) || !last.Intent.Temporary):
			bad("relax intent: %+v", last.Intent)
		case patches == 2 && (last.Step != revert || last.Intent.RevertOf != relax || last.Intent.Operation != journal.OperationRevert):
			bad("revert intent: step %s %+v", last.Step, last.Intent)
		}
		if stage == faultproxy.Before && patches == 1 && relaxed(t, ctx, c, "web") {
			bad("the budget is relaxed before the patch reached the server")
		}
		return false
	}
	proxy, _ := auditProxy(t, c, t.TempDir(), "remedy", hook)
	e, err := apply.New(proxy.Config())
	if err != nil {
		t.Fatal(err)
	}
	before := pdbSpec(t, ctx, c, "web")
	var diff *apply.ChangeInfo
	var waited string
	res, events := runWith(t, ctx, e, p, opts, func(ev apply.Event) {
		if ev.Step == nil || ev.Step.ID != relax {
			return
		}
		switch ev.Type {
		case apply.EventDiff:
			diff = ev.Change
		case apply.EventApplied:
			if !relaxed(t, ctx, c, "web") {
				t.Error("applied, but the budget is not relaxed")
			}
		case apply.EventWaiting:
			// The gate waits for the drain; the drain controller completes it.
			if waited == "" {
				waited = ev.Message
				drainCompletes(t, ctx, c)
			}
		}
	})
	if res.Outcome != apply.OutcomeCompleted {
		t.Fatalf("%s: %s\n%s", res.Outcome, res.Message, dump(events))
	}
	for _, pr := range problems {
		t.Error(pr)
	}
	if !strings.Contains(waited, "master-1: drain request "+drainReq+" not applied") {
		t.Errorf("the nodes-settled gate should wait for master-1's drain, said %q", waited)
	}
	if patches != 2 {
		t.Errorf("%d patches of the budget reached the server, want 2 (relax, revert)", patches)
	}
	after, err := c.Kube.PolicyV1().PodDisruptionBudgets(remedyNS).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(after.Spec, before) || after.Labels["team"] != "web" || after.Annotations["owner"] != "someone" || len(after.Annotations) != 1 {
		t.Errorf("the budget is not restored exactly:\n got %+v %v %v\nwant %+v", after.Spec, after.Labels, after.Annotations, before)
	}
	if diff == nil || diff.Remedy != planfile.RemedyRelaxPDB || diff.RevertedBy != revert || len(diff.Fields) != 1 || string(diff.PreImage["spec.minAvailable"]) != "2" {
		t.Errorf("the relax step's diff event should carry the remedy, the pre-image, the new values and its revert: %+v", diff)
	}
	st := mustLoad(t, opts.JournalPath).State()
	if s := st.Step(relax); !s.Complete() || s.ChangeOutstanding || s.RestoredBy != revert || !s.Temporary || s.Mutations != 1 {
		t.Errorf("relax step in the journal: %+v", s)
	}
	if s := st.Step(revert); !s.Complete() || s.RevertOf != relax || s.Mutations != 1 {
		t.Errorf("revert step in the journal: %+v", s)
	}
	if len(res.Reverted) != 0 || len(res.NotReverted) != 0 {
		t.Errorf("a completed run reverts nothing on its own: %+v %+v", res.Reverted, res.NotReverted)
	}
}

func normalizeRaw(m map[string]json.RawMessage) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		var x any
		_ = json.Unmarshal(v, &x)
		out[k] = x
	}
	return out
}

// TestDryRunOfARemediationPlanChangesNothing: the relax is sent as a server-side
// dry run and shown with its fields; the revert says it writes the pre-image the
// relax journals; the budget keeps its resourceVersion.
func TestDryRunOfARemediationPlanChangesNothing(t *testing.T) {
	c, ctx := setup(t)
	pdb := newPDB(t, ctx, c, "web")
	p, relax, revert := relaxPlan(pdb)
	res, events := run(t, ctx, c, p, apply.Options{DryRun: true, AllowStale: true})
	if res.Outcome != apply.OutcomeCompleted {
		t.Fatalf("%s: %s\n%s", res.Outcome, res.Message, dump(events))
	}
	after, err := c.Kube.PolicyV1().PodDisruptionBudgets(remedyNS).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The disruption controller writes the budget's status meanwhile (a new
	// resourceVersion): compare what recover would change, and who wrote it.
	if !reflect.DeepEqual(after.Spec, pdb.Spec) {
		t.Errorf("a dry run changed the budget's spec: %+v -> %+v", pdb.Spec, after.Spec)
	}
	for _, mf := range after.ManagedFields {
		if mf.Manager == "recover" {
			t.Errorf("a dry run wrote the budget as recover: %+v", mf)
		}
	}
	got := map[string]*apply.ChangeInfo{}
	for _, ev := range events {
		if ev.Type == apply.EventApplied && ev.Step != nil {
			got[ev.Step.ID] = ev.Change
		}
	}
	if c := got[relax]; c == nil || c.Result != "dry-run: would patch" || len(c.Fields) != 1 || !c.DryRun {
		t.Errorf("relax in a dry run: %+v", c)
	}
	if c := got[revert]; c == nil || !strings.Contains(c.Note, "journals its pre-image when it runs") {
		t.Errorf("revert in a dry run: %+v", c)
	}
}

// The TUI's diff preview is the engine's own preparation of the step: for a
// remediation step it carries the fields it changes and their live pre-image, as
// the run's diff event does.
func TestPreviewOfARemediationStepCarriesItsFields(t *testing.T) {
	c, ctx := setup(t)
	pdb := newPDB(t, ctx, c, "preview")
	p, relax, _ := relaxPlan(pdb)
	e, err := apply.New(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	ci, err := e.Preview(ctx, p, relax)
	if err != nil {
		t.Fatal(err)
	}
	if ci.Remedy != planfile.RemedyRelaxPDB || len(ci.Fields) != 1 || len(ci.PreImage) == 0 || ci.RevertedBy == "" || !ci.DryRun {
		t.Errorf("preview of %s: %+v", relax, ci)
	}
	after, err := c.Kube.PolicyV1().PodDisruptionBudgets(remedyNS).Get(ctx, "preview", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The disruption controller writes the budget's status meanwhile: compare
	// what recover would change, and who wrote it.
	if !reflect.DeepEqual(after.Spec, pdb.Spec) {
		t.Errorf("a preview changed the budget's spec: %+v -> %+v", pdb.Spec, after.Spec)
	}
	for _, mf := range after.ManagedFields {
		if mf.Manager == "recover" {
			t.Errorf("a preview wrote the budget as recover: %+v", mf)
		}
	}
}
