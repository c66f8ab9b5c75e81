package apply_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	configclient "github.com/openshift/client-go/config/clientset/versioned"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/live"
	"github.com/openshift-recover/recover/internal/lab/sim"
	"github.com/openshift-recover/recover/internal/testing/faultproxy"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
	"github.com/openshift-recover/recover/internal/testing/recoverbin"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/graph"
	"github.com/openshift-recover/recover/plan/planfile"
)

// TestCrashesDuringTheRealRecoveryOnTheSimulator is the first incident end to end
// with crashes: the simulator plays the wedged 4.3.19/4.4.3 cluster, the planner
// makes the real 4.4.4 plan, and `recover apply` (the built binary, through the
// audit proxy) is killed with SIGKILL three times, during the static pods'
// rollout, the machine-config rollout and the CVO's restore, each time resumed
// with --resume. The cluster must end at 4.4.4 (every ClusterOperator, every
// kubelet), the CVO running with 4.4.4 desired, the journal finished, and no
// create-only object created twice.
func TestCrashesDuringTheRealRecoveryOnTheSimulator(t *testing.T) {
	// Its own API server (Fresh): it runs beside the other tests that have one.
	t.Parallel()
	kubetest.Require(t, rootEnv)
	if testing.Short() {
		t.Skip("end to end on the simulator")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	root, err := kubetest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	fresh := ownServer(t)
	example := filepath.Join(root, "examples", "reconciled-4.3-to-4.4")
	s, err := sim.Run(ctx, fresh.Config, example, sim.Options{Timing: &sim.HeldTiming})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()

	// recover inspect once the cluster holds still, then recover plan.
	snap := heldStill(t, ctx, fresh.Config, nil)
	g, err := graph.Load(ctx, graph.Options{Graph: filepath.Join(example, "graph.json"), GraphData: filepath.Join(example, "graph-data"), Channel: "stable-4.4"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Make(ctx, plan.Options{Snapshot: snap, SnapshotSource: "live", Graph: g, Payload: plan.PayloadDir{Dir: filepath.Join(example, "releases", "4.4.4")}, Generator: "crash-test"})
	if err != nil {
		t.Fatalf("recover plan: %v", err)
	}
	dir := t.TempDir()
	planPath := filepath.Join(dir, "plan.json")
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(planPath, data, 0o600); err != nil {
		t.Fatal(err)
	}
	journalPath := filepath.Join(dir, "run.journal")
	lastHold := ""
	for _, st := range p.Steps {
		if st.Action == planfile.ActionDisableCVO || st.Action == planfile.ActionPausePool {
			lastHold = st.ID
		}
	}

	// Kill points, in plan order: as the first static-pods wait starts, right
	// after the master pool is unpaused (the machine-config rollout starts), and
	// while the CVO is being restored.
	field := func(ev map[string]any, obj, key string) string {
		m, _ := ev[obj].(map[string]any)
		v, _ := m[key].(string)
		return v
	}
	kills := []struct {
		name string
		at   func(ev map[string]any) bool
	}{
		{"a static-pods wait starting", func(ev map[string]any) bool {
			return ev["type"] == "step-started" && strings.Contains(stepOf(ev), "wait-static-pods")
		}},
		{"the master pool unpaused", func(ev map[string]any) bool {
			return ev["type"] == "applied" && field(ev, "step", "action") == string(planfile.ActionUnpausePool)
		}},
		{"the CVO being restored", func(ev map[string]any) bool {
			return ev["type"] == "cvo" && field(ev, "cvo", "state") == "restoring"
		}},
	}
	var logs []faultproxy.Entry
	var release sync.Once
	onEvent := func(ev map[string]any) {
		if (ev["type"] == "step-done" || ev["type"] == "skipped") && stepOf(ev) == lastHold {
			release.Do(func() { s.SetTiming(sim.FastTiming) })
		}
	}
	args := []string{"apply", "--plan", planPath, "--journal", journalPath, "--yes", "--i-have-a-backup", "--allow-stale", "--events", "json"}
	for i, k := range kills {
		proxy, kc := auditProxyFor(t, fresh.Config, dir, fmt.Sprintf("run%d", i), nil)
		var mu sync.Mutex
		var victim *os.Process
		var once sync.Once
		killed := make(chan struct{})
		cmd, done, stderr := startRecover(t, func(ev map[string]any) {
			onEvent(ev)
			if !k.at(ev) {
				return
			}
			once.Do(func() {
				mu.Lock()
				pr := victim
				mu.Unlock()
				_ = pr.Kill()
				waitDead(pr.Pid)
				close(killed)
			})
		}, append([]string{"--kubeconfig", kc}, args...)...)
		mu.Lock()
		victim = cmd.Process
		mu.Unlock()
		err = <-done
		logs = append(logs, proxy.Log()...)
		proxy.Close()
		select {
		case <-killed:
			t.Logf("crash %d: killed with %s", i+1, k.name)
		case <-time.After(10 * time.Second):
			t.Fatalf("crash %d: the run ended (exit %d) before %s: %s", i+1, recoverbin.ExitCode(err), k.name, stderr.String())
		}
		args = []string{"apply", "--resume", journalPath, "--yes", "--events", "json"}
	}
	proxy, kc := auditProxyFor(t, fresh.Config, dir, "final", nil)
	_, done, stderr := startRecover(t, onEvent, append([]string{"--kubeconfig", kc}, args...)...)
	if err := <-done; err != nil {
		t.Fatalf("final resume: exit %d: %s", recoverbin.ExitCode(err), stderr.String())
	}
	logs = append(logs, proxy.Log()...)
	proxy.Close()

	st := mustLoad(t, journalPath).State()
	if !st.Finished || st.CVO.Disabled || st.Runs != len(kills)+1 {
		t.Errorf("journal: finished %v, CVO %+v, %d runs", st.Finished, st.CVO, st.Runs)
	}
	assertGatesBeforeDone(t, journalPath, p)
	for _, step := range p.Steps {
		if ss := st.Step(step.ID); step.Manifest != nil && step.Manifest.CreateOnly && ss != nil && ss.Mutations > 1 {
			t.Errorf("create-only step %s changed the cluster %d times", step.ID, ss.Mutations)
		}
	}
	creates := map[string]int{}
	for _, e := range logs {
		if e.Method == "POST" && e.Forwarded && !e.DryRun && e.Status < 300 && e.Name != "" {
			creates[e.Path+"/"+e.Name]++
		}
	}
	for obj, n := range creates {
		if n > 1 {
			t.Errorf("%s was created %d times", obj, n)
		}
	}
	config := configclient.NewForConfigOrDie(fresh.Config)
	cos, err := config.ConfigV1().ClusterOperators().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, co := range cos.Items {
		reported := ""
		for _, v := range co.Status.Versions {
			if v.Name == "operator" {
				reported = v.Version
			}
		}
		if reported != "4.4.4" {
			t.Errorf("ClusterOperator %s reports %q after the crashes, want 4.4.4", co.Name, reported)
		}
	}
	nodes, err := kubernetes.NewForConfigOrDie(fresh.Config).CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes.Items {
		if n.Status.NodeInfo.KubeletVersion != "v1.17.1" {
			t.Errorf("node %s runs kubelet %s, want 4.4.4's v1.17.1", n.Name, n.Status.NodeInfo.KubeletVersion)
		}
	}
	cv, err := config.ConfigV1().ClusterVersions().Get(ctx, "version", metav1.GetOptions{})
	if err != nil || cv.Spec.DesiredUpdate == nil || cv.Spec.DesiredUpdate.Version != "4.4.4" {
		t.Errorf("ClusterVersion desiredUpdate after the run: %+v (%v)", cv.Spec.DesiredUpdate, err)
	}
	d, err := kubernetes.NewForConfigOrDie(fresh.Config).AppsV1().Deployments("openshift-cluster-version").Get(ctx, "cluster-version-operator", metav1.GetOptions{})
	if err != nil || d.Spec.Replicas == nil || *d.Spec.Replicas < 1 {
		t.Errorf("the CVO must run again after the last resume: %v", err)
	}
}

// heldStill is recover inspect once the simulated cluster holds still: two
// live snapshots in a row with the same fingerprint (and, when ready is set,
// the second one ready). It fails the test if the context ends first.
func heldStill(t *testing.T, ctx context.Context, cfg *rest.Config, ready func(*inspect.Snapshot) bool) *inspect.Snapshot {
	t.Helper()
	var snap *inspect.Snapshot
	err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		src, err := live.New(cfg, live.Options{})
		if err != nil {
			return false, err
		}
		next, err := src.Collect(ctx)
		if err != nil {
			return false, err
		}
		same := snap != nil && snap.Fingerprint() == next.Fingerprint() && (ready == nil || ready(next))
		snap = next
		return same, nil
	})
	if err != nil {
		t.Fatalf("the cluster never held still: %v", err)
	}
	return snap
}
