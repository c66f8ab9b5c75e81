package apply_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	configclient "github.com/openshift/client-go/config/clientset/versioned"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/lab/sim"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
	"github.com/openshift-recover/recover/internal/testing/realpayload"
	"github.com/openshift-recover/recover/internal/testing/recoverbin"
	"github.com/openshift-recover/recover/internal/testing/shareddata"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/graph"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The EUS path of issue 33's acceptance: a 4.18.9 cluster (the
// admin-ack-required example's must-gather, its admin gates acknowledged) goes
// to 4.20.4 through 4.19.17 with its worker pool paused across 4.19. The
// releases are the real 4.18, 4.19 and 4.20 payloads of ../shared/realdata,
// rendered as oc adm release new renders them (realpayload.ServedRendered),
// each cut to the components the simulated cluster runs operators for: the
// CVO's own manifests, the kube-apiserver operator's (the control plane a
// kubelet may not pass) and the machine-config operator's (whose
// ClusterOperator is a stage's last gate). Image pull specs are substituted
// as oc does, from the components' image-references.
var eusReleases = []struct {
	version, image, dir, kube string
}{
	{"4.18.9", "quay.io/openshift-release-dev/ocp-release@sha256:9a8cf892aecac946687d2ccbdbcca8c3e2aa35fc24a6cec77aebceb006f2a908", "payload-release-4.18", "1.31.7"},
	{"4.19.17", "quay.io/openshift-release-dev/ocp-release@sha256:4190000000000000000000000000000000000000000000000000000000000017", "payload-release-4.19", "1.32.9"},
	{"4.20.4", "quay.io/openshift-release-dev/ocp-release@sha256:4200000000000000000000000000000000000000000000000000000000000004", "payload-release-4.20", "1.33.5"},
}

// eusComponents are the release-manifests kept of each real payload: the
// components the scenario's cluster runs operators for.
var eusComponents = []string{"0000_00_cluster-version-operator_", "0000_20_kube-apiserver-operator_0", "0000_80_machine-config_0"}

// eusImageRefs are the operator-image-references of the components kept:
// oc adm release new replaces each tag's source pull spec in the manifests
// with the release's image for the tag.
var eusImageRefs = []string{"cluster-kube-apiserver-operator", "machine-config-operator"}

// eusSkip are files of those components left out: the SecurityContextConstraints
// (openshift-apiserver serves them, not a CRD), the machine-config-nodes
// cleanup Job of a v1alpha1 API the API server does not serve, the flow
// schema.
func eusSkip(name string) bool {
	return strings.Contains(name, "scc-") || strings.Contains(name, "mcn-cleanup-job") || strings.Contains(name, "flowschema") || strings.HasPrefix(name, "0000_90_")
}

// eusScenario returns the simulator scenario and the update graph of the EUS
// path, or skips the test when the real payloads are absent. The three EUS
// tests share one scenario, which the simulator and the planner only read:
// it is written once per run of the package (eusOnce), since
// rendering the three real payloads was half of each test's own CPU.
func eusScenario(t *testing.T) (scenarioDir, graphFile string) {
	t.Helper()
	realdata := shareddata.Find(t, "the real 4.18, 4.19 and 4.20 payloads", "realdata", shareddata.RealDataEnvVar, "payload-release-4.20")
	for _, r := range eusReleases {
		if _, err := os.Stat(filepath.Join(realdata, r.dir, "release-manifests")); err != nil {
			t.Skipf("the real %s payload is absent (%v): the EUS acceptance needs ../shared/realdata/%s", r.version, err, r.dir)
		}
	}
	eusOnce.Do(func() {
		dir, err := os.MkdirTemp("", "recover-eus-")
		if err != nil {
			eusOnce.err = err
			return
		}
		kubetest.AtExit(func() { os.RemoveAll(dir) })
		eusOnce.scenarioDir, eusOnce.graphFile, eusOnce.err = writeEUSScenario(realdata, dir)
	})
	if eusOnce.err != nil {
		t.Fatalf("writing the EUS scenario: %v", eusOnce.err)
	}
	return eusOnce.scenarioDir, eusOnce.graphFile
}

