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
	"k8s.io/client-go/kubernetes"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/inspect/live"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
	"github.com/openshift-recover/recover/internal/testing/realpayload"
	"github.com/openshift-recover/recover/internal/testing/referee"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/graph"
	"github.com/openshift-recover/recover/plan/planfile"
)

// realHop is one real-payload update the test runs: the referee's cases for it,
// the payloads, how they are rendered, the cluster's wedge and update graph.
type realHop struct {
	hop realpayload.Hop
	// casesFile is the referee's file; oldDir and newDir the payloads.
	casesFile, oldDir, newDir string
	// render renders the target payload as oc adm release new does, with
	// targetComponents (false: applied as the directory holds it, the 4.4 run).
	render           bool
	targetComponents map[string]string
	// wedge models the cluster's incident before the snapshot (nil: none).
	wedge func(context.Context, *realpayload.Cluster) error
	// graph is the update graph's JSON.
	graph string
	// accept is what the admin accepts (recover plan --accept).
	accept []string
	// controlPlaneRole: the masters carry node-role.kubernetes.io/control-plane
	// beside .../master, as a modern cluster's do (4.20's operators select it).
	controlPlaneRole bool
	// takeOver is the admin's reason for taking the wheel from the CVO
	// (recover plan --take-over; "": the decision table's own outcome).
	takeOver string
}

// hop44 is the first incident: 4.3.19, reconciled out of order to the DNS
// operator's 4.4.3, plans the hop to 4.4.4.
var hop44 = realHop{
	hop: realpayload.Hop44, casesFile: referee.MergeCasesFile, oldDir: "payload-release-4.3", newDir: "payload-release-4.4",
	wedge: func(ctx context.Context, c *realpayload.Cluster) error {
		// The out-of-order reconcile reached the DNS operator.
		return c.Reconciled(ctx, "dns", "openshift-dns-operator", "dns-operator", "4.4.3")
	},
	graph: fmt.Sprintf(`{"nodes":[
 {"version":%q,"payload":%q,"metadata":{"io.openshift.upgrades.graph.release.channels":"stable-4.3,stable-4.4"}},
 {"version":"4.4.3","payload":"quay.io/openshift-release-dev/ocp-release@sha256:039a4ef7c128a049ccf916a1d68ce93e8f5494b44d5a75df60c85e9e7191dacc","metadata":{"io.openshift.upgrades.graph.release.channels":"stable-4.4"}},
 {"version":%q,"payload":%q,"metadata":{"io.openshift.upgrades.graph.release.channels":"stable-4.4"}}],
 "edges":[[0,2],[1,2]]}`, realpayload.CurrentVersion, realpayload.CurrentImage, realpayload.TargetVersion, realpayload.TargetImage),
}

// hop420 is a modern update, 4.19 -> 4.20, on a self-managed HA cluster of the
// Default feature set with every capability the API knows enabled (the
// referee's merge-cases-4.20.jsonl). Both payloads are rendered as oc adm
// release new renders them (realpayload.Render): 0.0.1-snapshot becomes the
// release version, 0.0.1-snapshot-kubernetes the release's Kubernetes version.
var hop420 = func() realHop {
	h := realpayload.Hop{
		CurrentVersion: "4.19.17", CurrentImage: "quay.io/openshift-release-dev/ocp-release@sha256:4190000000000000000000000000000000000000000000000000000000000017",
		// The release image the referee rendered the CVO's own manifests
		// with (merge-cases-4.20.jsonl, as merge-cases.jsonl).
		TargetVersion: "4.20.4", TargetImage: realpayload.TargetImage,
		Channel: "stable-4.20", Render: true, CurrentComponents: map[string]string{"kubernetes": "1.32.9"},
	}
	for _, c := range configv1.KnownClusterVersionCapabilities {
		h.KnownCapabilities = append(h.KnownCapabilities, string(c))
	}
	h.EnabledCapabilities = h.KnownCapabilities
	return realHop{
		hop: h, casesFile: referee.MergeCases420File, oldDir: "payload-release-4.19", newDir: "payload-release-4.20",
		render: true, targetComponents: map[string]string{"kubernetes": "1.33.5"}, controlPlaneRole: true,
		// The real 4.19 payload's admin gate (openshift-config-managed
		// admin-gates): the admin acknowledges the v1beta1 API removals.
		accept: []string{"admin-ack:ack-4.19-admissionregistration-v1beta1-api-removals-in-4.20"},
		// An update under way keeps the CVO at the wheel (plan.Rules): the
		// push of the target's manifests is the admin's request.
		takeOver: "the real-payload acceptance test: recover pushes 4.20.4's manifests in the CVO's order",
		wedge: func(ctx context.Context, c *realpayload.Cluster) error {
			// The update to 4.20.4 was started and stopped before any
			// operator moved: the CVO wants 4.20.4, the history is Partial.
			return c.Updating(ctx, h.TargetVersion, h.TargetImage)
		},
		graph: fmt.Sprintf(`{"nodes":[
 {"version":%q,"payload":%q,"metadata":{"io.openshift.upgrades.graph.release.channels":"stable-4.19,stable-4.20"}},
 {"version":%q,"payload":%q,"metadata":{"io.openshift.upgrades.graph.release.channels":"stable-4.20"}}],
 "edges":[[0,1]]}`, h.CurrentVersion, h.CurrentImage, h.TargetVersion, h.TargetImage),
	}
}()

