package export_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"

	fleetexport "github.com/openshift-recover/recover/apply/fleet/export"
	"github.com/openshift-recover/recover/apply/fleet/verdict"
	"github.com/openshift-recover/recover/apply/fleet/verdictstore"
	"github.com/openshift-recover/recover/internal/testing/fleetengines"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
	"github.com/openshift-recover/recover/plan/planconfigmap"
)

// newAgent is a work agent as it starts: its own clients and mapper, nothing
// remembered of an earlier run.
func newAgent(t *testing.T) *fleetengines.Agent {
	t.Helper()
	dc, err := discovery.NewDiscoveryClientForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	return &fleetengines.Agent{Dynamic: dynamic.NewForConfigOrDie(env.Config), Mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))}
}

// workSpec is the ManifestWork spec the hub makes of a template (the
// ManifestWorkReplicaSet controller and TALM both copy manifestWorkTemplate).
func workSpec(t *testing.T, tmpl map[string]any) map[string]any {
	t.Helper()
	spec, ok, err := unstructured.NestedMap(tmpl, "spec", "manifestWorkTemplate")
	if !ok || err != nil {
		t.Fatalf("no manifestWorkTemplate: %v", err)
	}
	return spec
}

// spokeNamespaces creates the namespaces, other than recover's own, that the
// template's Roles live in (openshift-* namespaces every OpenShift cluster has).
func spokeNamespaces(t *testing.T, ctx context.Context, spec map[string]any, own string) {
	t.Helper()
	kc := kubernetes.NewForConfigOrDie(env.Config)
	manifests, _, _ := unstructured.NestedSlice(spec, "workload", "manifests")
	for _, m := range manifests {
		if ns := (&unstructured.Unstructured{Object: m.(map[string]any)}).GetNamespace(); ns != "" && ns != own {
			ensureNamespace(t, ctx, kc, ns)
		}
	}
}

// removeSpec deletes, at the end of the test, what the agent applied of spec
// (all but the namespaces), so that no RBAC of it outlives the test: the other
// tests of the package grant their own.
func removeSpec(t *testing.T, spec map[string]any) {
	t.Helper()
	objs := newObjects(t)
	manifests, _, _ := unstructured.NestedSlice(spec, "workload", "manifests")
	t.Cleanup(func() {
		bg := metav1.DeletePropagationBackground
		for _, m := range manifests {
			u := &unstructured.Unstructured{Object: m.(map[string]any)}
			if u.GetKind() == "Namespace" {
				continue
			}
			err := objs.resource(t, u).Delete(context.Background(), u.GetName(), metav1.DeleteOptions{PropagationPolicy: &bg})
			if err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("cleaning up %s %s: %v", u.GetKind(), u.GetName(), err)
			}
		}
	})
}

// notApplied lists the manifests whose Applied is not True, with the agent's message.
func notApplied(st *fleetengines.WorkStatus) []string {
	var out []string
	for _, m := range st.Manifests {
		if !meta.IsStatusConditionTrue(m.Conditions, fleetengines.Applied) {
			c := meta.FindStatusCondition(m.Conditions, fleetengines.Applied)
			out = append(out, fmt.Sprintf("%s %s/%s: %s", m.Resource.Resource, m.Namespace, m.Name, c.Message))
		}
	}
	return out
}

func saveVerdict(t *testing.T, ctx context.Context, o fleetexport.Options, v *verdict.Verdict) {
	t.Helper()
	store := verdictstore.Store{Client: kubernetes.NewForConfigOrDie(env.Config), Namespace: o.Namespace, Name: verdict.DefaultName}
	v.FormatVersion = verdict.FormatVersion
	if err := store.Save(ctx, v); err != nil {
		t.Fatal(err)
	}
}

