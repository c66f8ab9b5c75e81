package verdict

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"regexp"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/internal/testing/fleetengines"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/planconfigmap"
)

func sampleVerdict() *Verdict {
	v := &Verdict{FormatVersion: FormatVersion, Wave: "w7", Source: "live:https://api.example:6443", InspectedAt: time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC),
		Wedged: true,
		Causes: []Cause{{Rank: 1, Code: "DrainBlockedByPDB", Subject: "poddisruptionbudget/ci/deck"}, {Rank: 2, Code: "CSRPending", Subject: "node/worker-2"},
			{Rank: 3, Code: "PoolPaused", Subject: "machineconfigpool/infra"}, {Rank: 4, Code: "NodeNotReady", Subject: "node/worker-3"}},
		Remedy: Remedy{Answer: AnswerNeedsAccept, Remedies: []string{"relax-pdb", "force-redeployment"}, Accept: []string{"force-redeployment:kube-apiserver"}, Reason: "x"}}
	v.Signature = Signature(v)
	v.SetApply(ApplyState{Phase: PhaseRunning, Step: "003-relax-pdb-ci-deck", StepIndex: 3, StepsTotal: 7})
	return v
}

// TestFieldsAreWhatTheWorkAgentReads: every flat field is a data key of the
// ConfigMap whose JSONPath the work agent evaluates to the same string, and the
// whole document round-trips.
func TestFieldsAreWhatTheWorkAgentReads(t *testing.T) {
	v := sampleVerdict()
	cm, err := ToConfigMap(v, "recover", "recover-verdict")
	if err != nil {
		t.Fatal(err)
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cm)
	if err != nil {
		t.Fatal(err)
	}
	keyRE := regexp.MustCompile(`^[-._a-zA-Z0-9]+$`) // a ConfigMap data key
	nameRE := regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9]*$`)
	seen := map[string]bool{}
	for _, f := range Fields() {
		if seen[f.Name] {
			t.Errorf("field %s twice", f.Name)
		}
		seen[f.Name] = true
		if !keyRE.MatchString(f.Name) || !nameRE.MatchString(f.Name) {
			t.Errorf("field %q is not a plain data key a simple JSONPath names", f.Name)
		}
		got, ok, err := fleetengines.FeedbackValue(obj, f.Name, f.Path())
		if err != nil {
			t.Errorf("%s: the work agent reports an error: %v", f.Path(), err)
			continue
		}
		if want := f.Value(v); !ok || got.Type != "String" || got.Value != want {
			t.Errorf("%s: the work agent reads %+v (found %v), the verdict wrote %q", f.Path(), got, ok, want)
		}
	}
	for name, want := range map[string]string{"wedged": "true", "cause3Code": "PoolPaused", "cause2Subject": "node/worker-2", "acceptNeeded": "true",
		"accept": "force-redeployment:kube-apiserver", "remedies": "relax-pdb,force-redeployment", "applyPhase": "running", "settled": "false", "wave": "w7", "causes": "4"} {
		if cm.Data[name] != want {
			t.Errorf("data[%s] = %q, want %q", name, cm.Data[name], want)
		}
	}
	if _, ok := cm.Data["cause4Code"]; ok {
		t.Errorf("cause 4 has a flat field; only %d do", FlatCauses)
	}
	back, err := FromConfigMap(cm)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, v) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, v)
	}
}

func TestParseRefusesAnotherMajor(t *testing.T) {
	for _, doc := range []string{`{"formatVersion":"2.0"}`, `{`, `{"formatVersion":""}`} {
		if _, err := Parse([]byte(doc)); err == nil {
			t.Errorf("%s was read", doc)
		}
	}
	if _, err := Parse([]byte(`{"formatVersion":"1.7","wedged":true}`)); err != nil {
		t.Errorf("a newer minor was refused: %v", err)
	}
}

func TestApplyCompletedSettles(t *testing.T) {
	v := sampleVerdict()
	v.SetApply(ApplyState{Phase: PhaseDone, Result: "gate-failed"})
	if v.Settled {
		t.Error("a failed run settled the cluster")
	}
	v.SetApply(ApplyState{Phase: PhaseDone, Result: ResultCompleted})
	if !v.Settled || FieldSettled.Value(v) != "true" || FieldApplyResult.Value(v) != "completed" {
		t.Errorf("a completed run: settled %v, fields %q %q", v.Settled, FieldSettled.Value(v), FieldApplyResult.Value(v))
	}
}

// TestSignatureFoldsNodes: two clusters wedged the same way on different nodes
// share a signature; another PDB, another answer or another accept name does
// not.
func TestSignatureFoldsNodes(t *testing.T) {
	base := func() *Verdict {
		return &Verdict{Causes: []Cause{{Code: "CSRPending", Subject: "node/worker-2"}, {Code: "DrainBlockedByPDB", Subject: "poddisruptionbudget/ci/deck"}},
			Remedy: Remedy{Answer: AnswerPlan, Remedies: []string{"approve-csr", "relax-pdb"}}}
	}
	a, b := base(), base()
	b.Causes[0].Subject = "node/compute-17"
	b.Remedy.Reason, b.Remedy.PlanDigest, b.Wave, b.Source = "other words", "sha256:x", "w2", "must-gather:/x"
	if Signature(a) != Signature(b) {
		t.Errorf("same wedge on other nodes: %s != %s\n%s\n%s", Signature(a), Signature(b), SignatureText(a), SignatureText(b))
	}
	for name, edit := range map[string]func(v *Verdict){
		"another PDB":     func(v *Verdict) { v.Causes[1].Subject = "poddisruptionbudget/ci/hook" },
		"another code":    func(v *Verdict) { v.Causes[0].Code = "NodeNotReady" },
		"another answer":  func(v *Verdict) { v.Remedy.Answer = AnswerNeedsAccept },
		"an accept name":  func(v *Verdict) { v.Remedy.Accept = []string{"remove-overrides"} },
		"another remedy":  func(v *Verdict) { v.Remedy.Remedies = []string{"approve-csr"} },
		"one cause fewer": func(v *Verdict) { v.Causes = v.Causes[:1] },
	} {
		c := base()
		edit(c)
		if Signature(c) == Signature(a) {
			t.Errorf("%s: same signature %s", name, Signature(a))
		}
	}
}

// TestStoreRoundTrip keeps a verdict in a ConfigMap through a fake clientset
// (the store's one function; the real API server proves it in cmd/recover's
// and apply/incluster's integration tests), keeps the plan as
// plan/planconfigmap encodes it, a large one in parts, and never overwrites a
// stored plan.
func TestStoreRoundTrip(t *testing.T) {
	ctx := context.Background()
	st := Store{Client: newFakeClient(), Namespace: "recover", Name: "recover-verdict"}
	v := sampleVerdict()
	if err := st.Save(ctx, v); err != nil {
		t.Fatal(err)
	}
	v.SetApply(ApplyState{Phase: PhaseDone, Result: ResultCompleted})
	if err := st.Save(ctx, v); err != nil {
		t.Fatal(err)
	}
	got, err := st.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Settled || got.Apply == nil || got.Apply.Result != ResultCompleted {
		t.Errorf("loaded %+v", got)
	}
	first, second := largePlan(t, 1), largePlan(t, 2)
	d1, err := st.SavePlan(ctx, "w7", first, "")
	if err != nil {
		t.Fatal(err)
	}
	d2, err := st.SavePlan(ctx, "w7", second, "")
	if err != nil {
		t.Fatal(err)
	}
	if d1 != documentDigest(t, first) || d2 != d1 {
		t.Errorf("digests %s %s, want the first plan's %s: the stored plan was replaced", d1, d2, documentDigest(t, first))
	}
	cms := st.Client.CoreV1().ConfigMaps("recover")
	head, err := cms.Get(ctx, "recover-plan-w7", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := planconfigmap.Assemble(head, func(name string) (*corev1.ConfigMap, error) { return cms.Get(ctx, name, metav1.GetOptions{}) })
	if err != nil || plan.Digest(data) != d1 || head.Labels[WaveLabel] != "w7" || head.Annotations[planconfigmap.PartsAnnotation] == "1" {
		t.Errorf("the stored plan: %v, digest %s, labels %v, annotations %v", err, plan.Digest(data), head.Labels, head.Annotations)
	}
	if d, err := st.SavePlan(ctx, "w8", nil, "answer none: nothing holds the update"); err != nil || d != "" {
		t.Errorf("no plan: digest %q, %v", d, err)
	}
	cm, err := cms.Get(ctx, "recover-plan-w8", metav1.GetOptions{})
	if err != nil || cm.Labels[WaveLabel] != "w8" || cm.Data[planconfigmap.ReasonKey] == "" || len(cm.Data) != 1 || len(cm.BinaryData) != 0 {
		t.Errorf("the plan configmap of a wave without a plan: %+v %v", cm, err)
	}
	var none *planconfigmap.NoPlanError
	if _, err := planconfigmap.Assemble(cm, nil); !errors.As(err, &none) {
		t.Errorf("a wave without a plan reads as %v", err)
	}
}

// TestInspectAfterApplyKeepsTheApplyFields: the verdict is one record per
// wave. inspect --verdict run again after the wave's apply completed writes a
// verdict with no apply state (and wedged, as the snapshot was read); the
// stored record keeps settled, applyPhase and applyResult (issue 34: they were
// erased). A verdict of another wave replaces the record. cmd/recover's
// TestApplyInClusterWithNothingToApply holds the same on the real API server.
func TestInspectAfterApplyKeepsTheApplyFields(t *testing.T) {
	ctx := context.Background()
	st := Store{Client: newFakeClient(), Namespace: "recover", Name: "recover-verdict"}
	applied := sampleVerdict()
	applied.SetApply(ApplyState{Phase: PhaseDone, Result: ResultCompleted, Step: "007-restore-cvo"})
	if err := st.Save(ctx, applied); err != nil {
		t.Fatal(err)
	}
	again := sampleVerdict()
	again.Apply, again.Settled = nil, false
	if err := st.Save(ctx, again); err != nil {
		t.Fatal(err)
	}
	cm, err := st.Client.CoreV1().ConfigMaps("recover").Get(ctx, "recover-verdict", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{FieldSettled.Name: "true", FieldApplyPhase.Name: string(PhaseDone), FieldApplyResult.Name: ResultCompleted} {
		if cm.Data[key] != want {
			t.Errorf("after a second inspect %s = %q, want %q", key, cm.Data[key], want)
		}
	}
	if got, err := FromConfigMap(cm); err != nil || got.Apply == nil || got.Apply.Step != "007-restore-cvo" || !got.Settled {
		t.Errorf("the document after a second inspect: %+v %v", got, err)
	}
	next := sampleVerdict()
	next.Wave, next.Apply, next.Settled = "w8", nil, false
	if err := st.Save(ctx, next); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Load(ctx); err != nil || got.Apply != nil || got.Settled || got.Wave != "w8" {
		t.Errorf("a new wave's verdict: %+v %v", got, err)
	}
}

// largePlan is a valid plan of more than a ConfigMap holds (2 MB of
// incompressible manifests), different for each seed.
func largePlan(t *testing.T, seed uint64) *plan.Plan {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed))
	b := applytest.NewPlan().DisableCVO()
	for i := range 16 {
		raw := make([]byte, 96<<10)
		for j := range raw {
			raw[j] = byte(rng.Uint32())
		}
		b.Apply(fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c%d","namespace":"n"},"data":{"x":%q}}`, i, base64.StdEncoding.EncodeToString(raw)), nil)
	}
	return b.RestoreCVO().Plan()
}

func documentDigest(t *testing.T, p *plan.Plan) string {
	t.Helper()
	var doc bytes.Buffer
	if err := plan.Encode(&doc, p); err != nil {
		t.Fatal(err)
	}
	return plan.Digest(doc.Bytes())
}

func newFakeClient() kubernetes.Interface { return fake.NewClientset() }
