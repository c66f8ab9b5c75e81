package verdict

import (
	"bytes"
	"reflect"
	"regexp"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/internal/testing/fleetengines"
	"github.com/openshift-recover/recover/plan/planconfigmap"
	"github.com/openshift-recover/recover/plan/planfile"
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

// TestMergeKeepsTheRunOfTheWave: the record written over a stored one is the
// new verdict, except that an apply run's state of the same wave outlives a
// verdict without one (inspect --verdict run again after the apply), with
// what the run settled.
func TestMergeKeepsTheRunOfTheWave(t *testing.T) {
	done := sampleVerdict()
	done.SetApply(ApplyState{Phase: PhaseDone, Result: ResultCompleted})
	inspected := func() *Verdict { v := sampleVerdict(); v.Apply, v.Settled = nil, false; return v }
	if got := Merge(done, inspected()); got.Apply == nil || got.Apply.Result != ResultCompleted || !got.Settled || FieldApplyPhase.Value(got) != "done" {
		t.Errorf("inspect after a completed run of its wave: %+v", got)
	}
	other := inspected()
	other.Wave = "w8"
	running := sampleVerdict()
	for name, next := range map[string]*Verdict{"another wave": other, "a run's own state": running} {
		if got := Merge(done, next); got != next {
			t.Errorf("%s: the stored run's state was kept: %+v", name, got)
		}
	}
	if v := inspected(); Merge(nil, v) != v {
		t.Error("nothing stored: the record is not the new verdict")
	}
}

// TestPlanConfigMaps: a wave's plan ConfigMaps hold the plan document's bytes
// (the digest the verdict names) under the wave's name and label; a wave
// without a plan gets the one ConfigMap that says why.
func TestPlanConfigMaps(t *testing.T) {
	p := applytest.NewPlan().DisableCVO().RestoreCVO().Plan()
	objs, err := PlanConfigMaps("recover", "w7", p, "")
	if err != nil {
		t.Fatal(err)
	}
	var doc bytes.Buffer
	if err := planfile.Encode(&doc, p); err != nil {
		t.Fatal(err)
	}
	head := objs[0]
	if head.Name != PlanConfigMapName("w7") || head.Namespace != "recover" || planconfigmap.Digest(head) != planfile.Digest(doc.Bytes()) {
		t.Errorf("the head %s/%s holds digest %q, want %q", head.Namespace, head.Name, planconfigmap.Digest(head), planfile.Digest(doc.Bytes()))
	}
	none, err := PlanConfigMaps("recover", "", nil, "answer none")
	if err != nil || len(none) != 1 || none[0].Name != "recover-plan" || none[0].Data[planconfigmap.ReasonKey] != "answer none" {
		t.Fatalf("no plan: %v %+v", err, none)
	}
	for wave, cms := range map[string][]*corev1.ConfigMap{"w7": objs, "": none} {
		for _, cm := range cms {
			if cm.Labels["app.kubernetes.io/component"] != "plan" || cm.Labels[WaveLabel] != wave {
				t.Errorf("%s: labels %v, want wave %q", cm.Name, cm.Labels, wave)
			}
		}
	}
}
