package export_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/openshift-recover/recover/apply"
	fleetexport "github.com/openshift-recover/recover/apply/fleet/export"
	"github.com/openshift-recover/recover/apply/fleet/verdict"
	"github.com/openshift-recover/recover/apply/fleet/verdictstore"
	"github.com/openshift-recover/recover/apply/incluster"
	applyjournal "github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/internal/testing/fleetengines"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
	"github.com/openshift-recover/recover/internal/testing/recoverbin"
	"github.com/openshift-recover/recover/plan/planfile"
)

// runRecover runs the recover binary against the test control plane.
func runRecover(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return recoverbin.Run(t, []string{"HOME=" + t.TempDir()}, append([]string{"--kubeconfig", env.Kubeconfig}, args...)...)
}

// serviceAccountUser is the user name a service account's token authenticates as.
func serviceAccountUser(ns, name string) string { return "system:serviceaccount:" + ns + ":" + name }

// createSpokeRBAC creates, for real, the Namespace, ServiceAccount and RBAC a
// template carries (what the work agent would apply); the Job and the
// ConfigMaps recover writes are left to the test.
func createSpokeRBAC(t *testing.T, ctx context.Context, objs *objects, tmpl map[string]any) {
	t.Helper()
	manifests, _, _ := unstructured.NestedSlice(tmpl, "spec", "manifestWorkTemplate", "workload", "manifests")
	for _, m := range manifests {
		u := &unstructured.Unstructured{Object: m.(map[string]any)}
		switch u.GetKind() {
		case "Job", "ConfigMap":
			continue
		}
		// The openshift-* namespaces of the Roles exist on every OpenShift
		// cluster, not on the fixture's.
		if ns := u.GetNamespace(); ns != "" {
			ensureNamespace(t, ctx, kubernetes.NewForConfigOrDie(env.Config), ns)
		}
		if _, err := objs.resource(t, u).Create(ctx, u, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("%s %s: %v", u.GetKind(), u.GetName(), err)
		}
	}
}

// talmCompleted answers, for the ManifestWork TALM makes of tmpl on this
// cluster, whether TALM counts the step complete: the work agent's feedback
// (the template's own feedbackRules evaluated on the live objects) against the
// template's expectedValues annotation. The work is available when every
// ConfigMap it reads exists (the agent applies the rest as it is).
func talmCompleted(t *testing.T, ctx context.Context, objs *objects, tmpl map[string]any) bool {
	t.Helper()
	spec, _, _ := unstructured.NestedMap(tmpl, "spec", "manifestWorkTemplate")
	manifests, _, _ := unstructured.NestedSlice(spec, "workload", "manifests")
	configs, _, _ := unstructured.NestedSlice(spec, "manifestConfigs")
	status := map[int32]fleetengines.Manifest{}
	workReady := true
	for i, m := range manifests {
		u := &unstructured.Unstructured{Object: m.(map[string]any)}
		st := fleetengines.Manifest{Ready: true, Feedback: map[string]fleetengines.Value{}}
		if u.GetKind() == "ConfigMap" {
			live, err := objs.resource(t, u).Get(ctx, u.GetName(), metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				st.Ready, workReady = false, false
			} else if err != nil {
				t.Fatal(err)
			}
			for _, c := range configs {
				cfg := c.(map[string]any)
				id, _, _ := unstructured.NestedStringMap(cfg, "resourceIdentifier")
				if id["resource"] != "configmaps" || id["name"] != u.GetName() || id["namespace"] != u.GetNamespace() || live == nil {
					continue
				}
				rules, _, _ := unstructured.NestedSlice(cfg, "feedbackRules")
				for _, r := range rules {
					paths, _, _ := unstructured.NestedSlice(r.(map[string]any), "jsonPaths")
					for _, p := range paths {
						jp := p.(map[string]any)
						name, path := jp["name"].(string), jp["path"].(string)
						v, ok, err := fleetengines.FeedbackValue(live.Object, name, path)
						if err != nil {
							st.Ready = false // StatusFeedbackSynced False
						}
						if ok {
							st.Feedback[name] = v
						}
					}
				}
			}
		}
		status[int32(i)] = st
	}
	ann, _, _ := unstructured.NestedString(tmpl, "metadata", "annotations", fleetexport.ExpectedValuesAnnotation)
	done, err := fleetengines.Completed(workReady, ann, status)
	if err != nil {
		t.Fatalf("the expectedValues annotation %q: %v", ann, err)
	}
	return done
}

