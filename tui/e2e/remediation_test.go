package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/live"
	"github.com/openshift-recover/recover/internal/lab/sim"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/tui"
	"github.com/openshift-recover/recover/tui/dialog"
	"github.com/openshift-recover/recover/tui/state"
	"github.com/openshift-recover/recover/tui/styles"
)

// TestProgramAppliesTheRemediationPlan runs the real program on the simulated
// W1 wedge (examples/pdb-blocks-drain: PodDisruptionBudget ci/deck refuses the
// evictions of worker-1's and worker-2's drains). The session's plan is the one
// recover tui makes without a graph (plan.Make: remediation only). The test
// confirms every change with y, as a person would: the PDB is relaxed to
// minAvailable 0 and the header names it while it is; the drains complete; the
// revert step restores the PDB exactly as it was, and the header forgets it.
func TestProgramAppliesTheRemediationPlan(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	kubetest.Require(t, env)
	root, err := kubetest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	fresh := env.ForTest(t)
	s, err := sim.Run(ctx, fresh.Config, filepath.Join(root, "examples", "pdb-blocks-drain"), sim.Options{Timing: &sim.FastTiming})
	if err != nil {
		t.Fatalf("starting the scenario: %v", err)
	}
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			for _, e := range s.Events() {
				t.Log(e.String())
			}
		}
	})
	kube := kubernetes.NewForConfigOrDie(fresh.Config)
	pdb := func() *policyv1.PodDisruptionBudget {
		t.Helper()
		p, err := kube.PolicyV1().PodDisruptionBudgets("ci").Get(ctx, "deck", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	before := pdb().Spec

	// recover tui (no --graph): once the disruption controller holds the
	// budget at its limit, the snapshot shows the wedge and the planner makes
	// the remediation plan.
	var p *planfile.Plan
	poll(ctx, t, "the remediation plan for the held drain", func() (bool, string) {
		snap := collect(ctx, t, fresh.Config)
		d := plan.Decide(snap, plan.DecideInput{})
		if d.Outcome.Kind != planfile.OutcomeRemediation {
			return false, "no remedial wedge yet"
		}
		made, err := plan.Make(ctx, plan.Options{Snapshot: snap, Decision: d, Generator: "e2e"})
		if err != nil {
			return false, err.Error()
		}
		for _, r := range made.Remediations {
			if r.Remedy == planfile.RemedyRelaxPDB && r.Subject == "poddisruptionbudget/ci/deck" {
				p = made
				return true, ""
			}
		}
		return false, "no relax-pdb remediation"
	})
	if p.Mode != planfile.ModeRemediation {
		t.Fatalf("plan mode %q", p.Mode)
	}
	dir := t.TempDir()
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	planPath := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(planPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	lp, digest, err := planfile.Load(planPath)
	if err != nil {
		t.Fatal(err)
	}
	var relax, revert string
	for _, st := range lp.Steps {
		switch st.Action {
		case planfile.ActionRelaxPDB:
			relax = st.ID
		case planfile.ActionRevert:
			revert = st.ID
		}
	}

	cfg := rest.CopyConfig(fresh.Config)
	cfg.WarningHandler = rest.NoWarnings{}
	engine, err := apply.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	session := &tui.Session{
		Source: "live " + fresh.Config.Host, Plan: lp, PlanPath: planPath, PlanDigest: digest, Engine: engine,
		Options: apply.Options{JournalPath: filepath.Join(dir, "run.journal"), AllowStale: true, IHaveABackup: true, Heartbeat: time.Second},
	}
	m := tui.New(session, tui.Options{Styles: styles.Plain(), Context: ctx})
	pr := newProbe(m)
	tm := teatest.NewTestModel(t, pr, teatest.WithInitialTermSize(100, 30))
	tm.Send(key("4"))
	tm.Send(key("a"))
	pr.wait(ctx, t, "the start dialog", func(s tui.State) bool { return s.Dialog == dialog.Start })
	tm.Send(key("y"))

	relaxed, retries := false, 0
	for {
		st := pr.wait(ctx, t, "a question or the end", func(s tui.State) bool { return s.Pending != nil || s.Phase == state.Finished })
		if st.Phase == state.Finished {
			break
		}
		req := st.Pending
		if req.Step.ID == revert {
			// Before its revert, the relaxed budget is in the cluster and on
			// the screen.
			if spec := pdb().Spec; spec.MinAvailable == nil || spec.MinAvailable.IntValue() != 0 {
				t.Errorf("before the revert the PDB is %+v, want minAvailable 0", spec)
			}
			if len(st.Temporary) != 1 || !strings.Contains(st.Temporary[0], "PodDisruptionBudget ci/deck relaxed by step") {
				t.Errorf("before the revert the header shows %q", st.Temporary)
			}
			relaxed = true
		}
		switch req.Kind {
		case apply.RequestStep:
			if req.Step.ID == relax && (req.Change == nil || len(req.Change.Fields) == 0) {
				t.Errorf("the relax question carries no field change: %+v", req.Change)
			}
			tm.Send(key("y"))
		default:
			if retries++; retries > 5 {
				t.Fatalf("the engine asked %s about %s %d times: %s", req.Kind, req.Step.ID, retries, req.Message)
			}
			t.Logf("retrying %s after: %s", req.Step.ID, req.Message)
			tm.Send(key("r"))
		}
		pr.wait(ctx, t, "the answer", func(s tui.State) bool { return s.Pending != req })
	}
	st := pr.wait(ctx, t, "the result", func(s tui.State) bool { return s.Result != nil })
	if st.Result.Outcome != apply.OutcomeCompleted || st.Result.CVODisabled {
		t.Fatalf("result %+v", st.Result)
	}
	if !relaxed {
		t.Fatal("the run never asked about the revert step")
	}
	if len(st.Temporary) != 0 {
		t.Errorf("after the run the header still shows %q", st.Temporary)
	}
	after := pdb().Spec
	if !specEqual(before, after) {
		t.Errorf("the PDB is not restored exactly: before %+v, after %+v", before, after)
	}
	snap := collect(ctx, t, fresh.Config)
	if fs := snap.FindingsWithCode(inspect.CodeDrainBlockedByPDB); len(fs) != 0 {
		t.Errorf("after the run inspect still finds %v", fs)
	}
	tm.Send(key("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(time.Minute))
	m.Close()
	if pr.bad != "" {
		t.Error(pr.bad)
	}
}

func collect(ctx context.Context, t *testing.T, cfg *rest.Config) *inspect.Snapshot {
	t.Helper()
	src, err := live.New(cfg, live.Options{})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := src.Collect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func poll(ctx context.Context, t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	last := ""
	err := wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(context.Context) (bool, error) {
		ok, detail := cond()
		last = detail
		return ok, nil
	})
	if err != nil {
		t.Fatalf("%s: never happened (%v); last: %s", what, err, last)
	}
}

func specEqual(a, b policyv1.PodDisruptionBudgetSpec) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
