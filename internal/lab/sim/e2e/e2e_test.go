package e2e_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	mcfgclient "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
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
	"github.com/openshift-recover/recover/plan/graph"
	"github.com/openshift-recover/recover/plan/planfile"
)

var env *kubetest.Env

func TestMain(m *testing.M) {
	kubetest.Main(m, kubetest.Options{Workloads: true}, &env)
}

// cluster is one example scenario on its own API server.
type cluster struct {
	t    *testing.T
	ctx  context.Context
	cfg  *rest.Config
	root string
	sim  *sim.Sim
	// kubeconfig is the API server's kubeconfig file (for the recover binary);
	// dir the test's working directory (plans, journals).
	kubeconfig, dir string
}

// load starts a fresh API server and loads the example's must-gather into it, then
// starts the simulator with the CVO and the machine-config daemons held
// (sim.HeldTiming: a real CVO took 5m45s to load 4.4.3's payload in the first
// incident), so the cluster holds still while it is inspected and planned.
func load(t *testing.T, example string) *cluster {
	t.Helper()
	kubetest.Require(t, env)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	t.Cleanup(cancel)
	root, err := kubetest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	fresh := env.ForTest(t)
	opts := sim.Options{Timing: &sim.HeldTiming}
	if os.Getenv("RECOVER_SIM_EVENTS") != "" {
		opts.Out = os.Stderr // watch the simulator while a test runs
	}
	s, err := sim.Run(ctx, fresh.Config, filepath.Join(root, "examples", example), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			for _, e := range s.Events() {
				t.Log(e.String())
			}
		}
	})
	return &cluster{t: t, ctx: ctx, cfg: fresh.Config, root: root, sim: s, kubeconfig: fresh.Kubeconfig, dir: t.TempDir()}
}

// settled is `recover inspect` once the cluster holds still: the operators' pods
// have started on the simulated kubelets and the pools' status is recomputed, so
// two snapshots in a row have the same fingerprint (what apply's staleness check
// compares), and the simulator has recorded nothing for quietFor. Equal
// fingerprints alone are not enough on a loaded machine: a controller that has
// not reacted yet (the node controller choosing the next node of a pool) changes
// the cluster after both snapshots, and apply's preflight then refuses the plan
// as stale.
func (c *cluster) settled() *inspect.Snapshot {
	c.t.Helper()
	const quietFor = 2 * time.Second
	var last *inspect.Snapshot
	lastSeq := -1
	c.eventually("the cluster holds still", func() (bool, string, error) {
		snap := c.snapshot()
		events := c.sim.Events()
		seq, quiet := 0, true
		if len(events) > 0 {
			e := events[len(events)-1]
			seq, quiet = e.Seq, time.Since(e.Time) >= quietFor
		}
		same := last != nil && last.Fingerprint() == snap.Fingerprint() && seq == lastSeq
		last, lastSeq = snap, seq
		return same && quiet, fmt.Sprintf("%s after simulator event %d", snap.Fingerprint(), seq), nil
	})
	return last
}

// snapshot is `recover inspect` against the live cluster.
func (c *cluster) snapshot() *inspect.Snapshot {
	c.t.Helper()
	src, err := live.New(c.cfg, live.Options{})
	if err != nil {
		c.t.Fatal(err)
	}
	snap, err := src.Collect(c.ctx)
	if err != nil {
		c.t.Fatal(err)
	}
	return snap
}

// plan is `recover plan` with the first incident's graph, graph-data and 4.4.4
// payload, as the scenarios' try lines give them.
func (c *cluster) plan(snap *inspect.Snapshot) *planfile.Plan {
	c.t.Helper()
	ex := filepath.Join(c.root, "examples", "reconciled-4.3-to-4.4")
	g, err := graph.Load(c.ctx, graph.Options{Graph: filepath.Join(ex, "graph.json"), GraphData: filepath.Join(ex, "graph-data"), Channel: "stable-4.4"})
	if err != nil {
		c.t.Fatal(err)
	}
	// The push plan: where the decision would keep the CVO at the wheel (the
	// second incident is an update in progress), these tests play the admin
	// who asks for it (recover plan --take-over).
	takeOver := ""
	if !plan.Decide(snap, plan.DecideInput{}).Outcome.Kind.NeedsRelease() {
		takeOver = "e2e: the push plan of an update in progress"
	}
	p, err := plan.Make(c.ctx, plan.Options{Snapshot: snap, SnapshotSource: "live", Graph: g, Payload: plan.PayloadDir{Dir: filepath.Join(ex, "releases", "4.4.4")}, Generator: "e2e", TakeOver: takeOver})
	if err != nil {
		c.t.Fatalf("recover plan: %v", err)
	}
	return p
}