// eusOnce is the EUS scenario the first eusScenario wrote, into a directory
// removed when the package's tests end, or the error that call met.
var eusOnce struct {
	sync.Once
	scenarioDir, graphFile string
	err                    error
}

// writeEUSScenario writes the simulator scenario and the update graph of the
// EUS path into dir.
func writeEUSScenario(realdata, dir string) (scenarioDir, graphFile string, err error) {
	root, err := kubetest.RepoRoot()
	if err != nil {
		return "", "", err
	}
	scenarioDir = filepath.Join(dir, "scenario")
	example := filepath.Join(root, "examples", "admin-ack-required", "must-gather")
	if err := copyTree(example, filepath.Join(scenarioDir, "must-gather")); err != nil {
		return "", "", err
	}
	// The guard PodDisruptionBudgets go: the simulator does not recreate the
	// guard pods a drain evicts (the operators' guard controllers do), so
	// they would hold every drain after the first node's.
	if err := filepath.WalkDir(scenarioDir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, "poddisruptionbudgets.yaml") {
			return os.Remove(path)
		}
		return err
	}); err != nil {
		return "", "", err
	}
	// The cluster runs 4.18.9, Completed, with nothing asked of it: the
	// admin acknowledged the 4.18 and the 4.19 gates.
	if err := rewriteFile(scenarioDir, "clusterversions/version.yaml", func(u map[string]any) {
		spec := u["spec"].(map[string]any)
		delete(spec, "desiredUpdate")
		spec["channel"] = "eus-4.20"
		st := u["status"].(map[string]any)
		var conds []any
		for _, c := range st["conditions"].([]any) {
			switch c.(map[string]any)["type"] {
			case "ReleaseAccepted", "Upgradeable":
				continue
			}
			conds = append(conds, c)
		}
		st["conditions"] = conds
	}); err != nil {
		return "", "", err
	}
	if err := rewriteFile(scenarioDir, "configmaps/admin-acks.yaml", func(u map[string]any) {
		u["data"] = map[string]any{"ack-4.18-kube-1.32-api-removals-in-4.19": "true", "ack-4.19-admissionregistration-v1beta1-api-removals-in-4.20": "true"}
	}); err != nil {
		return "", "", err
	}
	var releases []string
	for _, r := range eusReleases {
		full := filepath.Join(dir, "rendered-"+r.version)
		if _, err := realpayload.ServedRendered(filepath.Join(realdata, r.dir), full, r.version, map[string]string{"kubernetes": r.kube}); err != nil {
			return "", "", err
		}
		out := filepath.Join(scenarioDir, "releases", r.version)
		if err := cutPayload(filepath.Join(realdata, r.dir), full, out, r.version, r.image, r.kube); err != nil {
			return "", "", err
		}
		releases = append(releases, fmt.Sprintf("- version: %s\n  image: %s\n  payload: releases/%s\n  kubernetes: %s\n", r.version, r.image, r.version, r.kube))
	}
	scn := "apiVersion: sim.recover.openshift.io/v1alpha1\nkind: Scenario\ndescription: a 4.18.9 cluster on the EUS path to 4.20.4 (real payloads, cut)\nmustGather: must-gather\nseed: 20261206\nreleases:\n" + strings.Join(releases, "")
	if err := os.WriteFile(filepath.Join(scenarioDir, "scenario.yaml"), []byte(scn), 0o644); err != nil {
		return "", "", err
	}
	var nodes []string
	for _, r := range eusReleases {
		nodes = append(nodes, fmt.Sprintf(`{"version":%q,"payload":%q,"metadata":{"io.openshift.upgrades.graph.release.channels":"eus-4.20"}}`, r.version, r.image))
	}
	graphFile = filepath.Join(dir, "graph.json")
	g := `{"nodes":[` + strings.Join(nodes, ",") + `],"edges":[[0,1],[1,2]]}`
	if err := os.WriteFile(graphFile, []byte(g), 0o644); err != nil {
		return "", "", err
	}
	return scenarioDir, graphFile, nil
}