// savePlanReason stores the wave's plan ConfigMap as inspect --save-plan does
// when there is no plan: why (key reason).
func savePlanReason(t *testing.T, ctx context.Context, o fleetexport.Options) {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: o.Namespace, Name: fleetexport.ApplyPlanConfigMap(o)}, Data: map[string]string{planconfigmap.ReasonKey: "nothing holds the update"}}
	_, err := kubernetes.NewForConfigOrDie(env.Config).CoreV1().ConfigMaps(o.Namespace).Create(ctx, cm, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

func deleteVerdict(t *testing.T, ctx context.Context, o fleetexport.Options) {
	t.Helper()
	err := kubernetes.NewForConfigOrDie(env.Config).CoreV1().ConfigMaps(o.Namespace).Delete(ctx, verdict.DefaultName, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
}

// TestTheWorksSurviveTheAgentsResync applies each exported template as the
// work agent does (fleetengines.Agent: every manifest with its manifestConfigs
// strategy, on the real kube-apiserver), then again as at its periodic resync,
// then as a restarted agent: every manifest stays Applied. The same Job under
// the agent's default strategy is refused as the real agent's was
// ("spec.selector ... field is immutable"), so the resync is really
// exercised. TALM's rule (isManifestWorkReady and expectedValues) counts a
// step done on the status the agent writes after the resync and restart,
// once the verdict says so.
func TestTheWorksSurviveTheAgentsResync(t *testing.T) {
	kubetest.Require(t, env)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	p := examplePlan(t)
	for _, engine := range []fleetexport.Engine{fleetexport.EngineTALM, fleetexport.EngineOCM} {
		t.Run(string(engine), func(t *testing.T) {
			o := options(engine, p)
			o.Wave = "rs" + string(engine)
			in, err := fleetexport.InspectTemplate(o)
			if err != nil {
				t.Fatal(err)
			}
			ap, err := fleetexport.ApplyTemplate(o)
			if err != nil {
				t.Fatal(err)
			}
			deleteVerdict(t, ctx, o)
			for _, step := range []struct {
				name string
				tmpl *fleetexport.Template
				// done is the verdict that completes the step.
				done verdict.Verdict
			}{
				{"inspect", in, verdict.Verdict{Wave: o.Wave, Wedged: true, Remedy: verdict.Remedy{Answer: verdict.AnswerPlan}}},
				{"apply", ap, verdict.Verdict{Wave: o.Wave, Settled: true, Remedy: verdict.Remedy{Answer: verdict.AnswerPlan}}},
			} {
				spec := workSpec(t, step.tmpl.Object)
				spokeNamespaces(t, ctx, spec, o.Namespace)
				removeSpec(t, spec)
				ann := step.tmpl.Object["metadata"].(map[string]any)["annotations"].(map[string]any)[fleetexport.ExpectedValuesAnnotation].(string)
				agent := newAgent(t)
				for i, sync := range []string{"first apply", "resync", "restart"} {
					if sync == "restart" {
						agent = newAgent(t)
					}
					if i == 1 {
						// Between the syncs the step's recover run writes the
						// verdict (and inspect the plan ConfigMap).
						saveVerdict(t, ctx, o, &step.done)
						savePlanReason(t, ctx, o)
					}
					st, err := agent.Sync(ctx, spec, 1)
					if err != nil {
						t.Fatal(err)
					}
					if bad := notApplied(st); len(bad) > 0 || !meta.IsStatusConditionTrue(st.Conditions, fleetengines.Applied) {
						t.Fatalf("%s, %s: the work is not Applied: %v", step.name, sync, bad)
					}
					done, err := st.TALMCompleted(ann)
					if err != nil {
						t.Fatal(err)
					}
					if want := i > 0; done != want {
						t.Errorf("%s, %s: TALM counts the step done: %v, want %v (conditions %+v)", step.name, sync, done, want, st.Conditions)
					}
				}

				// The Job under the agent's default strategy (no manifestConfigs
				// entry) fails its re-apply exactly as the issue quotes.
				plain := runtime.DeepCopyJSON(spec)
				configs, _, _ := unstructured.NestedSlice(plain, "manifestConfigs")
				configs = slices.DeleteFunc(configs, func(c any) bool {
					r, _, _ := unstructured.NestedString(c.(map[string]any), "resourceIdentifier", "resource")
					return r == "jobs"
				})
				if err := unstructured.SetNestedSlice(plain, configs, "manifestConfigs"); err != nil {
					t.Fatal(err)
				}
				st, err := newAgent(t).Sync(ctx, plain, 1)
				if err != nil {
					t.Fatal(err)
				}
				bad := notApplied(st)
				if len(bad) != 1 || !strings.Contains(bad[0], "jobs ") || !strings.Contains(bad[0], "spec.selector") || !strings.Contains(bad[0], "field is immutable") ||
					meta.IsStatusConditionTrue(st.Conditions, fleetengines.Applied) {
					t.Errorf("%s: the Job re-applied with a plain update: %v, want it refused as immutable", step.name, bad)
				}
				if done, _ := st.TALMCompleted(ann); done {
					t.Errorf("%s: TALM counts a work that is Applied=False done", step.name)
				}
			}
		})
	}
}

// TestAnOCMRolloutProceedsPastTheFirstCluster rolls each template out to two
// clusters with maxConcurrency 1 as the ManifestWorkReplicaSet controller
// does (fleetengines.Progressive and ClusterRolloutStatus): the first
// cluster's ManifestWork is created on the hub, applied by the agent on the
// spoke, and its status written to the hub's ManifestWork (the real CRD's
// status schema). The second cluster gets its work only once the first
// cluster's verdict of the wave is written (and, for apply, settled); the
// same templates without condition rules would hold the rollout on the first
// cluster for ever (no Progressing condition, so ToApply).
func TestAnOCMRolloutProceedsPastTheFirstCluster(t *testing.T) {
	kubetest.Require(t, env)
	crds := fleetCRDs(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	if err := kubetest.InstallCRDs(ctx, env.Config, crds); err != nil {
		t.Fatal(err)
	}
	kc := kubernetes.NewForConfigOrDie(env.Config)
	objs := newObjects(t)
	p := examplePlan(t)
	o := options(fleetexport.EngineOCM, p)
	o.Wave, o.Canaries, o.MaxConcurrency = "ro", nil, 1
	ensureNamespace(t, ctx, kc, "sno-a")
	in, err := fleetexport.InspectTemplate(o)
	if err != nil {
		t.Fatal(err)
	}
	ap, err := fleetexport.ApplyTemplate(o)
	if err != nil {
		t.Fatal(err)
	}
	clusters := []string{"sno-a", "sno-b"}
	deleteVerdict(t, ctx, o)
	// A node where the Jobs' pods run to completion (kwok), as on sno-a.
	if _, err := env.NewFakeNode(ctx, "fleet-node", nil); err != nil {
		t.Fatal(err)
	}
	jobFinished := func(name string) { waitJob(t, ctx, kc, o.Namespace, name, batchv1.JobComplete, batchv1.JobFailed) }

	// rolloutAfter creates (or updates) sno-a's ManifestWork of spec on the
	// hub, syncs it with the agent on the spoke, writes the status to the
	// hub and answers which clusters the controller gives the work to next.
	generation := map[string]int64{}
	rolloutAfter := func(name string, spec map[string]any) []string {
		t.Helper()
		mw := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "work.open-cluster-management.io/v1", "kind": "ManifestWork",
			"metadata": map[string]any{"name": name, "namespace": "sno-a",
				"labels": map[string]any{fleetexport.ReplicaSetLabel: fleetexport.ReplicaSetLabelValue(o.HubNamespace, name)}},
			"spec": spec}}
		res := objs.resource(t, mw)
		live, err := res.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			if live, err = res.Create(ctx, mw, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		} else if generation[name] == 0 || !equalSpec(live.Object["spec"], spec) {
			live.Object["spec"] = spec
			if live, err = res.Update(ctx, live, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		generation[name] = live.GetGeneration()
		st, err := newAgent(t).Sync(ctx, spec, live.GetGeneration())
		if err != nil {
			t.Fatal(err)
		}
		live.Object["status"] = st.Object()
		if live, err = res.UpdateStatus(ctx, live, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("the agent's status refused by the ManifestWork CRD: %v", err)
		}
		// The controller reads the hub's copy.
		var status struct {
			Conditions []metav1.Condition `json:"conditions"`
		}
		raw, _, _ := unstructured.NestedMap(live.Object, "status")
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &status); err != nil {
			t.Fatal(err)
		}
		s := fleetengines.ClusterRolloutStatus(live.GetGeneration(), status.Conditions)
		return fleetengines.Progressive(nil, clusters, map[string]fleetengines.RolloutStatus{"sno-a": s}, o.MaxConcurrency, 0)
	}
	only := func(got []string, want ...string) bool { return slices.Equal(got, want) }

	if got := fleetengines.Progressive(nil, clusters, nil, o.MaxConcurrency, 0); !only(got, "sno-a") {
		t.Fatalf("the rollout starts with %v, want sno-a", got)
	}
	for _, step := range []struct {
		name    string
		tmpl    *fleetexport.Template
		waiting []verdict.Verdict
		done    verdict.Verdict
	}{
		{"inspect", in, []verdict.Verdict{{Wave: "earlier", Settled: true}}, verdict.Verdict{Wave: o.Wave, Wedged: true}},
		{"apply", ap, []verdict.Verdict{{Wave: o.Wave, Wedged: true}, {Wave: "earlier", Settled: true}}, verdict.Verdict{Wave: o.Wave, Settled: true}},
	} {
		spec := workSpec(t, step.tmpl.Object)
		spokeNamespaces(t, ctx, spec, o.Namespace)
		removeSpec(t, spec)
		name := fleetexport.InspectTemplateName(o.Wave)
		if step.name == "apply" {
			name = fleetexport.ApplyTemplateName(o.Wave)
		}
		for _, v := range step.waiting {
			saveVerdict(t, ctx, o, &v)
			if got := rolloutAfter(name, spec); !only(got, "sno-a") {
				t.Errorf("%s: with the verdict %+v the rollout moves to %v, want it on sno-a", step.name, v, got)
			}
		}
		saveVerdict(t, ctx, o, &step.done)
		job := fleetexport.InspectJobName(o.Wave)
		if step.name == "apply" {
			job = fleetexport.ApplyJobName(o.Wave)
		}
		jobFinished(job)
		if got := rolloutAfter(name, spec); !only(got, "sno-b") {
			t.Errorf("%s: with sno-a's verdict written the rollout gives the work to %v, want sno-b", step.name, got)
		}

		// Without condition rules the first cluster holds the rollout.
		bare := runtime.DeepCopyJSON(spec)
		configs, _, _ := unstructured.NestedSlice(bare, "manifestConfigs")
		for _, c := range configs {
			delete(c.(map[string]any), "conditionRules")
		}
		_ = unstructured.SetNestedSlice(bare, configs, "manifestConfigs")
		if got := rolloutAfter(name, bare); !only(got, "sno-a") {
			t.Errorf("%s: without condition rules the rollout moves to %v: the rule restated is not the controller's", step.name, got)
		}
	}
}

func equalSpec(a, b any) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

// waitJob waits until the Job has one of the conditions True (the kwok node
// runs its pod).
func waitJob(t *testing.T, ctx context.Context, kc kubernetes.Interface, namespace, name string, conditions ...batchv1.JobConditionType) {
	t.Helper()
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		j, err := kc.BatchV1().Jobs(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, c := range j.Status.Conditions {
			if slices.Contains(conditions, c.Type) && c.Status == corev1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("the Job %s has none of %v: %v", name, conditions, err)
	}
}
