package export_test

import (
	"context"
	"slices"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	fleetexport "github.com/openshift-recover/recover/apply/fleet/export"
	"github.com/openshift-recover/recover/apply/fleet/verdict"
	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/internal/testing/fleetengines"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

// TestAStagedWaveRunsItsStagesInOrder exports a staged wave (the EUS plan
// 4.18.3 -> 4.18.9 -> 4.19.14 -> 4.20.3) for TALM and runs it on the real
// kube-apiserver with the engines' real CRDs: every document is created on
// the hub (the CRDs' schemas judge them, the CGUs' status too), TALM's
// blocking rule (fleetengines.BlockersNotCompleted, ClustersPastBlockers)
// decides which stage's CGU may start, and each step of a started CGU is the
// ManifestWork of its template applied by the work agent
// (fleetengines.Agent) on this apiserver as the spoke, completed by TALM's
// rule on the status the agent writes.
//
//   - The later stages' CGUs are tried first every round and stay blocked
//     until the stage before them has its Succeeded condition: the stages
//     run 1, 2, 3.
//   - sno-2 times out in stage 1 (its run never reports): in the partial
//     mode stage 2 still starts, for sno-1 only.
//   - A stage is not complete while its Job runs, nor once the Job finished
//     (a kwok node runs its pod) while ClusterVersion still shows the stage's
//     from release; it is when the CVO reports its release Completed, and
//     the last stage only once the verdict also says the run settled (the
//     pools unpaused). OCM's rollout reads the same work as Succeeded then,
//     and not before.
func TestAStagedWaveRunsItsStagesInOrder(t *testing.T) {
	kubetest.Require(t, env)
	crds := fleetCRDs(t)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	if err := kubetest.InstallCRDs(ctx, env.Config, crds); err != nil {
		t.Fatal(err)
	}
	if fleetexport.BlockingCompletionModeAnnotation != fleetengines.BlockingCompletionModeAnnotation ||
		fleetexport.BlockingClusterFilterAnnotation != fleetengines.BlockingClusterFilterAnnotation || fleetexport.PartialBlockingCompletion != fleetengines.PartialBlockingCompletion {
		t.Fatal("the exported annotations are not the ones TALM reads")
	}
	c, err := applytest.Setup(ctx, env)
	if err != nil {
		t.Fatalf("fixture cluster: %v (logs in %s)", err, env.Dir)
	}
	if _, err := env.NewFakeNode(ctx, "fleet-node", nil); err != nil {
		t.Fatal(err)
	}
	kc := kubernetes.NewForConfigOrDie(env.Config)
	objs := newObjects(t)
	o, p := stagedOptions(fleetexport.EngineTALM)
	o.Wave, o.Clusters, o.Canaries = "st", []string{"sno-1", "sno-2"}, nil
	deleteVerdict(t, ctx, o)

	// The spoke's ClusterVersion, as the CVO reports it.
	cvs := c.OSConfig.ConfigV1().ClusterVersions()
	var saved *configv1.ClusterVersionStatus
	setCV := func(version string) {
		t.Helper()
		if _, err := applytest.Update(ctx, cvs.Get, cvs.UpdateStatus, "version", func(cv *configv1.ClusterVersion) {
			if saved == nil {
				saved = cv.Status.DeepCopy()
			}
			now := metav1.Now()
			cv.Status.Desired = configv1.Release{Version: version}
			cv.Status.History = append([]configv1.UpdateHistory{{State: configv1.CompletedUpdate, Version: version, Image: "quay.io/openshift-release-dev/ocp-release:" + version,
				StartedTime: now, CompletionTime: &now}}, cv.Status.History...)
		}); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if saved != nil {
			_, _ = applytest.Update(context.Background(), cvs.Get, cvs.UpdateStatus, "version", func(cv *configv1.ClusterVersion) { cv.Status = *saved })
		}
	})
	setCV(p.Stages[0].From)

	// Every document, created on the hub.
	docs, err := fleetexport.Documents(o)
	if err != nil {
		t.Fatal(err)
	}
	ensureNamespace(t, ctx, kc, o.HubNamespace)
	templates := map[string]map[string]any{}
	var cgus []*unstructured.Unstructured
	for _, d := range docs {
		u := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(d.Object)}
		res := objs.resource(t, u)
		live, err := res.Create(ctx, u, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("%s refused by the real CRD: %v", d.File, err)
		}
		t.Cleanup(func() { _ = res.Delete(context.Background(), live.GetName(), metav1.DeleteOptions{}) })
		switch live.GetKind() {
		case "ManifestWorkReplicaSet":
			templates[live.GetName()] = d.Object
		case "ClusterGroupUpgrade":
			cgus = append(cgus, live)
		}
	}
	if len(cgus) != len(p.Stages) {
		t.Fatalf("%d ClusterGroupUpgrades for %d stages", len(cgus), len(p.Stages))
	}

	jobFinished := func(name string) { waitJob(t, ctx, kc, o.Namespace, name, batchv1.JobComplete) }
	// sync applies a template's ManifestWork with the agent and answers
	// whether TALM counts the step complete and OCM's rollout sees it
	// succeeded.
	sync := func(name string) (talm, ocm bool) {
		t.Helper()
		tmpl := templates[name]
		spec := workSpec(t, tmpl)
		st, err := newAgent(t).Sync(ctx, spec, 1)
		if err != nil {
			t.Fatal(err)
		}
		if bad := notApplied(st); len(bad) > 0 {
			t.Fatalf("%s: not applied: %v", name, bad)
		}
		talm, err = st.TALMCompleted(annotations(tmpl)[fleetexport.ExpectedValuesAnnotation])
		if err != nil {
			t.Fatal(err)
		}
		return talm, fleetengines.ClusterRolloutStatus(1, st.Conditions) == fleetengines.Succeeded
	}
	// runStep is one cluster's step of a template: the work applied, the
	// spoke's run played, the step completed.
	runStep := func(name string) {
		t.Helper()
		spec := workSpec(t, templates[name])
		spokeNamespaces(t, ctx, spec, o.Namespace)
		removeSpec(t, spec)
		if talm, ocm := sync(name); talm || ocm {
			t.Fatalf("%s: complete (TALM %v, OCM %v) before anything ran", name, talm, ocm)
		}
		if name == fleetexport.InspectTemplateName(o.Wave) {
			// The inspect Job stores the staged plan and the verdict.
			saveVerdict(t, ctx, o, &verdict.Verdict{Wave: o.Wave, Wedged: false, Remedy: verdict.Remedy{Answer: verdict.AnswerNone}})
			savePlanReason(t, ctx, o)
			if talm, _ := sync(name); !talm {
				t.Fatalf("%s: TALM does not complete the inspect step on this wave's verdict", name)
			}
			return
		}
		var st = p.Stages[0]
		for _, s := range p.Stages {
			if fleetexport.StageTemplateName(o.Wave, s.Index) == name {
				st = s
			}
		}
		jobFinished(fleetexport.StageJobName(o.Wave, st.Index))
		if talm, ocm := sync(name); talm || ocm {
			t.Fatalf("stage %d: complete (TALM %v, OCM %v) with its Job done but ClusterVersion at %s", st.Index, talm, ocm, st.From)
		}
		setCV(st.To)
		last := st.Index == len(p.Stages)
		if talm, ocm := sync(name); talm != !last || ocm != !last {
			t.Fatalf("stage %d with the CVO at %s: TALM %v, OCM %v, want %v (the last stage waits for the verdict)", st.Index, st.To, talm, ocm, !last)
		}
		if last {
			saveVerdict(t, ctx, o, &verdict.Verdict{Wave: o.Wave, Settled: true, Remedy: verdict.Remedy{Answer: verdict.AnswerNone}})
			if talm, ocm := sync(name); !talm || !ocm {
				t.Fatalf("the last stage settled: TALM %v, OCM %v", talm, ocm)
			}
		}
	}

	// TALM, round by round; the later stages try first.
	status := map[string]*fleetengines.CGUStatus{}
	var order []int
	var stage2Clusters []string
	blockedTries := 0
	for round := 0; round <= len(cgus) && len(order) < len(cgus); round++ {
		for i := len(cgus) - 1; i >= 0; i-- {
			cg := cgus[i]
			if status[cg.GetName()] != nil {
				continue
			}
			var blocking []string
			bs, _, _ := unstructured.NestedSlice(cg.Object, "spec", "blockingCRs")
			for _, b := range bs {
				blocking = append(blocking, b.(map[string]any)["name"].(string))
			}
			if notDone, missing := fleetengines.BlockersNotCompleted(cg.GetAnnotations(), blocking, status); len(notDone)+len(missing) > 0 {
				blockedTries++
				continue
			}
			clusters, _, _ := unstructured.NestedStringSlice(cg.Object, "spec", "clusters")
			clusters = fleetengines.ClustersPastBlockers(cg.GetAnnotations(), blocking, status, clusters)
			if i == 1 {
				stage2Clusters = clusters
			}
			tmpls, _, _ := unstructured.NestedStringSlice(cg.Object, "spec", "manifestWorkTemplates")
			states := map[string]string{}
			all := true
			for _, cl := range clusters {
				if cl == "sno-2" {
					states[cl], all = "timedout", false
					continue
				}
				for _, name := range tmpls {
					runStep(name)
				}
				states[cl] = fleetengines.ClusterComplete
			}
			st := &fleetengines.CGUStatus{Clusters: states, Conditions: []metav1.Condition{{Type: fleetengines.CGUSucceeded, Status: metav1.ConditionFalse,
				Reason: "TimedOut", Message: "not every cluster completed", LastTransitionTime: metav1.Now()}}}
			if all {
				st.Conditions[0].Status, st.Conditions[0].Reason, st.Conditions[0].Message = metav1.ConditionTrue, "Completed", "every cluster completed"
			}
			status[cg.GetName()] = st
			order = append(order, i+1)
			// TALM's status, as the CRD takes it.
			res := objs.resource(t, cg)
			live, err := res.Get(ctx, cg.GetName(), metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var list []any
			for _, cl := range clusters {
				list = append(list, map[string]any{"name": cl, "state": states[cl]})
			}
			cond, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(&st.Conditions[0])
			live.Object["status"] = map[string]any{"clusters": list, "conditions": []any{cond}}
			if _, err := res.UpdateStatus(ctx, live, metav1.UpdateOptions{}); err != nil {
				t.Fatalf("the CGU status refused by the real CRD: %v", err)
			}
		}
	}
	if !slices.Equal(order, []int{1, 2, 3}) {
		t.Fatalf("the stages ran in the order %v, want 1 2 3", order)
	}
	if blockedTries != 3 { // round 1: stages 3 and 2; round 2: stage 3
		t.Errorf("%d tries of a blocked stage, want 3", blockedTries)
	}
	if !slices.Equal(stage2Clusters, []string{"sno-1"}) {
		t.Errorf("stage 2 ran on %v, want sno-1 only (sno-2 timed out in stage 1)", stage2Clusters)
	}
	cv, err := cvs.Get(ctx, "version", metav1.GetOptions{})
	if err != nil || cv.Status.History[0].Version != p.Goal {
		t.Errorf("the cluster ended at %v (%v), want %s", cv.Status.History[0].Version, err, p.Goal)
	}
}
