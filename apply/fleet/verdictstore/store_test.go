package verdictstore_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/apply/fleet/verdict"
	"github.com/openshift-recover/recover/apply/fleet/verdictstore"
	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/plan/planconfigmap"
	"github.com/openshift-recover/recover/plan/planfile"
)

// aVerdict is an inspected verdict of wave w7 with an apply run under way.
func aVerdict() *verdict.Verdict {
	v := &verdict.Verdict{FormatVersion: verdict.FormatVersion, Wave: "w7", Source: "live:https://api.example:6443",
		InspectedAt: time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC), Wedged: true,
		Causes: []verdict.Cause{{Rank: 1, Code: "DrainBlockedByPDB", Subject: "poddisruptionbudget/ci/deck"}},
		Remedy: verdict.Remedy{Answer: verdict.AnswerPlan, Remedies: []string{"relax-pdb"}, Reason: "x"}}
	v.Signature = verdict.Signature(v)
	v.SetApply(verdict.ApplyState{Phase: verdict.PhaseRunning, Step: "003-relax-pdb-ci-deck", StepIndex: 3, StepsTotal: 7})
	return v
}

// TestStoreRoundTrip keeps a verdict in a ConfigMap on the real API server,
// in a namespace the store creates (a run pushed from a hub finds none), keeps
// the plan as verdict.PlanConfigMaps encodes it, a large one in parts, and
// never overwrites a stored plan.
func TestStoreRoundTrip(t *testing.T) {
	ctx := context.Background()
	st := verdictstore.Store{Client: client(t), Namespace: "verdictstore-roundtrip", Name: verdict.DefaultName}
	v := aVerdict()
	if err := st.Save(ctx, v); err != nil {
		t.Fatal(err)
	}
	v.SetApply(verdict.ApplyState{Phase: verdict.PhaseDone, Result: verdict.ResultCompleted})
	if err := st.Save(ctx, v); err != nil {
		t.Fatal(err)
	}
	got, err := st.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Settled || got.Apply == nil || got.Apply.Result != verdict.ResultCompleted {
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
	cms := st.Client.CoreV1().ConfigMaps(st.Namespace)
	head, err := cms.Get(ctx, verdict.PlanConfigMapName("w7"), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := planconfigmap.Assemble(head, func(name string) (*corev1.ConfigMap, error) { return cms.Get(ctx, name, metav1.GetOptions{}) })
	if err != nil || planfile.Digest(data) != d1 || head.Labels[verdict.WaveLabel] != "w7" || head.Annotations[planconfigmap.PartsAnnotation] == "1" {
		t.Errorf("the stored plan: %v, digest %s, labels %v, annotations %v", err, planfile.Digest(data), head.Labels, head.Annotations)
	}
	if d, err := st.SavePlan(ctx, "w8", nil, "answer none: nothing holds the update"); err != nil || d != "" {
		t.Errorf("no plan: digest %q, %v", d, err)
	}
	cm, err := cms.Get(ctx, verdict.PlanConfigMapName("w8"), metav1.GetOptions{})
	if err != nil || cm.Labels[verdict.WaveLabel] != "w8" || cm.Data[planconfigmap.ReasonKey] == "" || len(cm.Data) != 1 || len(cm.BinaryData) != 0 {
		t.Errorf("the plan configmap of a wave without a plan: %+v %v", cm, err)
	}
	var none *planconfigmap.NoPlanError
	if _, err := planconfigmap.Assemble(cm, nil); !errors.As(err, &none) {
		t.Errorf("a wave without a plan reads as %v", err)
	}
}

// TestInspectAfterApplyKeepsTheApplyFields: the verdict is one record per
// wave (verdict.Merge). inspect --verdict run again after the wave's apply
// completed writes a verdict with no apply state; the stored record keeps
// settled, applyPhase and applyResult (issue 34: they were erased). A verdict
// of another wave replaces the record. cmd/recover's
// TestApplyInClusterWithNothingToApply holds the same through the commands.
func TestInspectAfterApplyKeepsTheApplyFields(t *testing.T) {
	ctx := context.Background()
	st := verdictstore.Store{Client: client(t), Namespace: "verdictstore-rerun", Name: verdict.DefaultName}
	applied := aVerdict()
	applied.SetApply(verdict.ApplyState{Phase: verdict.PhaseDone, Result: verdict.ResultCompleted, Step: "007-restore-cvo"})
	if err := st.Save(ctx, applied); err != nil {
		t.Fatal(err)
	}
	again := aVerdict()
	again.Apply, again.Settled = nil, false
	if err := st.Save(ctx, again); err != nil {
		t.Fatal(err)
	}
	cm, err := st.Client.CoreV1().ConfigMaps(st.Namespace).Get(ctx, st.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []verdict.Field{verdict.FieldSettled, verdict.FieldApplyPhase, verdict.FieldApplyResult} {
		if want := f.Value(applied); cm.Data[f.Name] != want {
			t.Errorf("after a second inspect %s = %q, want %q", f.Name, cm.Data[f.Name], want)
		}
	}
	if got, err := verdict.FromConfigMap(cm); err != nil || got.Apply == nil || got.Apply.Step != "007-restore-cvo" || !got.Settled {
		t.Errorf("the document after a second inspect: %+v %v", got, err)
	}
	next := aVerdict()
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
func largePlan(t *testing.T, seed uint64) *planfile.Plan {
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

func documentDigest(t *testing.T, p *planfile.Plan) string {
	t.Helper()
	var doc bytes.Buffer
	if err := planfile.Encode(&doc, p); err != nil {
		t.Fatal(err)
	}
	return planfile.Digest(doc.Bytes())
}
