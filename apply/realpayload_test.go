package apply_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/inspect/live"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
	"github.com/openshift-recover/recover/internal/testing/realpayload"
	"github.com/openshift-recover/recover/internal/testing/referee"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/graph"
)

// realRun is one run of the real 4.4 payload over a 4.3.19 cluster.
type realRun struct {
	cluster  *realpayload.Cluster
	plan     *plan.Plan
	result   *apply.Result
	events   []apply.Event
	elapsed  time.Duration
	restated realpayload.Restated
	cases    []referee.MergeCase
	// written is what the engine wrote, by object: created or updated.
	written map[realpayload.Key]string
	steps   map[string]realpayload.Key
}

// runRealPayload loads the real 4.3 payload's objects, as a cluster holds them
// (the referee's live objects: server defaults, controller-injected CA data, an
// administrator's label and restartedAt), into a fresh real kube-apiserver,
// plans the hop to the real 4.4 payload from a live snapshot (recover plan) and
// applies every step with the engine (recover apply --yes). The operators a
// bare API server lacks are played (realpayload.Players); workloads roll out
// for real.
func runRealPayload(tb testing.TB) *realRun {
	tb.Helper()
	kubetest.Require(tb, env)
	realdata := referee.RealData(tb)
	rctx, cases := referee.LoadMergeCases(tb, referee.MergeCasesFile)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	tb.Cleanup(cancel)
	fresh, err := env.Fresh()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(fresh.Stop)
	// The operators' node selectors name the role and the OS.
	linux := func(role string) map[string]string {
		return map[string]string{"node-role.kubernetes.io/" + role: "", "kubernetes.io/os": "linux", "beta.kubernetes.io/os": "linux"}
	}
	for _, n := range []string{"master-0", "master-1", "master-2"} {
		if _, err := fresh.NewFakeNode(ctx, n, linux("master")); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := fresh.NewFakeNode(ctx, "worker-0", linux("worker")); err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	served43, served44 := filepath.Join(dir, "4.3"), filepath.Join(dir, "4.4")
	if _, err := realpayload.Served(filepath.Join(realdata, "payload-release-4.3"), served43); err != nil {
		tb.Fatal(err)
	}
	restated, err := realpayload.Served(filepath.Join(realdata, "payload-release-4.4"), served44)
	if err != nil {
		tb.Fatal(err)
	}
	crds, err := realpayload.CRDs(served44)
	if err != nil {
		tb.Fatal(err)
	}
	cluster, err := realpayload.Load(ctx, fresh.Config, rctx, cases, crds)
	if err != nil {
		tb.Fatalf("loading the 4.3 cluster: %v", err)
	}

	// The first incident: the out-of-order reconcile reached the DNS operator.
	if err := cluster.Reconciled(ctx, "dns", "openshift-dns-operator", "dns-operator", "4.4.3"); err != nil {
		tb.Fatalf("modeling the reconciled wedge: %v", err)
	}

	// recover plan, from the live cluster.
	src, err := live.New(fresh.Config, live.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	snap, err := src.Collect(ctx)
	if err != nil {
		tb.Fatalf("recover inspect: %v", err)
	}
	graphFile := filepath.Join(dir, "graph.json")
	if err := os.WriteFile(graphFile, []byte(fmt.Sprintf(`{"nodes":[
 {"version":%q,"payload":%q,"metadata":{"io.openshift.upgrades.graph.release.channels":"stable-4.3,stable-4.4"}},
 {"version":"4.4.3","payload":"quay.io/openshift-release-dev/ocp-release@sha256:039a4ef7c128a049ccf916a1d68ce93e8f5494b44d5a75df60c85e9e7191dacc","metadata":{"io.openshift.upgrades.graph.release.channels":"stable-4.4"}},
 {"version":%q,"payload":%q,"metadata":{"io.openshift.upgrades.graph.release.channels":"stable-4.4"}}],
 "edges":[[0,2],[1,2]]}`, realpayload.CurrentVersion, realpayload.CurrentImage, realpayload.TargetVersion, realpayload.TargetImage)), 0o644); err != nil {
		tb.Fatal(err)
	}
	g, err := graph.Load(ctx, graph.Options{Graph: graphFile, Channel: "stable-4.4"})
	if err != nil {
		tb.Fatal(err)
	}
	p, err := plan.Make(ctx, plan.Options{Snapshot: snap, SnapshotSource: "live", Graph: g, Payload: plan.PayloadDir{Dir: served44, Version: realpayload.TargetVersion}, Generator: "realpayload-test"})
	if err != nil {
		tb.Fatalf("recover plan: %v", err)
	}

	// recover apply --yes, the players answering for the missing operators.
	players, err := cluster.Play(ctx, p)
	if err != nil {
		tb.Fatal(err)
	}
	eng, err := apply.New(fresh.Config)
	if err != nil {
		tb.Fatal(err)
	}
	r := &realRun{cluster: cluster, plan: p, restated: restated, cases: cases, written: map[realpayload.Key]string{}, steps: map[string]realpayload.Key{}}
	for _, st := range p.Steps {
		if st.Manifest != nil {
			r.steps[st.ID] = realpayload.Key{Group: groupOf(st.Manifest.APIVersion), Kind: st.Manifest.Kind, Namespace: st.Manifest.Namespace, Name: st.Manifest.Name}
		}
	}
	start := time.Now()
	res, _ := eng.Execute(ctx, p, apply.Options{
		JournalPath: filepath.Join(dir, "run.journal"), IHaveABackup: true, AllowStale: true,
		PlanPath: "plan.json", PlanDigest: "sha256:realpayload", Decider: apply.AutoDecider{}, Heartbeat: -1,
		// The players answer in milliseconds and workloads roll out in
		// seconds: a gate still open after minutes is a failure to report.
		Timeouts: map[plan.GateKind]time.Duration{plan.GateClusterOperator: 3 * time.Minute, plan.GateStaticPods: 3 * time.Minute, plan.GateWorkloadRollout: 5 * time.Minute},
	}, func(e apply.Event) {
		r.events = append(r.events, e)
		players.Observe(e)
		if os.Getenv("RECOVER_E2E_DEBUG") != "" {
			id := ""
			if e.Step != nil {
				id = e.Step.ID
			}
			fmt.Fprintf(os.Stderr, "APPLY %s %s %s %s\n", time.Now().Format("15:04:05.000"), e.Type, id, e.Message)
		}
		if e.Type == apply.EventApplied && e.Step != nil && e.Change != nil && (e.Change.Result == "created" || e.Change.Result == "updated") {
			if k, ok := r.steps[e.Step.ID]; ok {
				r.written[k] = e.Change.Result
			}
		}
	})
	r.elapsed = time.Since(start)
	if errs := players.Stop(); len(errs) > 0 {
		tb.Errorf("the players failed: %v", errs)
	}
	if res == nil {
		tb.Fatal("no result")
	}
	r.result = res
	return r
}

func groupOf(apiVersion string) string {
	if g, _, ok := strings.Cut(apiVersion, "/"); ok {
		return g
	}
	return ""
}

// TestRealPayloadAppliesAsTheCVO is the real payload end to end: every step of
// the 4.3.19 -> 4.4.4 plan runs (none refused, no gate failed), and every object
// the engine left is what the CVO's own code stores for it (the referee's
// merge-cases.jsonl), as this API server normalises both; injected CA data and
// an administrator's restartedAt survive. Objects whose API version this server
// no longer serves (v1beta1 CRDs and RBAC, policy/v1beta1) are restated in the
// served version and not compared.
func TestRealPayloadAppliesAsTheCVO(t *testing.T) {
	r := runRealPayload(t)
	if r.result.Outcome != apply.OutcomeCompleted || r.result.StepsDone != len(r.plan.Steps) {
		t.Fatalf("the run did not complete every step: %s (%d of %d done): %s\n%s", r.result.Outcome, r.result.StepsDone, len(r.plan.Steps), r.result.Message, lastEvents(r.events, 30))
	}
	for _, e := range r.events {
		if e.Type == apply.EventError || e.Type == apply.EventGateFailed {
			t.Errorf("%s %s: %s", e.Type, e.Step.ID, e.Message)
		}
	}
	ctx := context.Background()
	byID := map[string]referee.MergeCase{}
	for _, c := range r.cases {
		byID[c.ID] = c
	}
	counts := referee.Counts{}
	// An object two manifests declare (a namespace two operators ship) is
	// judged by the referee against the 4.3 object alone for each; applied in
	// order, the second sees the first's result: it is not compared.
	declared := map[realpayload.Key]int{}
	for _, c := range r.cases {
		if c.Mode == "update" {
			declared[realpayload.KeyOf(c.Required.Unstructured)]++
		}
	}
	cvoWrites, writes := 0, 0
	for _, c := range r.cases {
		if c.Mode != "update" {
			continue
		}
		want := c
		if c.LiveFrom != "old" {
			// New in 4.4: the cluster does not hold it, the engine creates it.
			want = byID["create"+strings.TrimPrefix(c.ID, "update")]
		}
		key := realpayload.KeyOf(c.Required.Unstructured)
		if _, ok := r.restated[key]; ok {
			counts["not compared: restated in a served API version"]++
			continue
		}
		if !r.planned(key) {
			counts["not compared: no step (excluded by the payload's inclusion rules)"]++
			continue
		}
		if declared[key] > 1 {
			counts["not compared: declared by more than one manifest"]++
			continue
		}
		v := want.CVOMain
		if v.Action == "create" || v.Action == "update" {
			cvoWrites++
		}
		if r.written[key] != "" {
			writes++
		}
		switch got := r.written[key]; {
		case (v.Action == "create") != (got == "created"), v.Action == "update" && got != "updated", v.Action == "none" && got != "":
			counts["write differs"]++
			t.Errorf("%s: the engine %q, the CVO %s", key, got, v.Action)
			continue
		}
		if v.Action != "create" && v.Action != "update" {
			counts["agrees: not written"]++
			continue
		}
		if d := r.cvoStores(ctx, key, v.Object.Unstructured); d != "" {
			counts["object differs"]++
			t.Errorf("%s: the stored object is not what the CVO stores:\n%s", key, d)
			continue
		}
		counts["agrees: the stored object is the CVO's"]++
	}
	kept, lost := r.injectedKept(ctx)
	for _, l := range lost {
		t.Errorf("lost: %s", l)
	}
	t.Logf("real 4.3.19 -> 4.4.4: %d steps in %s (%.1f steps/s); the engine wrote %d objects in all, %d of the compared where the CVO writes %d; %d injected or admin fields kept\n%s",
		len(r.plan.Steps), r.elapsed.Round(time.Second), float64(len(r.plan.Steps))/r.elapsed.Seconds(), len(r.written), writes, cvoWrites, kept, counts)
	if counts["agrees: the stored object is the CVO's"] == 0 {
		t.Errorf("nothing was compared")
	}
}

func (r *realRun) planned(k realpayload.Key) bool {
	for _, sk := range r.steps {
		if sk == k {
			return true
		}
	}
	return false
}

// client is the dynamic client of k's resource.
func (r *realRun) client(k realpayload.Key, apiVersion string) (dynamic.ResourceInterface, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	mapping, err := r.cluster.Mapper.Mapping(gv.WithKind(k.Kind))
	if err != nil {
		return nil, err
	}
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		return r.cluster.Dynamic.Resource(mapping.Resource).Namespace(k.Namespace), nil
	}
	return r.cluster.Dynamic.Resource(mapping.Resource), nil
}

// cvoStores compares the live object with the CVO's, as this API server
// normalises both: the CVO's object (its owner reference pointing at this
// cluster's ClusterVersion, this server's allocated Service addresses and the
// controller-owned Deployment revision annotation carried over) is sent as a
// dry-run update over the live object, and the result must be the live object.
func (r *realRun) cvoStores(ctx context.Context, k realpayload.Key, cvo *unstructured.Unstructured) string {
	client, err := r.client(k, cvo.GetAPIVersion())
	if err != nil {
		return err.Error()
	}
	liveObj, err := client.Get(ctx, k.Name, metav1.GetOptions{})
	if err != nil {
		return err.Error()
	}
	want := cvo.DeepCopy()
	r.cluster.MapOwner(want)
	want.SetResourceVersion(liveObj.GetResourceVersion())
	want.SetUID(liveObj.GetUID())
	if k.Kind == "Service" && k.Group == "" {
		for _, f := range []string{"clusterIP", "clusterIPs"} {
			if v, ok, _ := unstructured.NestedFieldCopy(liveObj.Object, "spec", f); ok {
				_ = unstructured.SetNestedField(want.Object, v, "spec", f)
			}
		}
	}
	if k.Kind == "Deployment" {
		const rev = "deployment.kubernetes.io/revision"
		if v, ok := liveObj.GetAnnotations()[rev]; ok {
			a := want.GetAnnotations()
			if a == nil {
				a = map[string]string{}
			}
			a[rev] = v
			want.SetAnnotations(a)
		}
	}
	related, _, _ := unstructured.NestedSlice(want.Object, "status", "relatedObjects")
	dry, err := client.Update(ctx, want, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		return "dry-running the CVO's object: " + err.Error()
	}
	a, b := stored(liveObj), stored(dry)
	if !reflect.DeepEqual(a, b) {
		return "live (engine) vs the CVO's, normalised by the server:\n" + resourceDiff(a, b)
	}
	if k.Kind == "ClusterOperator" && related != nil {
		got, _, _ := unstructured.NestedSlice(liveObj.Object, "status", "relatedObjects")
		if !reflect.DeepEqual(got, related) {
			return fmt.Sprintf("status.relatedObjects %v, the CVO writes %v", got, related)
		}
	}
	return ""
}

// stored is an object without what changes on every write or belongs to its
// controllers (status, managedFields, generation, resourceVersion).
func stored(u *unstructured.Unstructured) map[string]any {
	out := u.DeepCopy()
	delete(out.Object, "status")
	out.SetManagedFields(nil)
	out.SetGeneration(0)
	out.SetResourceVersion("")
	return out.Object
}

func resourceDiff(a, b map[string]any) string {
	var sb strings.Builder
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	for k := range keys {
		if !reflect.DeepEqual(a[k], b[k]) {
			fmt.Fprintf(&sb, "  %s:\n    engine: %v\n    cvo:    %v\n", k, a[k], b[k])
		}
	}
	return sb.String()
}

// injectedKept checks, on every object the cluster held with data a controller
// or an administrator added that the CVO keeps, that it is still there: the CA
// bundles injected into ConfigMaps, the restartedAt of oc rollout restart, the
// service accounts' SCC ranges on Namespaces.
func (r *realRun) injectedKept(ctx context.Context) (int, []string) {
	kept := 0
	var lost []string
	for k, loaded := range r.cluster.Loaded {
		var paths [][]string
		switch k.Kind {
		case "ConfigMap":
			for _, key := range []string{"service-ca.crt", "ca-bundle.crt"} {
				if _, ok, _ := unstructured.NestedString(loaded.Object, "data", key); ok {
					paths = append(paths, []string{"data", key})
				}
			}
		case "Deployment":
			if _, ok, _ := unstructured.NestedString(loaded.Object, "spec", "template", "metadata", "annotations", "kubectl.kubernetes.io/restartedAt"); ok {
				paths = append(paths, []string{"spec", "template", "metadata", "annotations", "kubectl.kubernetes.io/restartedAt"})
			}
		case "Namespace":
			for a := range loaded.GetAnnotations() {
				if strings.HasPrefix(a, "openshift.io/sa.scc.") {
					paths = append(paths, []string{"metadata", "annotations", a})
				}
			}
		}
		if len(paths) == 0 {
			continue
		}
		client, err := r.client(k, loaded.GetAPIVersion())
		if err != nil {
			lost = append(lost, err.Error())
			continue
		}
		now, err := client.Get(ctx, k.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue // a delete manifest removed it
		}
		if err != nil {
			lost = append(lost, err.Error())
			continue
		}
		for _, p := range paths {
			was, _, _ := unstructured.NestedString(loaded.Object, p...)
			is, _, _ := unstructured.NestedString(now.Object, p...)
			if was != is {
				lost = append(lost, fmt.Sprintf("%s %s: %q, was %q", k, strings.Join(p, "."), is, was))
				continue
			}
			kept++
		}
	}
	return kept, lost
}

func lastEvents(events []apply.Event, n int) string {
	if len(events) > n {
		events = events[len(events)-n:]
	}
	return dump(events)
}

// BenchmarkRealPayloadApply is the real 4.3.19 -> 4.4.4 run of
// TestRealPayloadAppliesAsTheCVO, once per iteration on a fresh API server
// (loading and planning not timed): the engine's steps per second and the
// objects it writes.
func BenchmarkRealPayloadApply(b *testing.B) {
	var steps, writes int
	var elapsed time.Duration
	for b.Loop() {
		r := runRealPayload(b)
		if r.result.Outcome != apply.OutcomeCompleted {
			b.Fatalf("the run did not complete: %s", r.result.Message)
		}
		steps += len(r.plan.Steps)
		writes += len(r.written)
		elapsed += r.elapsed
	}
	b.ReportMetric(float64(steps)/elapsed.Seconds(), "steps/s")
	b.ReportMetric(float64(writes)/float64(b.N), "writes/op")
	b.ReportMetric(elapsed.Seconds()/float64(b.N), "apply-s/op")
}
