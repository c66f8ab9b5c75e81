package apply_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/plan/planfile"
)

// prepareScenario creates what exists before the plan runs (applytest's
// Prepare: the namespace with a label of its own, which the merge must keep,
// and the object the plan deletes).
func prepareScenario(t testing.TB, ctx context.Context, c *lane, sc *applytest.Scenario) {
	t.Helper()
	if err := c.Prepare(ctx, sc); err != nil {
		t.Fatal(err)
	}
}

func TestFullPlanReachesTargetWithEveryGatePassing(t *testing.T) {
	c, ctx := setup(t)
	b, sc := applytest.FullPlan("full")
	prepareScenario(t, ctx, c, sc)
	opts := defaults(t)
	res, events := run(t, ctx, c, b.Plan(), opts)
	if res.Outcome != apply.OutcomeCompleted {
		t.Fatalf("outcome %s: %s\n%s", res.Outcome, res.Message, dump(events))
	}
	gates := 0
	for _, s := range b.Plan().Steps {
		if s.Gate != nil {
			gates++
		}
	}
	if got := count(events, apply.EventGatePassed); got != gates {
		t.Errorf("gate-passed events: %d, want one per gate (%d)\n%s", got, gates, dump(events))
	}
	if n := count(events, apply.EventGateFailed); n != 0 {
		t.Errorf("%d gates failed", n)
	}
	if res.CVODisabled || res.StepsDone != len(b.Plan().Steps) {
		t.Errorf("result: CVO disabled %v, %d of %d steps done", res.CVODisabled, res.StepsDone, len(b.Plan().Steps))
	}

	// The CVO is back with its replicas, and ClusterVersion asks for the target by digest.
	d, err := c.Kube.AppsV1().Deployments("openshift-cluster-version").Get(ctx, "cluster-version-operator", metav1.GetOptions{})
	if err != nil || *d.Spec.Replicas != 1 || d.Status.AvailableReplicas != 1 {
		t.Fatalf("CVO not restored: %v %+v", err, d.Status)
	}
	cv, err := c.OSConfig.ConfigV1().ClusterVersions().Get(ctx, "version", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if du := cv.Spec.DesiredUpdate; du == nil || du.Image != applytest.TargetImage || du.Version != applytest.TargetVersion || du.Force {
		t.Fatalf("desiredUpdate %+v, want %s %s without force", cv.Spec.DesiredUpdate, applytest.TargetVersion, applytest.TargetImage)
	}
	if cv.Status.Desired.Image != applytest.TargetImage {
		t.Errorf("the (fake) CVO never acted on the desired update: status.desired %+v", cv.Status.Desired)
	}

	// CVO semantics: labels merged, owner references, create-only, replicas default, delete.
	ns, _ := c.Kube.CoreV1().Namespaces().Get(ctx, sc.Namespace, metav1.GetOptions{})
	if ns.Labels["kept"] != "yes" || ns.Labels["openshift.io/run-level"] != "0" {
		t.Errorf("namespace labels not merged: %v", ns.Labels)
	}
	assertOwner(t, ns.OwnerReferences, cv.UID, true)
	seed, err := c.Kube.CoreV1().ConfigMaps(sc.Namespace).Get(ctx, "seed", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	assertOwner(t, seed.OwnerReferences, cv.UID, false)
	dep, err := c.Kube.AppsV1().Deployments(sc.Namespace).Get(ctx, "widget-operator", metav1.GetOptions{})
	if err != nil || dep.Spec.Replicas == nil || *dep.Spec.Replicas != 1 {
		t.Errorf("operator deployment replicas should default to 1: %v", err)
	}
	if _, err := c.Kube.CoreV1().ConfigMaps(sc.Namespace).Get(ctx, "obsolete", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the delete-annotated ConfigMap still exists: %v", err)
	}
	dyn := dynamic.NewForConfigOrDie(c.env.Config)
	widget, err := dyn.Resource(schema.GroupVersionResource{Group: "full.example.com", Version: "v1", Resource: "widgets"}).Namespace(sc.Namespace).Get(ctx, "default", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the Widget (a kind whose CRD an earlier step made) was not created: %v", err)
	}
	if size, _, _ := unstructuredInt(widget.Object, "spec", "size"); size != 3 {
		t.Errorf("widget spec.size %d", size)
	}

	// Secret values never appear in clear, neither in events nor in the journal.
	secret := "super-secret-value"
	encoded := base64.StdEncoding.EncodeToString([]byte(secret))
	all, _ := json.Marshal(events)
	jtext := readFile(t, opts.JournalPath)
	for _, leak := range []string{secret, encoded} {
		if strings.Contains(string(all), leak) || strings.Contains(jtext, leak) {
			t.Errorf("secret value %q leaked into events or journal", leak)
		}
	}
	if !strings.Contains(string(all), "redacted sha256:") {
		t.Errorf("the Secret's diff should show hashed values")
	}

	// The journal is private, complete and says the run finished.
	fi, err := os.Stat(opts.JournalPath)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("journal mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	j, err := journal.Load(opts.JournalPath)
	if err != nil {
		t.Fatal(err)
	}
	st := j.State()
	if !st.Finished || st.CVO.Disabled || !st.CVO.Restored || st.CVO.OriginalReplicas == nil || *st.CVO.OriginalReplicas != 1 {
		t.Errorf("journal state: finished %v, CVO %+v", st.Finished, st.CVO)
	}
	// The CVO's replicas were journaled before the scale-down.
	var intentSeq, outcomeSeq int
	for _, r := range j.Records {
		if r.Step == b.Plan().Steps[0].ID && r.Type == journal.TypeIntent && r.Intent.CVOReplicas != nil {
			intentSeq = r.Seq
		}
		if r.Step == b.Plan().Steps[0].ID && r.Type == journal.TypeOutcome {
			outcomeSeq = r.Seq
		}
	}
	if intentSeq == 0 || outcomeSeq <= intentSeq {
		t.Errorf("disable-cvo: intent with replicas at record %d, outcome at %d", intentSeq, outcomeSeq)
	}

	// Applying the same plan again changes nothing (everything unchanged or exists).
	b2, _ := applytest.FullPlan("full")
	var rvBefore string
	if d, err := c.Kube.AppsV1().Deployments(sc.Namespace).Get(ctx, "widget-operator", metav1.GetOptions{}); err == nil {
		rvBefore = d.ResourceVersion
	}
	res2, events2 := run(t, ctx, c, b2.Plan(), defaults(t))
	if res2.Outcome != apply.OutcomeCompleted {
		t.Fatalf("second run: %s\n%s", res2.Message, dump(events2))
	}
	for _, e := range events2 {
		if e.Type == apply.EventApplied && e.Step.Action == planfile.ActionApply && e.Change.Result != "unchanged" && e.Change.Result != "exists" {
			t.Errorf("second run changed %s: %s", e.Change.Object, e.Change.Result)
		}
	}
	if d, _ := c.Kube.AppsV1().Deployments(sc.Namespace).Get(ctx, "widget-operator", metav1.GetOptions{}); d.ResourceVersion != rvBefore {
		t.Errorf("an unchanged Deployment was written again (rv %s -> %s)", rvBefore, d.ResourceVersion)
	}
}

func unstructuredInt(obj map[string]any, fields ...string) (int64, bool, error) {
	cur := any(obj)
	for _, f := range fields {
		m, ok := cur.(map[string]any)
		if !ok {
			return 0, false, nil
		}
		cur = m[f]
	}
	v, ok := cur.(int64)
	return v, ok, nil
}

// assertOwner checks the owner reference the CVO's modifier sets
// (pkg/cvo/cvo.go ownerReferenceModifier): controller true, or no controller
// field for a create-only object; never blockOwnerDeletion.
func assertOwner(t *testing.T, refs []metav1.OwnerReference, uid types.UID, controller bool) {
	t.Helper()
	for _, r := range refs {
		if r.Kind == "ClusterVersion" && r.Name == "version" && r.UID == uid {
			if controller && (r.Controller == nil || !*r.Controller) || !controller && r.Controller != nil || r.BlockOwnerDeletion != nil {
				t.Errorf("ClusterVersion owner reference controller=%v blockOwnerDeletion=%v, want controller %v and no blockOwnerDeletion", r.Controller, r.BlockOwnerDeletion, controller)
			}
			return
		}
	}
	t.Errorf("no owner reference to ClusterVersion/version in %+v", refs)
}

var _ = configv1.ClusterVersion{}
