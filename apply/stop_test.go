package apply_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/apply/printer"
	"github.com/openshift-recover/recover/inspect/live"
	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
	"github.com/openshift-recover/recover/plan/planfile"
)

// coGate waits for a ClusterOperator that the test controls.
func coGate(name string) *planfile.Gate {
	return &planfile.Gate{Kind: planfile.GateClusterOperator, ClusterOperator: name, Versions: []planfile.OperandVersion{{Name: "operator", Version: applytest.TargetVersion}}}
}

func reportOperator(t testing.TB, ctx context.Context, c *lane, name string) {
	t.Helper()
	cos := c.OSConfig.ConfigV1().ClusterOperators()
	if _, err := cos.Create(ctx, &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	now := metav1.Now()
	if _, err := applytest.Update(ctx, cos.Get, cos.UpdateStatus, name, func(co *configv1.ClusterOperator) {
		co.Status.Versions = []configv1.OperandVersion{{Name: "operator", Version: applytest.TargetVersion}}
		co.Status.Conditions = []configv1.ClusterOperatorStatusCondition{
			{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, LastTransitionTime: now},
			{Type: configv1.OperatorDegraded, Status: configv1.ConditionFalse, LastTransitionTime: now},
		}
	}); err != nil {
		t.Fatal(err)
	}
}

func TestGateThatNeverPassesStopsResumablyWithTheCVOLeftDisabled(t *testing.T) {
	c, ctx := setup(t)
	p := applytest.NewPlan().DisableCVO().Wait("never", coGate("never-ready")).SetDesiredUpdate().RestoreCVO().Plan()
	opts := defaults(t)
	opts.Timeouts = map[planfile.GateKind]time.Duration{planfile.GateClusterOperator: 2 * time.Second}
	res, events := run(t, ctx, c, p, opts)
	if res.Outcome != apply.OutcomeGateFailed || !res.Outcome.Resumable() {
		t.Fatalf("outcome %s, want gate-failed: %s\n%s", res.Outcome, res.Message, dump(events))
	}
	if !res.CVODisabled || !strings.Contains(res.Message, "DISABLED") || res.StoppedAt != p.Steps[1].ID {
		t.Errorf("the result must say the CVO is left disabled and where it stopped: %+v", res)
	}
	if msg := res.Err.Error(); !strings.Contains(msg, "left DISABLED") || !strings.Contains(msg, "next: recover apply --resume") || !strings.Contains(msg, "oc scale") {
		t.Errorf("the run's error (the CLI's one-line message) must say the CVO is disabled and how to go on: %s", msg)
	}
	want := []string{"recover apply --resume " + opts.JournalPath + " --yes", "oc scale deployment/cluster-version-operator -n openshift-cluster-version --replicas=1"}
	for i, w := range want {
		if i >= len(res.Next) || !strings.HasPrefix(res.Next[i], w) {
			t.Errorf("next command %d: want %q, got %q", i, w, res.Next)
		}
	}
	// The plain printer says so on its last lines too.
	var out strings.Builder
	pr := printer.NewPlain(&out, false)
	for _, e := range events {
		_ = pr.Print(e)
	}
	if !strings.Contains(out.String(), "DISABLED") || !strings.Contains(out.String(), "oc scale") {
		t.Errorf("plain output does not tell the CVO is disabled:\n%s", out.String())
	}
	d, _ := c.Kube.AppsV1().Deployments("openshift-cluster-version").Get(ctx, "cluster-version-operator", metav1.GetOptions{})
	if *d.Spec.Replicas != 0 {
		t.Fatalf("the CVO should stay scaled down after a failed gate, has %d replicas", *d.Spec.Replicas)
	}

	// The operator comes good; resume finishes and restores the CVO's replicas from the journal.
	reportOperator(t, ctx, c, "never-ready")
	ropts := opts
	ropts.Resume = true
	ropts.IHaveABackup = false // the journal has the backup record
	res, events = run(t, ctx, c, p, ropts)
	if res.Outcome != apply.OutcomeCompleted {
		t.Fatalf("resume: %s\n%s", res.Message, dump(events))
	}
	if res.StepsDone != 3 {
		t.Errorf("resume ran %d steps, want 3 (disable-cvo is done in the journal)", res.StepsDone)
	}
	d, _ = c.Kube.AppsV1().Deployments("openshift-cluster-version").Get(ctx, "cluster-version-operator", metav1.GetOptions{})
	if *d.Spec.Replicas != 1 {
		t.Errorf("CVO replicas after resume: %d, want the journaled 1", *d.Spec.Replicas)
	}
}

func TestTwoConcurrentAppliesExactlyOneProceeds(t *testing.T) {
	c, ctx := setup(t)
	p := applytest.NewPlan().DisableCVO().Wait("held", coGate("lock-holder")).RestoreCVO().Plan()
	type outcome struct {
		res    *apply.Result
		events []apply.Event
	}
	results := make(chan outcome, 2)
	locked := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			opts := defaults(t)
			opts.Holder = fmt.Sprintf("run-%d", i)
			e, err := apply.New(c.env.Config)
			if err != nil {
				t.Error(err)
				return
			}
			res, events := runWith(t, ctx, e, p, opts, func(ev apply.Event) {
				if ev.Type == apply.EventLock || (ev.Type == apply.EventDone && ev.Result.Outcome == apply.OutcomeLocked) {
					locked <- struct{}{}
				}
			})
			results <- outcome{res, events}
		}()
	}
	// Both runs have decided about the lock before the winner may finish.
	<-locked
	<-locked
	reportOperator(t, ctx, c, "lock-holder")
	wg.Wait()
	close(results)
	var done, refused int
	for o := range results {
		switch o.res.Outcome {
		case apply.OutcomeCompleted:
			done++
		case apply.OutcomeLocked:
			refused++
			if !strings.Contains(o.res.Message, "holder \"run-") || !strings.Contains(o.res.Message, " since ") || o.res.CVODisabled {
				t.Errorf("the refusal must name the holder and since when, and touch nothing: %s", o.res.Message)
			}
			if count(o.events, apply.EventStepStarted) != 0 {
				t.Errorf("the refused run started a step")
			}
		default:
			t.Errorf("unexpected outcome %s: %s", o.res.Outcome, o.res.Message)
		}
	}
	if done != 1 || refused != 1 {
		t.Fatalf("%d runs completed and %d were refused; want exactly one each", done, refused)
	}
	if _, err := c.Kube.CoordinationV1().Leases("openshift-cluster-version").Get(ctx, "recover-apply", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the lease should be released after the run: %v", err)
	}
}