// cutPayload copies the eusComponents of a rendered payload and writes the
// release-metadata and image-references oc adm release new writes.
func cutPayload(real, src, dst, version, image, kube string) error {
	var oldNew []string
	for _, name := range eusImageRefs {
		data, err := os.ReadFile(filepath.Join(real, "operator-image-references", name+".image-references.yaml"))
		if err != nil {
			return err
		}
		docs, err := realpayload.Documents(data)
		if err != nil || len(docs) != 1 {
			return fmt.Errorf("%s image-references: %v", name, err)
		}
		tags, _, _ := unstructured.NestedSlice(docs[0].Object, "spec", "tags")
		for _, t := range tags {
			tag, _ := t.(map[string]any)
			from, _, _ := unstructured.NestedString(tag, "from", "name")
			sum := sha256.Sum256([]byte(version + "/" + fmt.Sprint(tag["name"])))
			oldNew = append(oldNew, from, fmt.Sprintf("quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:%x", sum))
		}
	}
	images := strings.NewReplacer(oldNew...)
	for _, sub := range []string{"manifests", "release-manifests"} {
		if err := os.MkdirAll(filepath.Join(dst, sub), 0o755); err != nil {
			return err
		}
		entries, err := os.ReadDir(filepath.Join(src, sub))
		if err != nil {
			return err
		}
		for _, e := range entries {
			name := e.Name()
			keep := sub == "manifests" && strings.HasPrefix(name, "0000_00_cluster-version-operator_")
			for _, c := range eusComponents {
				keep = keep || sub == "release-manifests" && strings.HasPrefix(name, c)
			}
			if !keep || eusSkip(name) || e.IsDir() {
				continue
			}
			data, err := os.ReadFile(filepath.Join(src, sub, name))
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dst, sub, name), []byte(images.Replace(string(data))), 0o644); err != nil {
				return err
			}
		}
	}
	md := fmt.Sprintf(`{"kind":"cincinnati-metadata-v0","version":%q,"previous":[]}`, version)
	if err := os.WriteFile(filepath.Join(dst, "release-manifests", "release-metadata"), []byte(md), 0o644); err != nil {
		return err
	}
	refs := fmt.Sprintf(`apiVersion: image.openshift.io/v1
kind: ImageStream
metadata:
  name: %q
spec:
  tags:
  - name: cluster-version-operator
    from: {kind: DockerImage, name: %q}
  - name: hyperkube
    annotations: {io.openshift.build.versions: "kubernetes=%s"}
    from: {kind: DockerImage, name: %q}
`, version, image, kube, image)
	return os.WriteFile(filepath.Join(dst, "release-manifests", "image-references"), []byte(refs), 0o644)
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
}

// rewriteFile edits the one YAML object of the must-gather file ending in suffix.
func rewriteFile(dir, suffix string, edit func(map[string]any)) error {
	found := false
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, suffix) {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		docs, err := realpayload.Documents(data)
		if err != nil || len(docs) != 1 {
			return fmt.Errorf("%s: %d documents (%v)", path, len(docs), err)
		}
		edit(docs[0].Object)
		out, err := json.Marshal(docs[0].Object)
		if err != nil {
			return err
		}
		found = true
		return os.WriteFile(path, out, 0o644)
	})
	if err == nil && !found {
		err = fmt.Errorf("no %s in %s", suffix, dir)
	}
	return err
}

// eusCluster is the simulated 4.18.9 cluster with its staged EUS plan.
type eusCluster struct {
	cfg  *rest.Config
	sim  *sim.Sim
	plan *planfile.Plan
	dir  string
}