// apply is `recover apply --plan plan.json --i-have-a-backup --yes`. Once the run
// has disabled the CVO and paused the pools, the simulator is let go
// (sim.FastTiming).
func (c *cluster) apply(p *planfile.Plan, timeouts map[planfile.GateKind]time.Duration) (*apply.Result, []apply.Event) {
	c.t.Helper()
	eng, err := apply.New(c.cfg)
	if err != nil {
		c.t.Fatal(err)
	}
	lastHold := ""
	for _, st := range p.Steps {
		if st.Action == planfile.ActionDisableCVO || st.Action == planfile.ActionPausePool {
			lastHold = st.ID
		}
	}
	var mu sync.Mutex
	var events []apply.Event
	released := false
	res, err := eng.Execute(c.ctx, p, apply.Options{
		JournalPath:  filepath.Join(c.t.TempDir(), "run.journal"),
		IHaveABackup: true,
		Decider:      apply.AutoDecider{},
		Timeouts:     timeouts,
		Heartbeat:    -1,
		Fingerprint: func(ctx context.Context) (string, error) {
			src, err := live.New(c.cfg, live.Options{})
			if err != nil {
				return "", err
			}
			snap, err := src.Collect(ctx)
			if err != nil {
				return "", err
			}
			return snap.Fingerprint(), nil
		},
	}, func(e apply.Event) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, e)
		if os.Getenv("RECOVER_E2E_DEBUG") != "" {
			id := ""
			if e.Step != nil {
				id = e.Step.ID
			}
			fmt.Fprintf(os.Stderr, "APPLY %s %s %s %s\n", time.Now().Format("15:04:05.000"), e.Type, id, e.Message)
		}
		if !released && e.Type == apply.EventStepDone && e.Step != nil && e.Step.ID == lastHold {
			released = true
			c.sim.SetTiming(sim.FastTiming)
		}
	})
	if res == nil {
		c.t.Fatalf("recover apply returned no result: %v", err)
	}
	return res, events
}

func (c *cluster) eventually(what string, cond func() (bool, string, error)) {
	c.t.Helper()
	last := ""
	err := wait.PollUntilContextCancel(c.ctx, 200*time.Millisecond, true, func(context.Context) (bool, error) {
		ok, detail, err := cond()
		last = detail
		return ok, err
	})
	if err != nil {
		c.t.Fatalf("%s: never happened (%v); last seen: %s", what, err, last)
	}
}

func condition(conds []configv1.ClusterOperatorStatusCondition, t configv1.ClusterStatusConditionType) configv1.ConditionStatus {
	for _, c := range conds {
		if c.Type == t {
			return c.Status
		}
	}
	return ""
}

func operatorVersion(co *configv1.ClusterOperator) string {
	for _, v := range co.Status.Versions {
		if v.Name == "operator" {
			return v.Version
		}
	}
	return ""
}