func TestLockHeldByADeadRunNeedsExpiryOrBreakLock(t *testing.T) {
	c, ctx := setup(t)
	p := applytest.NewPlan().DisableCVO().RestoreCVO().Plan()
	// A run that dies holding the lock: cancel it while its gate waits, and put
	// its lease back as if it had never released it.
	kube := c.Kube.CoordinationV1().Leases("openshift-cluster-version")
	holder := "dead@host pid 1"
	now := metav1.NewMicroTime(time.Now())
	dur := int32(3600)
	lease, err := kube.Create(ctx, leaseOf(holder, now, dur), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, _ := run(t, ctx, c, p, defaults(t))
	if res.Outcome != apply.OutcomeLocked || !strings.Contains(res.Message, holder) || !strings.Contains(res.Message, "--break-lock") {
		t.Fatalf("want locked naming %q and --break-lock, got %s: %s", holder, res.Outcome, res.Message)
	}
	opts := defaults(t)
	opts.BreakLock = true
	res, events := run(t, ctx, c, p, opts)
	if res.Outcome != apply.OutcomeCompleted {
		t.Fatalf("--break-lock: %s\n%s", res.Message, dump(events))
	}
	for _, e := range events {
		if e.Type == apply.EventLock && e.Lock.TookOver != holder {
			t.Errorf("lock event should name the holder it took over from: %+v", e.Lock)
		}
	}
	_ = lease
}

func TestDryRunChangesNothing(t *testing.T) {
	c, ctx := setup(t)
	b, sc := applytest.FullPlan("dry")
	prepareScenario(t, ctx, c, sc)
	dyn := dynamic.NewForConfigOrDie(c.env.Config)
	snapshot := func() map[string]string {
		rvs := map[string]string{}
		for _, r := range []struct {
			gvr schema.GroupVersionResource
			ns  string
		}{
			{schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, ""},
			{schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, sc.Namespace},
			{schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, sc.Namespace},
			{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, sc.Namespace},
			{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, "openshift-cluster-version"},
			{schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}, "openshift-cluster-version"},
			{schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "clusterversions"}, ""},
			{schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "clusteroperators"}, ""},
			{schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigpools"}, ""},
			{schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}, ""},
			{schema.GroupVersionResource{Group: "operator.openshift.io", Version: "v1", Resource: "kubeapiservers"}, ""},
		} {
			list, err := dyn.Resource(r.gvr).Namespace(r.ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range list.Items {
				rvs[r.gvr.Resource+"/"+o.GetNamespace()+"/"+o.GetName()] = o.GetResourceVersion()
			}
		}
		return rvs
	}
	before := snapshot()
	opts := defaults(t)
	opts.DryRun, opts.JournalPath, opts.IHaveABackup = true, "", false
	res, events := run(t, ctx, c, b.Plan(), opts)
	if res.Outcome != apply.OutcomeCompleted || !res.DryRun || res.Journal != "" {
		t.Fatalf("dry run: %s %s\n%s", res.Outcome, res.Message, dump(events))
	}
	after := snapshot()
	if !reflect.DeepEqual(before, after) {
		for k, v := range after {
			if before[k] != v {
				t.Errorf("%s changed: resourceVersion %q -> %q", k, before[k], v)
			}
		}
		for k := range before {
			if _, ok := after[k]; !ok {
				t.Errorf("%s was deleted", k)
			}
		}
	}
	// Every mutating step was shown as a diff and "would" happen.
	var diffs, woulds int
	for _, e := range events {
		if e.Type == apply.EventDiff && e.Change.Diff != "" {
			diffs++
		}
		if e.Type == apply.EventApplied && strings.HasPrefix(e.Change.Result, "dry-run: would") {
			woulds++
		}
	}
	if diffs < 5 || woulds < 5 {
		t.Errorf("dry run showed %d diffs and %d would-be changes\n%s", diffs, woulds, dump(events))
	}
}