// startEUS loads the scenario into a fresh API server, waits for the cluster
// to hold still, and plans the EUS path to 4.20.4 (recover plan --to 4.20.4
// --eus).
func startEUS(t *testing.T, ctx context.Context) *eusCluster {
	t.Helper()
	kubetest.Require(t, rootEnv)
	if testing.Short() {
		t.Skip("end to end on the simulator")
	}
	dir := t.TempDir()
	scenarioDir, graphFile := eusScenario(t)
	fresh := ownServer(t)
	s, err := sim.Run(ctx, fresh.Config, scenarioDir, sim.Options{Timing: &sim.FastTiming})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	snap := heldStill(t, ctx, fresh.Config, func(s *inspect.Snapshot) bool { return s.CVOMode() == inspect.ModeReconciling })
	g, err := graph.Load(ctx, graph.Options{Graph: graphFile, Channel: "eus-4.20"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.MakeStaged(ctx, plan.StagedOptions{To: "4.20.4", EUS: true, Options: plan.Options{Snapshot: snap, SnapshotSource: "live", Graph: g,
		Payload: plan.PayloadDir{Dir: filepath.Join(scenarioDir, "releases", "4.19.17")}, Generator: "eus-test"}})
	if err != nil {
		t.Fatalf("recover plan --to 4.20.4 --eus: %v", err)
	}
	if len(p.Stages) != 2 || p.Stages[0].To != "4.19.17" || p.Stages[0].Workers != planfile.WorkersPaused || p.Stages[1].To != "4.20.4" {
		t.Fatalf("the EUS plan's stages: %+v", p.Stages)
	}
	return &eusCluster{cfg: fresh.Config, sim: s, plan: p, dir: dir}
}

var poolsGVR = schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigpools"}

func (c *eusCluster) poolPaused(t testing.TB, ctx context.Context, pool string) bool {
	t.Helper()
	u, err := dynamic.NewForConfigOrDie(c.cfg).Resource(poolsGVR).Get(ctx, pool, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	paused, _, _ := unstructured.NestedBool(u.Object, "spec", "paused")
	return paused
}

// logSim logs what the simulator's controllers did, for a failure's reader.
func (c *eusCluster) logSim(t testing.TB) {
	for _, e := range c.sim.Events() {
		t.Logf("sim %s %s %s: %s", e.Actor, e.Reason, e.Object, e.Message)
	}
	kube := kubernetes.NewForConfigOrDie(c.cfg)
	ds, _ := kube.AppsV1().Deployments("").List(context.Background(), metav1.ListOptions{})
	for _, d := range ds.Items {
		t.Logf("deployment %s/%s: replicas %v, status %+v", d.Namespace, d.Name, d.Spec.Replicas, d.Status)
	}
	pods, _ := kube.CoreV1().Pods("").List(context.Background(), metav1.ListOptions{})
	for _, p := range pods.Items {
		t.Logf("pod %s/%s on %q: %s %+v", p.Namespace, p.Name, p.Spec.NodeName, p.Status.Phase, p.Status.Conditions)
	}
}

func (c *eusCluster) writePlan(t testing.TB) string {
	t.Helper()
	data, err := json.MarshalIndent(c.plan, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(c.dir, "plan.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestEUSPathOnTheSimulatorKilledInStage2ResumesInStage2 is issue 33's
// acceptance: the real recover binary applies the staged EUS plan; the worker
// pool is paused when stage 2 (4.19.17 -> 4.20.4) starts; the process is
// killed with SIGKILL during stage 2 and resumed with --resume, which goes on
// in stage 2 (no step of stage 1 runs again); the cluster ends at 4.20.4 with
// the worker pool unpaused and Updated, and recover journal shows both stages
// landed.
func TestEUSPathOnTheSimulatorKilledInStage2ResumesInStage2(t *testing.T) {
	// Its own API server (Fresh): it runs beside the other tests that have one.
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	c := startEUS(t, ctx)
	planPath := c.writePlan(t)
	journalPath := filepath.Join(c.dir, "run.journal")
	stage2First := c.plan.Stages[1].Steps[0].ID

	var mu sync.Mutex
	var victim *os.Process
	var once sync.Once
	killed := make(chan struct{})
	pausedAtStage2 := false
	_, kc := auditProxyFor(t, c.cfg, c.dir, "run1", nil)
	cmd, done, stderr := startRecover(t, func(ev map[string]any) {
		// Killed once stage 2's desiredUpdate is handed to the CVO and the
		// CVO works on it.
		if ev["type"] == "step-done" && stepOf(ev) == stage2First {
			once.Do(func() {
				pausedAtStage2 = c.poolPaused(t, ctx, "worker")
				mu.Lock()
				pr := victim
				mu.Unlock()
				_ = pr.Kill()
				waitDead(pr.Pid)
				close(killed)
			})
		}
	}, "--kubeconfig", kc, "apply", "--plan", planPath, "--journal", journalPath, "--yes", "--i-have-a-backup", "--allow-stale", "--events", "json")
	mu.Lock()
	victim = cmd.Process
	mu.Unlock()
	err := <-done
	select {
	case <-killed:
	default:
		t.Fatalf("the run ended (exit %d) before stage 2's desiredUpdate: %s", recoverbin.ExitCode(err), stderr.String())
	}
	if !pausedAtStage2 {
		t.Errorf("the worker pool was not paused when stage 2 handed the CVO 4.20.4")
	}
	st := mustLoad(t, journalPath).State()
	if st.Stage != 2 || st.Stages[0].State != journal.StageLanded || st.Stages[1].State != journal.StageRunning {
		t.Fatalf("journal after the kill: stage %d, stages %+v", st.Stage, st.Stages)
	}

	// Resume: stage 2 goes on, stage 1 is not run again.
	var resumedStages []float64
	var rerun []string
	stage1 := map[string]bool{}
	for _, s := range c.plan.Stages[0].Steps {
		stage1[s.ID] = true
	}
	for _, s := range c.plan.Steps {
		stage1[s.ID] = true
	}
	_, kc = auditProxyFor(t, c.cfg, c.dir, "run2", nil)
	_, done, stderr = startRecover(t, func(ev map[string]any) {
		if st, ok := ev["stage"].(map[string]any); ok && ev["type"] == "stage" && st["state"] == "running" {
			resumedStages = append(resumedStages, st["index"].(float64))
		}
		if ev["type"] == "step-started" && stage1[stepOf(ev)] {
			rerun = append(rerun, stepOf(ev))
		}
	}, "--kubeconfig", kc, "apply", "--resume", journalPath, "--yes", "--events", "json")
	if err := <-done; err != nil {
		t.Fatalf("resume: exit %d: %s", recoverbin.ExitCode(err), stderr.String())
	}
	if len(resumedStages) != 1 || resumedStages[0] != 2 || len(rerun) > 0 {
		t.Errorf("the resume ran stages %v and stage 1's steps %v; want stage 2 only", resumedStages, rerun)
	}
	j := mustLoad(t, journalPath)
	st = j.State()
	if !st.Finished || st.Stages[0].State != journal.StageLanded || st.Stages[1].State != journal.StageLanded {
		t.Errorf("journal: finished %v, stages %+v", st.Finished, st.Stages)
	}
	if c.poolPaused(t, ctx, "worker") {
		t.Errorf("the worker pool is still paused at the end")
	}
	cv, err := configclient.NewForConfigOrDie(c.cfg).ConfigV1().ClusterVersions().Get(ctx, "version", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cv.Status.Desired.Version != "4.20.4" || len(cv.Status.History) == 0 || cv.Status.History[0].Version != "4.20.4" {
		t.Errorf("ClusterVersion after the run: desired %s, history %+v", cv.Status.Desired.Version, cv.Status.History)
	}
	var sb strings.Builder
	if err := journal.Summarize(j).WriteTable(&sb); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"stage 1:", "4.18.9 -> 4.19.17  landed", "stage 2:", "4.19.17 -> 4.20.4  landed"} {
		if !strings.Contains(sb.String(), want) {
			t.Errorf("recover journal does not show %q:\n%s", want, sb.String())
		}
	}
}

// TestEUSPathOnTheSimulatorFailureInStage2LeavesThePoolsUnpaused injects a
// failure into stage 2: the machine-config operator's rollout of 4.20.4
// never finishes, so stage 2's machine-config gate fails. The run stops in
// stage 2, says so, and revert-on-stop unpauses the worker pool recover
// paused; the master pool, which recover never paused, stays as it was.
func TestEUSPathOnTheSimulatorFailureInStage2LeavesThePoolsUnpaused(t *testing.T) {
	// Its own API server (Fresh): it runs beside the other tests that have one.
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	c := startEUS(t, ctx)
	stage2First := c.plan.Stages[1].Steps[0].ID
	eng, err := apply.New(c.cfg)
	if err != nil {
		t.Fatal(err)
	}
	pausedAtStage2 := false
	// The injected failure is a rollout that never finishes: the gate's own
	// timeout ends the wait, and the run stops as a scripted run (--yes)
	// does. A gate that times out for any other reason (a slow rollout on a
	// loaded machine, before the fault or on another operator) is waited for
	// again, as an admin would, so that the timeout can be short: it used to
	// be 3 minutes for every gate, all of which this test then spent waiting
	// for the stuck rollout.
	var injected atomic.Bool
	decider := apply.DeciderFunc(func(ctx context.Context, req apply.Request) (apply.Decision, error) {
		if req.Kind == apply.RequestGate && (!injected.Load() || !strings.Contains(req.Message, "ClusterOperator machine-config")) {
			t.Logf("gate of %s timed out before the injected failure could hold it: waiting again: %s", req.Step.ID, req.Message)
			return apply.Retry, nil
		}
		return apply.AutoDecider{}.Decide(ctx, req)
	})
	res, _ := eng.Execute(ctx, c.plan, apply.Options{
		JournalPath: filepath.Join(c.dir, "run.journal"), IHaveABackup: true, AllowStale: true, PlanPath: "plan.json", PlanDigest: "sha256:eus",
		Decider: decider, Heartbeat: -1,
		Timeouts: map[planfile.GateKind]time.Duration{planfile.GateClusterOperator: 30 * time.Second},
	}, func(e apply.Event) {
		switch e.Type {
		case apply.EventStage, apply.EventGateFailed, apply.EventWarning, apply.EventError, apply.EventReverted, apply.EventDone:
			t.Logf("%s: %s", e.Type, e.Message)
		}
		if e.Type == apply.EventStepStarted && e.Step != nil && e.Step.ID == stage2First {
			pausedAtStage2 = c.poolPaused(t, ctx, "worker")
			if err := c.sim.InjectFault(sim.Fault{Type: sim.FaultStuckRollout, ClusterOperator: "machine-config"}); err != nil {
				t.Error(err)
			}
			injected.Store(true)
		}
	})
	if res == nil {
		t.Fatal("no result")
	}
	if res.Stage != 2 {
		c.logSim(t)
	}
	if !pausedAtStage2 {
		t.Errorf("the worker pool was not paused when stage 2 started")
	}
	if res.Outcome != apply.OutcomeGateFailed || res.Stage != 2 || !strings.Contains(res.Holds, "stage 2 of 2 (4.19.17 -> 4.20.4) holds the run") {
		t.Fatalf("outcome %s in stage %d (%s): %s", res.Outcome, res.Stage, res.Holds, res.Message)
	}
	if len(res.Reverted) != 1 || !strings.Contains(res.Reverted[0].Object, "MachineConfigPool worker") {
		t.Errorf("reverted: %+v, not reverted: %+v", res.Reverted, res.NotReverted)
	}
	if c.poolPaused(t, ctx, "worker") || c.poolPaused(t, ctx, "master") {
		t.Errorf("a pool is left paused after the failure in stage 2")
	}
	st := mustLoad(t, filepath.Join(c.dir, "run.journal")).State()
	if st.Stage != 2 || st.Stages[1].State != journal.StageStopped || len(st.Outstanding()) != 0 {
		t.Errorf("journal: stage %d, stages %+v, outstanding %d", st.Stage, st.Stages, len(st.Outstanding()))
	}
}

// TestEUSPathOnTheSimulatorUntilStageStopsBetweenStages runs the staged EUS
// plan one stage per change window, as a fleet wave's stage Jobs do: the real
// recover binary with --until-stage 1 stops once stage 1 has landed (exit 0,
// outcome stopped, one line naming the stage that landed and the resume), the
// worker pool recover paused stays paused for stage 2 (revert-on-stop leaves
// a pause a later stage relies on), and the journal says stage 1 landed and
// stage 2 holds the run; --resume with --until-stage 2 runs stage 2 only,
// completes, and unpauses the pool.
func TestEUSPathOnTheSimulatorUntilStageStopsBetweenStages(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	c := startEUS(t, ctx)
	planPath := c.writePlan(t)
	journalPath := filepath.Join(c.dir, "run.journal")
	stage2 := map[string]bool{}
	for _, s := range c.plan.StageSteps(2) {
		stage2[s.ID] = true
	}

	var result map[string]any
	var ranStage2 []string
	_, done, stderr := startRecover(t, func(ev map[string]any) {
		if ev["type"] == "step-started" && stage2[stepOf(ev)] {
			ranStage2 = append(ranStage2, stepOf(ev))
		}
		if ev["type"] == "done" {
			result, _ = ev["result"].(map[string]any)
		}
	}, "--kubeconfig", c.kubeconfig(t), "apply", "--plan", planPath, "--journal", journalPath, "--yes", "--i-have-a-backup", "--allow-stale", "--events", "json", "--until-stage", "1")
	if err := <-done; err != nil {
		c.logSim(t)
		t.Fatalf("--until-stage 1: exit %d: %s", recoverbin.ExitCode(err), stderr.String())
	}
	if result["outcome"] != "stopped" || !strings.Contains(fmt.Sprint(result["message"]), "stage 1 of 2 landed (4.18.9 -> 4.19.17)") ||
		!strings.Contains(fmt.Sprint(result["message"]), "kept paused for the later stages") || !strings.Contains(fmt.Sprint(result["holds"]), "starts stage 2") {
		t.Errorf("the result of --until-stage 1: %v", result)
	}
	if len(ranStage2) > 0 {
		t.Errorf("--until-stage 1 ran stage 2's steps %v", ranStage2)
	}
	if !c.poolPaused(t, ctx, "worker") {
		t.Errorf("the worker pool recover paused for stage 2 was unpaused when the run stopped after stage 1")
	}
	st := mustLoad(t, journalPath).State()
	if st.Stage != 1 || st.Stages[0].State != journal.StageLanded || st.Stages[1].State != journal.StagePending || len(st.Outstanding()) != 1 || st.LastStop == nil || st.LastStop.Reason != "stopped" {
		t.Fatalf("journal after --until-stage 1: stage %d, stages %+v, outstanding %d, stop %+v", st.Stage, st.Stages, len(st.Outstanding()), st.LastStop)
	}

	var resumed []float64
	result = nil
	_, done, stderr = startRecover(t, func(ev map[string]any) {
		if s, ok := ev["stage"].(map[string]any); ok && ev["type"] == "stage" && s["state"] == "running" {
			resumed = append(resumed, s["index"].(float64))
		}
		if ev["type"] == "done" {
			result, _ = ev["result"].(map[string]any)
		}
	}, "--kubeconfig", c.kubeconfig(t), "apply", "--resume", journalPath, "--yes", "--events", "json", "--until-stage", "2")
	if err := <-done; err != nil {
		c.logSim(t)
		t.Fatalf("resume --until-stage 2: exit %d: %s", recoverbin.ExitCode(err), stderr.String())
	}
	if result["outcome"] != "completed" || len(resumed) != 1 || resumed[0] != 2 {
		t.Errorf("the resume ran stages %v: %v", resumed, result)
	}
	st = mustLoad(t, journalPath).State()
	if !st.Finished || st.Stages[1].State != journal.StageLanded || len(st.Outstanding()) != 0 {
		t.Errorf("journal: finished %v, stages %+v, outstanding %d", st.Finished, st.Stages, len(st.Outstanding()))
	}
	if c.poolPaused(t, ctx, "worker") {
		t.Errorf("the worker pool is still paused at the end")
	}
}

// kubeconfig writes a kubeconfig of the simulated cluster's API server.
func (c *eusCluster) kubeconfig(t *testing.T) string {
	t.Helper()
	_, kc := auditProxyFor(t, c.cfg, c.dir, fmt.Sprintf("kc%d", time.Now().UnixNano()), nil)
	return kc
}
