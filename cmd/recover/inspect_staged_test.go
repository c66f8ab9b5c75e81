package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes"

	"github.com/openshift-recover/recover/apply/fleet/verdict"
	"github.com/openshift-recover/recover/apply/fleet/verdictstore"
	"github.com/openshift-recover/recover/apply/incluster"
	"github.com/openshift-recover/recover/internal/lab/sim"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
	"github.com/openshift-recover/recover/plan/planfile"
)

// TestInspectSavesTheStagedPlanInTheCluster is a staged fleet wave's inspect
// Job on a real kube-apiserver holding the incident-2 cluster: recover
// inspect --verdict --save-plan --to 4.6.1 --eus stores, in the wave's plan
// ConfigMap, the staged plan recover plan --to 4.6.1 --eus makes from the
// same graph and payload (three stages, the workers paused across 4.5), and
// the verdict answers plan with its digest, not settled. recover apply
// --in-cluster then reads it and refuses --until-stage 4 (bad input, exit 4,
// before anything runs); --to without --save-plan and the graph flags
// without --to are usage errors.
func TestInspectSavesTheStagedPlanInTheCluster(t *testing.T) {
	env := apiServer(t, kubetest.Options{})
	ctx := context.Background()
	scn, err := sim.LoadScenario(filepath.Dir(incident2MG))
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(env.Config, scn, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Load(ctx); err != nil {
		t.Fatal(err)
	}
	const ns, wave = "recover", "eus1"
	graphFile := writeStagedGraph(t, "[0,1],[1,2],[1,3],[2,4]")
	cache := t.TempDir()
	args := []string{"--kubeconfig", env.Kubeconfig, "inspect", "--verdict", "--verdict-namespace", ns, "--wave", wave, "--save-plan",
		"--accept", "force-redeployment:kube-apiserver", "--to", "4.6.1", "--eus",
		"--graph", graphFile, "--payload", exampleDir + "/releases/4.4.4", "--payload-cache-dir", cache}
	code, out, errOut := runRecover(t, args...)
	if code != ExitOK {
		t.Fatalf("inspect --save-plan --to: exit %d: %s\n%s", code, errOut, out)
	}
	kc := kubernetes.NewForConfigOrDie(env.Config)
	p, digest, _, err := incluster.LoadPlan(ctx, kc, ns, verdict.PlanConfigMapName(wave))
	if err != nil {
		t.Fatalf("the stored plan: %v", err)
	}
	if p.Goal != "4.6.1" || len(p.Stages) != 3 || p.Stages[1].To != "4.5.1" || p.Stages[1].Workers != planfile.WorkersPaused {
		t.Fatalf("the stored plan: goal %s, stages %+v", p.Goal, p.Stages)
	}
	v, err := (&verdictstore.Store{Client: kc, Namespace: ns, Name: verdict.DefaultName}).Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v.Wave != wave || v.Remedy.Answer != verdict.AnswerPlan || v.Remedy.PlanDigest != digest || v.Settled || !strings.Contains(v.Remedy.Reason, "a staged plan to 4.6.1") {
		t.Errorf("verdict: wave %s, settled %v, remedy %+v (stored digest %s)", v.Wave, v.Settled, v.Remedy, digest)
	}

	// The stage Jobs' recover apply reads that plan: a stage it does not
	// have is bad input, before any lock or journal.
	applyArgs := []string{"--kubeconfig", env.Kubeconfig, "apply", "--in-cluster", "--namespace", ns, "--plan-configmap", verdict.PlanConfigMapName(wave),
		"--i-have-a-backup", "--yes", "--until-stage", "4"}
	code, _, errOut = runRecover(t, applyArgs...)
	if code != ExitBadInput || !strings.Contains(errOut, "--until-stage 4: the plan has stages 1 to 3") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
		t.Errorf("--until-stage 4 of a 3-stage plan: exit %d %q", code, errOut)
	}

	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--verdict", "--to", "4.6.1"}, "pass --save-plan with it"},
		{[]string{"--verdict", "--save-plan", "--graph", graphFile}, "pass --to GOAL with them"},
		{[]string{"--verdict", "--save-plan", "--eus"}, "--eus needs --to"},
		{[]string{"--to", "4.6.1"}, "go with --verdict"},
	} {
		code, _, errOut := runRecover(t, append([]string{"--kubeconfig", env.Kubeconfig, "inspect"}, tc.args...)...)
		if code != ExitUsage || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%v: exit %d %q, want %d with %q", tc.args, code, errOut, ExitUsage, tc.msg)
		}
	}
}

// TestApplyUntilStageFlags: --until-stage is checked against the plan before
// the cluster is reached: with --until-step it is a usage error (exit 2); on
// a plan without stages, or a stage the plan does not have, bad input (exit
// 4); each one line.
func TestApplyUntilStageFlags(t *testing.T) {
	dir := t.TempDir()
	onehop := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(onehop, planJSON(t, nil), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runRecover(t, "plan", "--must-gather", incident2MG, "--graph", writeStagedGraph(t, "[0,1],[1,2],[1,3],[2,4]"), "--payload", exampleDir+"/releases/4.4.4",
		"--accept", "force-redeployment:kube-apiserver", "--to", "4.6.1", "--eus", "-o", "json")
	if code != ExitOK {
		t.Fatalf("plan --to: exit %d %s", code, errOut)
	}
	staged := filepath.Join(dir, "staged.json")
	if err := os.WriteFile(staged, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--plan", staged, "--until-stage", "1", "--until-step", "x"}, ExitUsage, "--until-stage 1 and --until-step x both say where to stop: pass one"},
		{[]string{"--plan", staged, "--until-stage", "-1"}, ExitUsage, "stages are numbered from 1"},
		{[]string{"--plan", staged, "--until-stage", "4"}, ExitBadInput, "--until-stage 4: the plan has stages 1 to 3"},
		{[]string{"--plan", onehop, "--until-stage", "1"}, ExitBadInput, "--until-stage 1: the plan has no stages"},
	} {
		code, _, errOut := runRecover(t, append([]string{"apply", "--yes", "--i-have-a-backup", "--kubeconfig", filepath.Join(dir, "absent")}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d %q, want %d with %q", tc.args, code, errOut, tc.code, tc.msg)
		}
	}
}