func TestPreflightRefusals(t *testing.T) {
	c, ctx := setup(t)
	b, _ := applytest.FullPlan("pre")
	p := b.Plan()

	t.Run("missing permissions are listed together", func(t *testing.T) {
		cfg, err := c.env.UserConfig(kubetest.LimitedUser)
		if err != nil {
			t.Fatal(err)
		}
		res := runAs(t, ctx, cfg, p, defaults(t))
		if res.Outcome != apply.OutcomeRefused {
			t.Fatalf("outcome %s: %s", res.Outcome, res.Message)
		}
		for _, want := range []string{"missing permissions", "patch deployments.apps in namespace openshift-cluster-version", "update clusterversions.config.openshift.io", "create leases.coordination.k8s.io", "delete configmaps in namespace recover-e2e-pre", "watch clusteroperators.config.openshift.io"} {
			if !strings.Contains(res.Message, want) {
				t.Errorf("refusal does not list %q:\n%s", want, res.Message)
			}
		}
	})
	t.Run("stale plan", func(t *testing.T) {
		opts := defaults(t)
		opts.AllowStale = false
		opts.Fingerprint = func(context.Context) (string, error) { return "sha256:changed", nil }
		res, _ := run(t, ctx, c, p, opts)
		if res.Outcome != apply.OutcomeRefused || !strings.Contains(res.Message, "the cluster changed since the plan was made") || !strings.Contains(res.Message, "--allow-stale") {
			t.Fatalf("outcome %s: %s", res.Outcome, res.Message)
		}
		opts.Fingerprint = func(context.Context) (string, error) { return p.Cluster.Fingerprint, nil }
		opts.JournalPath += ".2"
		opts.UntilStep = p.Steps[0].ID
		res, _ = run(t, ctx, c, p, opts)
		if res.Outcome != apply.OutcomeStopped {
			t.Fatalf("a matching fingerprint should pass preflight: %s", res.Message)
		}
	})
	t.Run("no backup", func(t *testing.T) {
		opts := defaults(t)
		opts.IHaveABackup = false
		res, _ := run(t, ctx, c, p, opts)
		if res.Outcome != apply.OutcomeRefused || !strings.Contains(res.Message, "--backup-record") {
			t.Fatalf("outcome %s: %s", res.Outcome, res.Message)
		}
		if _, err := os.Stat(opts.JournalPath); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a refused run must not create its journal")
		}
	})
	t.Run("backup record from another version", func(t *testing.T) {
		opts := defaults(t)
		opts.IHaveABackup = false
		opts.BackupRecordFile = t.TempDir() + "/backup.yaml"
		if err := os.WriteFile(opts.BackupRecordFile, []byte("path: /var/backup/snapshot.db\nsha256: "+strings.Repeat("ab", 32)+"\netcdRevision: 4242\nclusterVersion: 4.3.19\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		res, _ := run(t, ctx, c, p, opts)
		if res.Outcome != apply.OutcomeRefused || !strings.Contains(res.Message, "the backup is from 4.3.19") {
			t.Fatalf("outcome %s: %s", res.Outcome, res.Message)
		}
	})
}

func runAs(t *testing.T, ctx context.Context, cfg *rest.Config, p *planfile.Plan, opts apply.Options) *apply.Result {
	t.Helper()
	e, err := apply.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, _ := runWith(t, ctx, e, p, opts, nil)
	return res
}

func TestStaticPodsGateNamesTheNodeBehind(t *testing.T) {
	c, ctx := setup(t)
	// Incident 2: the operator claims every master is at the latest revision, but
	// master-2's mirror pod still runs the previous one.
	if err := c.SetMirrorPodRevision(ctx, "master-2", applytest.Revision-1); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.SetMirrorPodRevision(context.Background(), "master-2", applytest.Revision) })
	p := applytest.NewPlan().DisableCVO().Wait("kube-apiserver", applytest.KubeAPIServerGate()).RestoreCVO().Plan()
	fixed := make(chan struct{})
	var once sync.Once
	res, events := runWith(t, ctx, mustEngine(t, c), p, defaults(t), func(ev apply.Event) {
		if ev.Type == apply.EventWaiting && ev.Gate.Kind == planfile.GateStaticPods {
			once.Do(func() {
				go func() {
					_ = c.SetMirrorPodRevision(ctx, "master-2", applytest.Revision)
					close(fixed)
				}()
			})
		}
	})
	<-fixed
	if res.Outcome != apply.OutcomeCompleted {
		t.Fatalf("%s\n%s", res.Message, dump(events))
	}
	var waiting *apply.Event
	for i := range events {
		if events[i].Type == apply.EventWaiting && events[i].Gate.Kind == planfile.GateStaticPods {
			waiting = &events[i]
			break
		}
	}
	if waiting == nil || len(waiting.Gate.Pending) != 1 || !strings.Contains(waiting.Gate.Pending[0], "master-2") || !strings.Contains(waiting.Message, "claim is wrong") {
		t.Fatalf("the gate must name master-2 as behind while the operator claims otherwise: %+v", waiting)
	}
}

