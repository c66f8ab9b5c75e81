package main

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/openshift-recover/recover/apply/fleet/verdict"
	"github.com/openshift-recover/recover/apply/fleet/verdictstore"
	"github.com/openshift-recover/recover/apply/incluster"
	"github.com/openshift-recover/recover/apply/lock"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

// TestApplyInClusterWithNothingToApply: when the wave's plan ConfigMap keeps
// only why there is no plan (recover inspect --save-plan wrote it for a
// verdict whose answer is not plan), recover apply --in-cluster exits 0 with
// one line that says so (on stderr with JSON events), keeps result no-plan in
// the verdict without settling it, and takes no lock and writes no journal.
func TestApplyInClusterWithNothingToApply(t *testing.T) {
	env := apiServer(t, kubetest.Options{SkipCRDs: true})
	ctx := context.Background()
	kc := kubernetes.NewForConfigOrDie(env.Config)
	const ns, wave = "recover", "w1"
	// As inspect --verdict --save-plan stores them, the plan first: its
	// namespace is made (a run pushed from a hub finds none).
	store := verdictstore.Store{Client: kc, Namespace: ns, Name: verdict.DefaultName}
	reason := "the verdict's answer is refused: a guard PodDisruptionBudget is never relaxed"
	if d, err := store.SavePlan(ctx, wave, nil, reason); err != nil || d != "" {
		t.Fatalf("saving the reason: %q %v", d, err)
	}
	v := &verdict.Verdict{FormatVersion: verdict.FormatVersion, Wave: wave, Wedged: true,
		Remedy: verdict.Remedy{Answer: verdict.AnswerRefused, Reason: "a guard PodDisruptionBudget is never relaxed"}}
	if err := store.Save(ctx, v); err != nil {
		t.Fatal(err)
	}
	planCM := verdict.PlanConfigMapName(wave)
	args := []string{"--kubeconfig", env.Kubeconfig, "apply", "--in-cluster", "--namespace", ns, "--plan-configmap", planCM,
		"--verdict", "--verdict-namespace", ns, "--i-have-a-backup", "--yes"}
	want := "nothing to apply: ConfigMap " + ns + "/" + planCM + " holds no plan: " + reason + "\n"

	code, out, errOut := runRecover(t, args...)
	if code != ExitOK || out != want || errOut != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 0 and %q", code, out, errOut, want)
	}
	code, out, errOut = runRecover(t, append(args, "--events", "json")...)
	if code != ExitOK || out != "" || errOut != want {
		t.Fatalf("with JSON events: exit %d, stdout %q, stderr %q; want 0 and %q on stderr", code, out, errOut, want)
	}
	got, err := store.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if a := got.Apply; a == nil || a.Phase != verdict.PhaseDone || a.Result != verdict.ResultNoPlan || a.Message != strings.TrimSuffix(want, "\n") || got.Settled || got.Remedy.Answer != verdict.AnswerRefused {
		t.Errorf("verdict %+v, apply %+v", got, got.Apply)
	}
	cm, err := kc.CoreV1().ConfigMaps(ns).Get(ctx, verdict.DefaultName, metav1.GetOptions{})
	if err != nil || cm.Data[verdict.FieldApplyResult.Name] != verdict.ResultNoPlan || cm.Data[verdict.FieldSettled.Name] != "false" {
		t.Errorf("what a hub reads: %v %v", cm.Data, err)
	}
	// The verdict is one record per wave: inspect --verdict run again (a
	// verdict with no apply state) keeps what the apply run wrote (issue 34).
	again := &verdict.Verdict{FormatVersion: verdict.FormatVersion, Wave: wave, Wedged: true,
		Remedy: verdict.Remedy{Answer: verdict.AnswerRefused, Reason: "inspected again"}}
	if err := store.Save(ctx, again); err != nil {
		t.Fatal(err)
	}
	cm, err = kc.CoreV1().ConfigMaps(ns).Get(ctx, verdict.DefaultName, metav1.GetOptions{})
	if err != nil || cm.Data[verdict.FieldApplyResult.Name] != verdict.ResultNoPlan || cm.Data[verdict.FieldApplyPhase.Name] != string(verdict.PhaseDone) {
		t.Errorf("a second inspect erased the apply's fields: %v %v", cm.Data, err)
	}
	if exists, err := incluster.NewJournalStore(kc, ns, incluster.DefaultJournal(planCM)).Exists(ctx); err != nil || exists {
		t.Errorf("a journal was written (%v)", err)
	}
	if leases, err := kc.CoordinationV1().Leases(lock.Namespace).List(ctx, metav1.ListOptions{}); err != nil && !apierrors.IsNotFound(err) || err == nil && len(leases.Items) != 0 {
		t.Errorf("a lock was taken: %v %v", leases, err)
	}
}