// realRun is one run of a real payload over a cluster of the release before.
type realRun struct {
	hop     realHop
	cluster *realpayload.Cluster
	plan    *planfile.Plan
	result  *apply.Result
	events  []apply.Event
	elapsed time.Duration
	// phases are the run's times before the apply: the API server, the
	// load, the snapshot and the plan.
	phases   string
	restated realpayload.Restated
	cases    []referee.MergeCase
	// written is what the engine wrote, by object: created or updated.
	written map[realpayload.Key]string
	steps   map[string]realpayload.Key
	// diag is where the pods stand when the run stopped short.
	diag string
}

// runRealPayload loads the real 4.3 payload's objects, as a cluster holds them
// (the referee's live objects: server defaults, controller-injected CA data, an
// administrator's label and restartedAt), into a fresh real kube-apiserver,
// plans the hop to the real 4.4 payload from a live snapshot (recover plan) and
// applies every step with the engine (recover apply --yes). The operators a
// bare API server lacks are played (realpayload.Players); workloads roll out
// for real.
func runRealPayload(tb testing.TB, h realHop) *realRun {
	tb.Helper()
	kubetest.Require(tb, rootEnv)
	realdata := referee.RealData(tb)
	tc := time.Now()
	rctx, cases := referee.LoadMergeCases(tb, h.casesFile)
	if h.render {
		// The referee ran the CVO on the payloads as laid out: its objects
		// are rendered as the payload is.
		for i := range cases {
			c := &cases[i]
			for _, o := range []*referee.Object{&c.Required, &c.CVOMain.Object} {
				if o.Unstructured != nil {
					r, err := realpayload.RenderObject(o.Unstructured, h.hop.TargetVersion, h.targetComponents)
					if err != nil {
						tb.Fatal(err)
					}
					o.Unstructured = r
				}
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	tb.Cleanup(cancel)
	t0 := time.Now()
	fresh := ownServer(tb)
	// The operators' node selectors name the role and the OS.
	linux := func(roles ...string) map[string]string {
		l := map[string]string{"kubernetes.io/os": "linux", "beta.kubernetes.io/os": "linux"}
		for _, r := range roles {
			l["node-role.kubernetes.io/"+r] = ""
		}
		return l
	}
	masterRoles := []string{"master"}
	if h.controlPlaneRole {
		masterRoles = append(masterRoles, "control-plane")
	}
	for _, n := range []string{"master-0", "master-1", "master-2"} {
		if _, err := fresh.NewFakeNode(ctx, n, linux(masterRoles...)); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := fresh.NewFakeNode(ctx, "worker-0", linux("worker")); err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	served := filepath.Join(dir, "target")
	release := ""
	if h.render {
		release = h.hop.TargetVersion
	}
	restated, err := realpayload.ServedRendered(filepath.Join(realdata, h.newDir), served, release, h.targetComponents)
	if err != nil {
		tb.Fatal(err)
	}
	crds, err := realpayload.CRDs(served)
	if err != nil {
		tb.Fatal(err)
	}
	t1 := time.Now()
	cluster, err := realpayload.LoadHop(ctx, fresh.Config, h.hop, rctx, cases, crds)
	if err != nil {
		tb.Fatalf("loading the %s cluster: %v", h.hop.CurrentVersion, err)
	}
	if h.wedge != nil {
		if err := h.wedge(ctx, cluster); err != nil {
			tb.Fatalf("modeling the wedge: %v", err)
		}
	}

	// recover plan, from the live cluster.
	t2 := time.Now()
	src, err := live.New(fresh.Config, live.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	snap, err := src.Collect(ctx)
	if err != nil {
		tb.Fatalf("recover inspect: %v", err)
	}
	graphFile := filepath.Join(dir, "graph.json")
	if err := os.WriteFile(graphFile, []byte(h.graph), 0o644); err != nil {
		tb.Fatal(err)
	}
	g, err := graph.Load(ctx, graph.Options{Graph: graphFile, Channel: h.hop.Channel})
	if err != nil {
		tb.Fatal(err)
	}
	t3 := time.Now()
	p, err := plan.Make(ctx, plan.Options{Snapshot: snap, SnapshotSource: "live", Graph: g, Accept: h.accept, TakeOver: h.takeOver, Payload: plan.PayloadDir{Dir: served, Version: h.hop.TargetVersion}, Generator: "realpayload-test"})
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
	// A player that failed leaves its gate open to its timeout: the run
	// stops at once instead (the players' errors are reported below).
	runCtx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	go func() {
		select {
		case <-players.Failed():
			stopRun()
		case <-runCtx.Done():
		}
	}()
	r := &realRun{hop: h, cluster: cluster, plan: p, restated: restated, cases: cases, written: map[realpayload.Key]string{}, steps: map[string]realpayload.Key{}}
	round := func(d time.Duration) time.Duration { return d.Round(100 * time.Millisecond) }
	r.phases = fmt.Sprintf("referee cases %s, API server, nodes and payload %s, load %s, snapshot %s, plan %s", round(t0.Sub(tc)), round(t1.Sub(t0)), round(t2.Sub(t1)), round(t3.Sub(t2)), round(time.Since(t3)))
	for _, st := range p.Steps {
		if st.Manifest != nil {
			r.steps[st.ID] = realpayload.Key{Group: groupOf(st.Manifest.APIVersion), Kind: st.Manifest.Kind, Namespace: st.Manifest.Namespace, Name: st.Manifest.Name}
		}
	}
	start := time.Now()
	res, _ := eng.Execute(runCtx, p, apply.Options{
		JournalPath: filepath.Join(dir, "run.journal"), IHaveABackup: true, AllowStale: true,
		PlanPath: "plan.json", PlanDigest: "sha256:realpayload", Decider: apply.AutoDecider{}, Heartbeat: -1,
		// The players answer in milliseconds and workloads roll out in
		// seconds: a gate still open after minutes is a failure to report.
		Timeouts: map[planfile.GateKind]time.Duration{planfile.GateClusterOperator: 3 * time.Minute, planfile.GateStaticPods: 3 * time.Minute, planfile.GateWorkloadRollout: 5 * time.Minute},
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
	if res.Outcome != apply.OutcomeCompleted {
		r.diag = r.podsAt(ctx, res)
	}
	return r
}

// podsAt says, for a run that stopped, where the pods of the namespace of the
// step it stopped at stand: the workloads' side of a rollout that did not finish.
func (r *realRun) podsAt(ctx context.Context, res *apply.Result) string {
	var ns string
	for i := len(r.events) - 1; i >= 0 && ns == ""; i-- {
		if e := r.events[i]; e.Step != nil {
			ns = r.steps[e.Step.ID].Namespace
		}
	}
	if ns == "" {
		return ""
	}
	kube, err := kubernetes.NewForConfig(r.cluster.Config)
	if err != nil {
		return err.Error()
	}
	pods, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "pods in %s:\n", ns)
	for _, p := range pods.Items {
		fmt.Fprintf(&b, "  %s node=%q phase=%s deleting=%v finalizers=%v", p.Name, p.Spec.NodeName, p.Status.Phase, p.DeletionTimestamp != nil, p.Finalizers)
		for _, c := range p.Status.Conditions {
			fmt.Fprintf(&b, " %s=%s(%s %s)", c.Type, c.Status, c.Reason, c.Message)
		}
		b.WriteString("\n")
	}
	return b.String()
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
	// Its own API server (Fresh): it runs beside the other tests that have one.
	t.Parallel()
	checkRealRun(t, runRealPayload(t, hop44))
}

// TestRealPayload420AppliesAsTheCVO is the same on a modern update: the real
// 4.19 payload's objects as a cluster holds them, 4.19.17 with every capability
// enabled and the Default feature set, plans the hop to the real 4.20 payload
// (rendered as oc adm release new renders it) from a live snapshot, and every
// step runs; every object is what CVO main stores for it
// (merge-cases-4.20.jsonl) and every injected or admin field is kept.
func TestRealPayload420AppliesAsTheCVO(t *testing.T) {
	// Its own API server (Fresh): it runs beside the other tests that have one.
	t.Parallel()
	checkRealRun(t, runRealPayload(t, hop420))
}

func checkRealRun(t *testing.T, r *realRun) {
	if r.result.Outcome != apply.OutcomeCompleted || r.result.StepsDone != len(r.plan.Steps) {
		t.Fatalf("the run did not complete every step: %s (%d of %d done): %s\n%s%s", r.result.Outcome, r.result.StepsDone, len(r.plan.Steps), r.result.Message, lastEvents(r.events, 30), r.diag)
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
	tcheck := time.Now()
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
			// New in the target: the cluster does not hold it, the engine creates it.
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
	r.phases += fmt.Sprintf("; after it, the comparison %s", time.Since(tcheck).Round(100*time.Millisecond))
	for _, l := range lost {
		t.Errorf("lost: %s", l)
	}
	t.Logf("real %s -> %s: %d steps in %s (%.1f steps/s; before it: %s); the engine wrote %d objects in all, %d of the compared where the CVO writes %d; %d injected or admin fields kept\n%s",
		r.hop.hop.CurrentVersion, r.plan.Target.Version, len(r.plan.Steps), r.elapsed.Round(time.Second), float64(len(r.plan.Steps))/r.elapsed.Seconds(), r.phases, len(r.written), writes, cvoWrites, kept, counts)
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
	r.cluster.MapLoaded(want)
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
	diffAt(&sb, "", a, b)
	return sb.String()
}

// diffAt writes where a and b differ, down to the first field or list item
// that differs (lists of one length item by item).
func diffAt(sb *strings.Builder, path string, a, b any) {
	if reflect.DeepEqual(a, b) {
		return
	}
	switch am := a.(type) {
	case map[string]any:
		if bm, ok := b.(map[string]any); ok {
			keys := map[string]bool{}
			for k := range am {
				keys[k] = true
			}
			for k := range bm {
				keys[k] = true
			}
			for k := range keys {
				diffAt(sb, path+"."+k, am[k], bm[k])
			}
			return
		}
	case []any:
		if bl, ok := b.([]any); ok && len(bl) == len(am) {
			for i := range am {
				diffAt(sb, fmt.Sprintf("%s[%d]", path, i), am[i], bl[i])
			}
			return
		}
	}
	fmt.Fprintf(sb, "  %s:\n    engine: %v\n    cvo:    %v\n", path, a, b)
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
		case "CustomResourceDefinition":
			// service-ca's injection into a conversion webhook.
			if _, ok, _ := unstructured.NestedString(loaded.Object, "spec", "conversion", "webhook", "clientConfig", "caBundle"); ok {
				paths = append(paths, []string{"spec", "conversion", "webhook", "clientConfig", "caBundle"})
			}
		}
		if len(paths) == 0 && len(webhookCABundles(loaded)) == 0 {
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
		// service-ca's injection into admission webhooks, one per webhook.
		was, is := webhookCABundles(loaded), webhookCABundles(now)
		for i, b := range was {
			if b == "" {
				continue
			}
			if i >= len(is) || is[i] != b {
				lost = append(lost, fmt.Sprintf("%s webhooks[%d].clientConfig.caBundle: lost, was %q", k, i, b))
				continue
			}
			kept++
		}
	}
	return kept, lost
}

// webhookCABundles are the caBundles of an admission webhook configuration's
// webhooks that carry one, in order ("" where one has none).
func webhookCABundles(u *unstructured.Unstructured) []string {
	if !strings.HasSuffix(u.GetKind(), "WebhookConfiguration") {
		return nil
	}
	hooks, _, _ := unstructured.NestedSlice(u.Object, "webhooks")
	var out []string
	injected := false
	for _, h := range hooks {
		m, _ := h.(map[string]any)
		b, _, _ := unstructured.NestedString(m, "clientConfig", "caBundle")
		injected = injected || b != ""
		out = append(out, b)
	}
	if !injected {
		return nil
	}
	return out
}

func lastEvents(events []apply.Event, n int) string {
	if len(events) > n {
		events = events[len(events)-n:]
	}
	return dump(events)
}

// BenchmarkRealPayloadApply is the real-payload run of
// TestRealPayloadAppliesAsTheCVO (4.3.19 -> 4.4.4) and
// TestRealPayload420AppliesAsTheCVO (4.19.17 -> 4.20.4), once per iteration on
// a fresh API server (loading and planning not timed): the engine's steps per
// second and the objects it writes.
func BenchmarkRealPayloadApply(b *testing.B) {
	b.Run("4.3-to-4.4", func(b *testing.B) { benchmarkRealPayloadApply(b, hop44) })
	b.Run("4.19-to-4.20", func(b *testing.B) { benchmarkRealPayloadApply(b, hop420) })
}

func benchmarkRealPayloadApply(b *testing.B, h realHop) {
	var steps, writes int
	var elapsed time.Duration
	for b.Loop() {
		r := runRealPayload(b, h)
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