func mustEngine(t testing.TB, c *lane) *apply.Engine {
	e, err := apply.New(c.env.Config)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// finalState is the state a plan run leaves, with the scenario suffix replaced so
// runs of different suffixes compare.
func finalState(t testing.TB, ctx context.Context, c *lane, sc *applytest.Scenario) map[string]any {
	t.Helper()
	dyn := dynamic.NewForConfigOrDie(c.env.Config)
	state := map[string]any{}
	e := mustEngine(t, c)
	_ = e
	for _, o := range sc.Objects {
		gvr := map[string]schema.GroupVersionResource{
			"Namespace":                schema.GroupVersionResource{Version: "v1", Resource: "namespaces"},
			"CustomResourceDefinition": schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"},
			"Widget":                   schema.GroupVersionResource{Group: sc.Suffix + ".example.com", Version: "v1", Resource: "widgets"},
			"ConfigMap":                schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
			"Secret":                   schema.GroupVersionResource{Version: "v1", Resource: "secrets"},
			"ClusterOperator":          schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "clusteroperators"},
			"Deployment":               schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
		}[o.GetKind()]
		live, err := dyn.Resource(gvr).Namespace(o.GetNamespace()).Get(ctx, o.GetName(), metav1.GetOptions{})
		if err != nil {
			t.Fatalf("%s %s: %v", o.GetKind(), o.GetName(), err)
		}
		state[strings.ReplaceAll(o.GetKind()+"/"+o.GetName(), sc.Suffix, "SFX")] = normalize(live, sc.Suffix)
	}
	_, err := c.Kube.CoreV1().ConfigMaps(sc.Namespace).Get(ctx, "obsolete", metav1.GetOptions{})
	state["obsolete-exists"] = !apierrors.IsNotFound(err)
	cv, _ := c.OSConfig.ConfigV1().ClusterVersions().Get(ctx, "version", metav1.GetOptions{})
	state["desiredUpdate"] = fmt.Sprint(cv.Spec.DesiredUpdate)
	d, _ := c.Kube.AppsV1().Deployments("openshift-cluster-version").Get(ctx, "cluster-version-operator", metav1.GetOptions{})
	state["cvoReplicas"] = *d.Spec.Replicas
	pool, _ := c.MCFG.MachineconfigurationV1().MachineConfigPools().Get(ctx, "master", metav1.GetOptions{})
	state["poolPaused"] = pool.Spec.Paused
	return state
}