// wedgeThePool pauses the master pool with 1 of its 3 machines updated while
// ClusterVersion updates to 4.4.4: PoolPaused holds the update (W11), and the
// remedy is unpause-pool. The cleanup puts the fixture back.
func wedgeThePool(t *testing.T, ctx context.Context, c *applytest.Cluster) {
	t.Helper()
	pools := c.MCFG.MachineconfigurationV1().MachineConfigPools()
	if _, err := pools.Patch(ctx, "master", "application/merge-patch+json", []byte(`{"spec":{"paused":true}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	setPool := func(updated int32) error {
		_, err := applytest.Update(ctx, pools.Get, pools.UpdateStatus, "master", func(p *mcfgv1.MachineConfigPool) {
			p.Status.ObservedGeneration, p.Status.MachineCount, p.Status.UpdatedMachineCount, p.Status.ReadyMachineCount = p.Generation, 3, updated, updated
		})
		return err
	}
	if err := setPool(1); err != nil {
		t.Fatal(err)
	}
	cvs := c.OSConfig.ConfigV1().ClusterVersions()
	var saved *configv1.ClusterVersionStatus
	if _, err := applytest.Update(ctx, cvs.Get, cvs.UpdateStatus, "version", func(cv *configv1.ClusterVersion) {
		saved = cv.Status.DeepCopy()
		cv.Status.Desired = configv1.Release{Version: applytest.TargetVersion, Image: applytest.TargetImage}
		cv.Status.History = append([]configv1.UpdateHistory{{State: configv1.PartialUpdate, Version: applytest.TargetVersion, Image: applytest.TargetImage, StartedTime: metav1.Now()}}, cv.Status.History...)
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		_, _ = applytest.Update(ctx, cvs.Get, cvs.UpdateStatus, "version", func(cv *configv1.ClusterVersion) { cv.Status = *saved })
		_ = c.Reset(ctx)
		_ = setPool(3)
	})
}

// playMCO rolls the master pool out once it is unpaused, as the machine-config
// operator would, until ctx ends.
func playMCO(ctx context.Context, c *applytest.Cluster) {
	pools := c.MCFG.MachineconfigurationV1().MachineConfigPools()
	_ = wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		p, err := pools.Get(ctx, "master", metav1.GetOptions{})
		if err != nil || p.Spec.Paused || p.Status.UpdatedMachineCount == p.Status.MachineCount {
			return false, nil
		}
		p.Status.UpdatedMachineCount, p.Status.ReadyMachineCount = p.Status.MachineCount, p.Status.MachineCount
		_, _ = pools.UpdateStatus(ctx, p, metav1.UpdateOptions{}) // a conflict is retried at the next poll, as the MCO would
		return false, nil
	})
}

// TestAWaveOnARealAPIServer runs one cluster's wave as the TALM templates
// would, on the real kube-apiserver: the identities and RBAC the templates
// carry, the recover binary with the Jobs' own arguments (impersonating the
// Jobs' service accounts), and TALM's completion rule evaluated with the
// templates' own feedback rules and expectedValues on the verdict those runs
// wrote.
//
//  1. A verdict of an earlier wave does not complete the inspect step.
//  2. recover inspect --verdict --save-plan as recover-inspect reads the
//     cluster without a forbidden resource, finds the paused pool, and writes
//     the verdict and the plan (the ConfigMaps apply --in-cluster reads, their
//     digest the verdict's): the inspect step completes, the apply step not.
//  3. The apply Job's arguments (recover apply --in-cluster: the plan from
//     that ConfigMap, the journal kept in the cluster, --verdict) as
//     recover-apply are refused before its RBAC exists and changes nothing;
//     with the apply template's RBAC, generated from the plan, the run passes
//     preflight (permissions and the live fingerprint) and runs the plan: the
//     pool is unpaused, the journal in the cluster is finished, the verdict
//     says completed and settled, and the apply step completes.
func TestAWaveOnARealAPIServer(t *testing.T) {
	kubetest.Require(t, env)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	c, err := applytest.Setup(ctx, env)
	if err != nil {
		t.Fatalf("fixture cluster: %v (logs in %s)", err, env.Dir)
	}
	go c.RunFakes(ctx)
	go playMCO(ctx, c)
	wedgeThePool(t, ctx, c)
	objs := newObjects(t)
	o := options(fleetexport.EngineTALM, nil)
	o.Wave = "w2"

	in, err := fleetexport.InspectTemplate(o)
	if err != nil {
		t.Fatal(err)
	}
	createSpokeRBAC(t, ctx, objs, in.Object)
	store := verdictstore.Store{Client: c.Kube, Namespace: o.Namespace, Name: verdict.DefaultName}
	old := &verdict.Verdict{FormatVersion: verdict.FormatVersion, Wave: "w1", Settled: true, Remedy: verdict.Remedy{Answer: verdict.AnswerNone}}
	if err := store.Save(ctx, old); err != nil {
		t.Fatal(err)
	}
	if talmCompleted(t, ctx, objs, in.Object) {
		t.Fatal("TALM would complete the inspect step on an earlier wave's verdict")
	}

	// 2. The inspect Job's run.
	inspectAs := "--as=" + serviceAccountUser(o.Namespace, fleetexport.InspectServiceAccount)
	code, out, errOut := runRecover(t, append(fleetexport.InspectArgs(o), inspectAs)...)
	if code != 0 {
		t.Fatalf("inspect as the inspect Job: exit %d\n%s\n%s", code, errOut, out)
	}
	code, out, errOut = runRecover(t, "inspect", "-o", "json", inspectAs)
	if code != 0 {
		t.Fatalf("inspect -o json: exit %d %s", code, errOut)
	}
	var snap inspect.Snapshot
	if err := json.Unmarshal([]byte(out), &snap); err != nil {
		t.Fatal(err)
	}
	for _, r := range snap.Resources {
		if r.State == inspect.Forbidden {
			t.Errorf("the inspect Job's RBAC does not let it read %s: %s", r.Key(), r.Reason)
		}
	}
	v, err := store.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Wedged || len(v.Causes) == 0 || v.Causes[0].Code != inspect.CodePoolPaused || v.Remedy.Answer != verdict.AnswerPlan ||
		!slices.Equal(v.Remedy.Remedies, []string{planfile.RemedyUnpausePool}) || v.Settled || v.Wave != o.Wave {
		t.Fatalf("verdict %+v", v)
	}
	if !talmCompleted(t, ctx, objs, in.Object) {
		t.Error("TALM would not complete the inspect step on this wave's verdict")
	}
	// The plan as apply --in-cluster reads it.
	p, digest, _, err := incluster.LoadPlan(ctx, c.Kube, o.Namespace, fleetexport.ApplyPlanConfigMap(o))
	if err != nil {
		t.Fatal(err)
	}
	if digest != v.Remedy.PlanDigest {
		t.Errorf("the plan ConfigMap holds %s, the verdict names %s", digest, v.Remedy.PlanDigest)
	}

	// 3. The apply Job's run, with the RBAC generated from the plan.
	o.Plan = p
	ap, err := fleetexport.ApplyTemplate(o)
	if err != nil {
		t.Fatal(err)
	}
	if talmCompleted(t, ctx, objs, ap.Object) {
		t.Fatal("TALM would complete the apply step before anything was applied")
	}
	applyAs := "--as=" + serviceAccountUser(o.Namespace, fleetexport.ApplyServiceAccount)
	journal := incluster.NewJournalStore(c.Kube, o.Namespace, fleetexport.ApplyJournal(o))
	// Without its RBAC the same identity is refused and changes nothing:
	// the permissions below are what lets it run.
	if code, _, errOut := runRecover(t, append(fleetexport.ApplyArgs(o), applyAs)...); code != 5 || !strings.Contains(errOut, "forbidden") {
		t.Fatalf("apply without the apply RBAC: exit %d, want 5 (forbidden)\n%s", code, errOut)
	}
	if exists, err := journal.Exists(ctx); err != nil || exists {
		t.Fatalf("a refused run left a journal (%v)", err)
	}
	createSpokeRBAC(t, ctx, objs, ap.Object)
	code, out, errOut = runRecover(t, append(fleetexport.ApplyArgs(o), applyAs)...)
	if code != 0 {
		t.Fatalf("apply as the apply Job: exit %d\n%s\n%s", code, errOut, out)
	}
	pool, err := c.MCFG.MachineconfigurationV1().MachineConfigPools().Get(ctx, "master", metav1.GetOptions{})
	if err != nil || pool.Spec.Paused {
		t.Errorf("the pool is still paused after the run (%v)", err)
	}
	j, err := applyjournal.LoadFrom(journal)
	if err != nil {
		t.Fatalf("the run's journal in the cluster: %v", err)
	}
	if st := j.State(); !st.Finished || st.CVO.Disabled || j.Header.Plan.Digest != v.Remedy.PlanDigest {
		t.Errorf("journal in the cluster: finished %v, CVO %+v, plan %+v", st.Finished, st.CVO, j.Header.Plan)
	}
	v, err = store.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if a := v.Apply; a == nil || a.Phase != verdict.PhaseDone || a.Result != string(apply.OutcomeCompleted) || !v.Settled || a.CVODisabled || a.PlanDigest != v.Remedy.PlanDigest {
		t.Errorf("verdict after the run: %+v apply %+v", v, v.Apply)
	}
	if !talmCompleted(t, ctx, objs, ap.Object) {
		cm, _ := c.Kube.CoreV1().ConfigMaps(o.Namespace).Get(ctx, verdict.DefaultName, metav1.GetOptions{})
		t.Errorf("TALM would not complete the apply step on the verdict of a completed run: %v", cm.Data)
	}
}