// TestReconciledIncidentRecoversTo444 is the first incident end to end: inspect,
// plan and apply --yes bring the cluster that the CVO reconciled out of order to
// 4.4.4, every operator and kubelet at the target, the pools unpaused, and the CVO
// back at its replicas with 4.4.4 desired, which it then rolls out in order and
// records as Completed.
func TestReconciledIncidentRecoversTo444(t *testing.T) {
	t.Parallel()
	c := load(t, "reconciled-4.3-to-4.4")
	snap := c.settled()
	if mode := snap.CVOMode(); mode != inspect.ModeReconciling {
		t.Fatalf("inspect says a restarted CVO would run in %s mode; the scenario is a Reconciling wedge", mode)
	}
	p := c.plan(snap)
	if p.Target.Version != "4.4.4" {
		t.Fatalf("plan target %s, want 4.4.4 (4.3.19 -> 4.4.3 is blocked)", p.Target.Version)
	}
	res, _ := c.apply(p, nil)
	if res.Outcome != apply.OutcomeCompleted {
		t.Fatalf("recover apply: %s: %s (%s); stopped at %s", res.Outcome, res.Message, res.Error, res.StoppedAt)
	}

	config := configclient.NewForConfigOrDie(c.cfg)
	cos, err := config.ConfigV1().ClusterOperators().List(c.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, co := range cos.Items {
		if v := operatorVersion(&co); v != "4.4.4" || condition(co.Status.Conditions, configv1.OperatorAvailable) != configv1.ConditionTrue || condition(co.Status.Conditions, configv1.OperatorDegraded) == configv1.ConditionTrue {
			t.Errorf("ClusterOperator %s after the run: version %s, Available=%s, Degraded=%s", co.Name, v,
				condition(co.Status.Conditions, configv1.OperatorAvailable), condition(co.Status.Conditions, configv1.OperatorDegraded))
		}
	}
	kube := kubernetes.NewForConfigOrDie(c.cfg)
	nodes, err := kube.CoreV1().Nodes().List(c.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes.Items {
		if n.Status.NodeInfo.KubeletVersion != "v1.17.1" {
			t.Errorf("node %s kubelet %s, want 4.4.4's v1.17.1", n.Name, n.Status.NodeInfo.KubeletVersion)
		}
	}
	pools, err := mcfgclient.NewForConfigOrDie(c.cfg).MachineconfigurationV1().MachineConfigPools().List(c.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, pool := range pools.Items {
		if pool.Spec.Paused {
			t.Errorf("pool %s is still paused after the run", pool.Name)
		}
	}
	cvo, err := kube.AppsV1().Deployments("openshift-cluster-version").Get(c.ctx, "cluster-version-operator", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cvo.Spec.Replicas == nil || *cvo.Spec.Replicas != 1 {
		t.Errorf("the CVO's replicas after the run: %v, want the original 1", cvo.Spec.Replicas)
	}
	cv, err := config.ConfigV1().ClusterVersions().Get(c.ctx, "version", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if du := cv.Spec.DesiredUpdate; du == nil || du.Version != "4.4.4" || du.Image != p.Target.Image {
		t.Errorf("desiredUpdate after the run: %+v, want 4.4.4 %s", du, p.Target.Image)
	}
	// The restored CVO rolls 4.4.4 out in order and records it as Completed.
	c.eventually("history[0] Completed for 4.4.4", func() (bool, string, error) {
		cv, err := config.ConfigV1().ClusterVersions().Get(c.ctx, "version", metav1.GetOptions{})
		if err != nil || len(cv.Status.History) == 0 {
			return false, "", err
		}
		h := cv.Status.History[0]
		return h.Version == "4.4.4" && h.State == configv1.CompletedUpdate, fmt.Sprintf("%s %s", h.State, h.Version), nil
	})
	for _, e := range c.sim.Events() {
		if m := e.Manifest; m != nil && m.Version == "4.4.4" {
			if m.Mode != sim.ModeUpdating {
				t.Errorf("the restored CVO first applied 4.4.4 in %s mode, want Updating (run-level order): %s", m.Mode, e)
			}
			break
		}
	}
}

// TestFalseSuccessIncidentStopsAtTheStaticPodGate is the second incident end to
// end: the kube-apiserver operator claims revision 9 everywhere while master-2 runs
// 8. apply --yes must not pass the static-pod gate on the claim: it stops there and
// names master-2.
func TestFalseSuccessIncidentStopsAtTheStaticPodGate(t *testing.T) {
	t.Parallel()
	c := load(t, "false-success-revision")
	snap := c.settled()
	p := c.plan(snap)
	var gateStep string
	for _, st := range p.Steps {
		if st.Gate != nil && st.Gate.Kind == planfile.GateStaticPods && st.Gate.StaticPods != nil && st.Gate.StaticPods.Resource == "kubeapiservers" {
			gateStep = st.ID
		}
	}
	if gateStep == "" {
		t.Fatalf("the plan has no static-pods gate for the kube-apiserver; steps: %d", len(p.Steps))
	}
	res, events := c.apply(p, map[planfile.GateKind]time.Duration{planfile.GateStaticPods: 20 * time.Second})
	if res.Outcome != apply.OutcomeGateFailed || res.StoppedAt != gateStep {
		t.Fatalf("recover apply: %s at %q (%s), want gate-failed at %s", res.Outcome, res.StoppedAt, res.Message, gateStep)
	}
	t.Logf("recover apply stopped: %s", res.Message)
	if !strings.Contains(res.Message, "master-2") {
		t.Errorf("the failed gate does not say which node is behind: %s", res.Message)
	}
	failed := false
	for _, e := range events {
		if e.Type == apply.EventGateFailed && e.Step != nil && e.Step.ID == gateStep {
			failed = true
		}
	}
	if !failed {
		t.Errorf("no gate-failed event for %s", gateStep)
	}
	if !res.CVODisabled {
		t.Errorf("a run stopped at a gate must leave the CVO disabled (resumable), result: %+v", res)
	}
}

// cvoKeepsTheWheel: the scenario's CVO is updating, so the plan recover makes
// for it never stops it (no disable-cvo, no restore-cvo) and says why: the
// decision keeps the CVO at the wheel unless the admin asks (--take-over).
func cvoKeepsTheWheel(t *testing.T, p *planfile.Plan) {
	t.Helper()
	for _, st := range p.Steps {
		if st.Action == planfile.ActionDisableCVO || st.Action == planfile.ActionRestoreCVO {
			t.Fatalf("the plan for an updating CVO has %s (step %s)", st.Action, st.ID)
		}
	}
	if p.Outcome == nil || p.Outcome.Kind != planfile.OutcomeRemediation || !strings.Contains(p.Outcome.Why, "with the CVO left running") {
		t.Fatalf("the plan's outcome %+v, want a remediation with the CVO left running", p.Outcome)
	}
}