// normalize keeps what a run decides: labels, annotations, owner kinds, and the
// content (spec, data, ...), without server bookkeeping and status.
func normalize(u *unstructured.Unstructured, sfx string) string {
	o := u.DeepCopy()
	delete(o.Object, "status")
	md := map[string]any{"labels": o.GetLabels(), "annotations": o.GetAnnotations()}
	var owners []string
	for _, r := range o.GetOwnerReferences() {
		owners = append(owners, fmt.Sprintf("%s/%s controller=%v", r.Kind, r.Name, r.Controller != nil && *r.Controller))
	}
	md["owners"] = owners
	o.Object["metadata"] = md
	if spec, ok := o.Object["spec"].(map[string]any); ok {
		if tmpl, ok := spec["template"].(map[string]any); ok {
			if m, ok := tmpl["metadata"].(map[string]any); ok {
				delete(m, "creationTimestamp")
			}
		}
	}
	return strings.ReplaceAll(fmt.Sprint(o.Object), sfx, "SFX")
}

func TestInterruptAtRandomStepsThenResumeEqualsUninterruptedRun(t *testing.T) {
	c, ctx := setup(t)
	ref, refSc := applytest.FullPlan("ref")
	prepareScenario(t, ctx, c, refSc)
	if res, events := run(t, ctx, c, ref.Plan(), defaults(t)); res.Outcome != apply.OutcomeCompleted {
		t.Fatalf("uninterrupted run: %s\n%s", res.Message, dump(events))
	}
	want := finalState(t, ctx, c, refSc)

	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewPCG(uint64(seed), 7))
	t.Logf("seed %d", seed)
	for i := 0; i < 2; i++ {
		if err := c.Reset(ctx); err != nil {
			t.Fatal(err)
		}
		b, sc := applytest.FullPlan(fmt.Sprintf("int%d", i))
		prepareScenario(t, ctx, c, sc)
		p := b.Plan()
		stopAt := p.Steps[rng.IntN(len(p.Steps)-1)].ID
		// Interrupt as the step starts, or after its change, while its gate waits.
		when := []apply.EventType{apply.EventStepStarted, apply.EventApplied}[rng.IntN(2)]
		t.Logf("run %d: interrupting at %s of %s", i, when, stopAt)
		opts := defaults(t)
		runCtx, cancel := context.WithCancel(ctx)
		res, events := runWith(t, runCtx, mustEngine(t, c), p, opts, func(ev apply.Event) {
			if ev.Type == when && ev.Step != nil && ev.Step.ID == stopAt {
				cancel()
			}
		})
		cancel()
		if res.Outcome != apply.OutcomeAborted && res.Outcome != apply.OutcomeCompleted {
			t.Fatalf("interrupted run: %s %s\n%s", res.Outcome, res.Message, dump(events))
		}
		ropts := opts
		ropts.Resume = true
		res, events = run(t, ctx, c, p, ropts)
		if res.Outcome != apply.OutcomeCompleted {
			t.Fatalf("resume: %s\n%s", res.Message, dump(events))
		}
		got := finalState(t, ctx, c, sc)
		if !reflect.DeepEqual(got, want) {
			for k, v := range want {
				if !reflect.DeepEqual(got[k], v) {
					t.Errorf("run %d: %s differs:\n got %v\nwant %v", i, k, got[k], v)
				}
			}
		}
		assertAtMostOnce(t, opts.JournalPath, p)
	}
}

// assertAtMostOnce checks, from the journal, that no delete and no create-only
// step changed the cluster twice.
func assertAtMostOnce(t testing.TB, path string, p *planfile.Plan) {
	t.Helper()
	j, err := journal.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	st := j.State()
	for _, s := range p.Steps {
		once := s.Action == planfile.ActionDelete || (s.Manifest != nil && s.Manifest.CreateOnly)
		if step := st.Step(s.ID); once && step != nil && step.Mutations > 1 {
			t.Errorf("step %s changed the cluster %d times", s.ID, step.Mutations)
		}
		if step := st.Step(s.ID); step == nil || !step.Complete() {
			t.Errorf("step %s is not done in the journal: %+v", s.ID, step)
		}
	}
}

func leaseOf(holder string, now metav1.MicroTime, dur int32) *coordinationLease {
	return newLease(holder, now, dur)
}

var _ = corev1.Pod{}

func TestPreviewShowsAStepsChangeWithoutMakingIt(t *testing.T) {
	c, ctx := setup(t)
	b, sc := applytest.FullPlan("prev")
	prepareScenario(t, ctx, c, sc)
	p := b.Plan()
	e := mustEngine(t, c)
	ci, err := e.Preview(ctx, p, p.Steps[0].ID)
	if err != nil || ci.Operation != "scale" || !strings.Contains(ci.Diff, "spec.replicas: 1 -> 0") {
		t.Fatalf("disable-cvo preview: %+v %v", ci, err)
	}
	ci, err = e.Preview(ctx, p, p.Steps[1].ID)
	if err != nil || ci.Operation != "update" || !strings.Contains(ci.Diff, "+    openshift.io/run-level: \"0\"") {
		t.Fatalf("namespace preview: %+v %v", ci, err)
	}
	d, _ := c.Kube.AppsV1().Deployments("openshift-cluster-version").Get(ctx, "cluster-version-operator", metav1.GetOptions{})
	ns, _ := c.Kube.CoreV1().Namespaces().Get(ctx, sc.Namespace, metav1.GetOptions{})
	if *d.Spec.Replicas != 1 || ns.Labels["openshift.io/run-level"] != "" {
		t.Fatalf("Preview changed the cluster")
	}
	if _, err := e.Preview(ctx, p, "no-such-step"); apply.OutcomeOf(err) != apply.OutcomeBadInput {
		t.Fatalf("unknown step: %v", err)
	}
}

func TestLiveFingerprintGuardsAgainstStalePlans(t *testing.T) {
	c, ctx := setup(t)
	fingerprint := func(ctx context.Context) (string, error) {
		src, err := live.New(c.env.Config, live.Options{})
		if err != nil {
			return "", err
		}
		s, err := src.Collect(ctx)
		if err != nil {
			return "", err
		}
		return s.Fingerprint(), nil
	}
	fp, err := fingerprint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := applytest.NewPlan().DisableCVO().RestoreCVO().Plan()
	p.Cluster.Fingerprint = fp
	opts := defaults(t)
	opts.AllowStale, opts.Fingerprint, opts.UntilStep = false, fingerprint, p.Steps[0].ID
	// The cluster moves on: the master pool is paused by someone else.
	if _, err := c.MCFG.MachineconfigurationV1().MachineConfigPools().Patch(ctx, "master", "application/merge-patch+json", []byte(`{"spec":{"paused":true}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	res, _ := run(t, ctx, c, p, opts)
	if res.Outcome != apply.OutcomeRefused || !strings.Contains(res.Message, "the cluster changed since the plan was made") {
		t.Fatalf("a stale plan must be refused: %s %s", res.Outcome, res.Message)
	}
	if _, err := c.MCFG.MachineconfigurationV1().MachineConfigPools().Patch(ctx, "master", "application/merge-patch+json", []byte(`{"spec":{"paused":false}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	res, events := run(t, ctx, c, p, opts)
	if res.Outcome != apply.OutcomeStopped {
		t.Fatalf("the plan matches the cluster again: %s %s\n%s", res.Outcome, res.Message, dump(events))
	}
}
