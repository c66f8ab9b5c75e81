package kubetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

// Reuse: a test that needs a cluster of its own (its own ClusterVersion, nodes,
// pools) used to start one with Fresh and stop it at its end. A kube-apiserver
// costs about 4 CPU-seconds to start (its bootstrap: RBAC, flow control, the
// aggregator's APIServices, the OpenShift CRDs), and the workload controllers
// about one more; the simulator's package started 48 of them and spent two
// thirds of its CPU there (issue 34). ForTest hands a test such a cluster and
// takes it back when the test ends: it wipes the cluster back to the inventory
// it had when it started, checks that it did, and gives it to the next test.
// A cluster it cannot put back exactly is stopped, never reused.

// ForTest returns an empty cluster for tb alone, as Fresh does: a cluster
// another test used and that was wiped back to what Fresh returned, or a new
// one. When tb ends, the cluster is wiped and kept for the next test (stopped
// with e), or stopped when the wipe cannot restore it. Register what must stop
// before the wipe (a simulator, an engine) with tb.Cleanup after ForTest: it
// then runs first.
func (e *Env) ForTest(tb testing.TB) *Env {
	tb.Helper()
	e.mu.Lock()
	var c *Env
	if n := len(e.idle); n > 0 {
		c = e.idle[n-1]
		e.idle = e.idle[:n-1]
	}
	e.mu.Unlock()
	if c != nil {
		tb.Logf("kubetest: a reused cluster (%s), wiped after its last test", c.Config.Host)
	} else {
		start := time.Now()
		fresh, err := e.Fresh()
		if err != nil {
			tb.Fatalf("starting a kube-apiserver for the test: %v", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		fresh.baseline, err = fresh.settledInventory(ctx)
		cancel()
		if err != nil {
			// Usable, but not reusable: it stops with the test.
			tb.Logf("kubetest: the new cluster (%s) will not be reused: %v", fresh.Config.Host, err)
		}
		tb.Logf("kubetest: a new cluster (%s), started in %s", fresh.Config.Host, time.Since(start).Round(100*time.Millisecond))
		c = fresh
	}
	tb.Cleanup(func() { e.recycle(tb, c) })
	return c
}

// recycle wipes c and keeps it for the next ForTest, or stops it.
func (e *Env) recycle(tb testing.TB, c *Env) {
	if c.baseline == nil {
		c.Stop()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), wipeTimeout)
	defer cancel()
	start := time.Now()
	// The workload controllers stop during the wipe and start afresh after
	// it: a controller that saw the last test's objects keeps state of them
	// (a ReplicaSet's expectations, a budget's disruptions) that the next
	// test's objects of the same names would meet.
	c.stopWorkloadControllers()
	stats, err := c.wipe(ctx)
	if err == nil && c.opts.Workloads {
		err = c.startWorkloadControllers()
	}
	if err != nil {
		tb.Logf("kubetest: the cluster %s is stopped, not reused: %v", c.Config.Host, err)
		c.Stop()
		return
	}
	tb.Logf("kubetest: the cluster %s was wiped for the next test in %s (%s)", c.Config.Host, time.Since(start).Round(10*time.Millisecond), stats)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopped {
		c.Stop()
		return
	}
	e.idle = append(e.idle, c)
}

// wipeTimeout bounds a wipe: past it the cluster is stopped instead.
const wipeTimeout = time.Minute

// objKey names one object of the inventory.
type objKey struct {
	gvr       schema.GroupVersionResource
	namespace string
	name      string
}

func (k objKey) String() string {
	s := k.gvr.Resource
	if k.gvr.Group != "" {
		s += "." + k.gvr.Group
	}
	if k.namespace != "" {
		return s + " " + k.namespace + "/" + k.name
	}
	return s + " " + k.name
}

// objState is what the inventory records of an object: enough to tell that it
// is the same object, unchanged.
type objState struct {
	uid types.UID
	// version is the object's resourceVersion; for a kind whose status the
	// control plane keeps writing (see churning) its generation; for a CRD a
	// digest of its spec, labels and annotations (crdContent).
	version string
}

// inventory is every object of the cluster the wipe can list and delete.
type inventory map[objKey]objState

// churning lists the resources whose objects the control plane itself keeps
// writing: the inventory compares their generation (a change of spec), not
// their resourceVersion. Events, the API server's identity lease and the
// APIServices are left out of the comparison altogether (see ignored).
var churning = map[schema.GroupResource]bool{
	{Group: "flowcontrol.apiserver.k8s.io", Resource: "flowschemas"}:                 true,
	{Group: "flowcontrol.apiserver.k8s.io", Resource: "prioritylevelconfigurations"}: true,
}

// ignored reports whether the wipe deletes k without holding the cluster to
// it: events, which controllers write at any time; the API server's
// identity lease; the default ServiceAccount, which the serviceaccount controller
// makes in every namespace (in the system ones too, at a moment of its own);
// and the APIServices, which the API server makes and removes with the
// groups it serves (a CRD's group when the first CRD of it comes, and goes
// when the last goes): apiServicesBack waits for the baseline's.
func ignored(k objKey) bool {
	switch {
	case k.gvr.GroupResource() == apiServicesGR:
		return true
	case k.gvr.Resource == "events":
		return true
	case k.gvr.Group == "coordination.k8s.io" && k.namespace == "kube-system" && strings.HasPrefix(k.name, "apiserver-"):
		// The API server's identity lease, renewed every few seconds.
		return true
	case k.gvr.Group == "" && k.gvr.Resource == "serviceaccounts" && k.name == "default":
		return true
	}
	return false
}

// quietConfig is the admin configuration without the API server's warnings
// (the inventory lists deprecated kinds, v1 Endpoints), which would go to the
// test's stderr.
func (c *Env) quietConfig() *rest.Config {
	cfg := rest.CopyConfig(c.Config)
	cfg.WarningHandler = rest.NoWarnings{}
	return cfg
}

// resources returns the preferred version of every resource that can be
// listed and deleted.
func (c *Env) resources() ([]metav1.APIResource, []schema.GroupVersionResource, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(c.quietConfig())
	if err != nil {
		return nil, nil, err
	}
	lists, err := dc.ServerPreferredResources()
	if err != nil {
		return nil, nil, fmt.Errorf("discovery: %w", err)
	}
	lists = discovery.FilteredBy(discovery.SupportsAllVerbs{Verbs: []string{"list", "delete"}}, lists)
	var rs []metav1.APIResource
	var gvrs []schema.GroupVersionResource
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			return nil, nil, err
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") {
				continue
			}
			rs = append(rs, r)
			gvrs = append(gvrs, gv.WithResource(r.Name))
		}
	}
	return rs, gvrs, nil
}

// takeInventory lists every object of the cluster, and returns them by key
// with their full objects (for the wipe) and which resources are namespaced.
func (c *Env) takeInventory(ctx context.Context) (inventory, map[objKey]*unstructured.Unstructured, error) {
	rs, gvrs, err := c.resources()
	if err != nil {
		return nil, nil, err
	}
	cfg := c.quietConfig()
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	meta, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	// Every resource at once (a few at a time): one list after another took
	// over a second a pass on a loaded machine. Only the CRDs are read whole;
	// of the rest the inventory needs the metadata, which costs the API
	// server less to send.
	lists := make([][]*unstructured.Unstructured, len(gvrs))
	errs := make([]error, len(gvrs))
	forEach(len(gvrs), listWorkers, func(i int) {
		gvr := gvrs[i]
		if gvr.GroupResource() == crdsGR {
			list, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
			if err != nil {
				errs[i] = err
				return
			}
			for j := range list.Items {
				lists[i] = append(lists[i], &list.Items[j])
			}
			return
		}
		list, err := meta.Resource(gvr).List(ctx, metav1.ListOptions{})
		if err != nil {
			errs[i] = err
			return
		}
		for j := range list.Items {
			u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&list.Items[j])
			if err != nil {
				errs[i] = err
				return
			}
			lists[i] = append(lists[i], &unstructured.Unstructured{Object: u})
		}
	})
	inv := inventory{}
	objs := map[objKey]*unstructured.Unstructured{}
	for i, gvr := range gvrs {
		if err := errs[i]; apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
			// A CRD deleted since discovery.
			continue
		} else if err != nil {
			return nil, nil, fmt.Errorf("listing %s: %w", gvr.Resource, err)
		}
		for _, o := range lists[i] {
			k := objKey{gvr: gvr, name: o.GetName()}
			if rs[i].Namespaced {
				k.namespace = o.GetNamespace()
			}
			st := objState{uid: o.GetUID(), version: o.GetResourceVersion()}
			switch {
			case gvr.GroupResource() == crdsGR:
				st.version = crdContent(o)
			case churning[gvr.GroupResource()]:
				st.version = fmt.Sprint("generation ", o.GetGeneration())
			}
			inv[k] = st
			objs[k] = o
		}
	}
	return inv, objs, nil
}

// listWorkers and deleteWorkers bound the requests a wipe has in flight.
const (
	listWorkers   = 8
	deleteWorkers = 8
)

// settledInventory takes the inventory of a new cluster once two in a row,
// half a second apart, agree: the control plane's own controllers have then
// finished what they make at start-up.
func (c *Env) settledInventory(ctx context.Context) (inventory, error) {
	var last inventory
	var lastDiff string
	err := wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		inv, _, err := c.takeInventory(ctx)
		if err != nil {
			lastDiff = err.Error()
			return false, nil
		}
		if last != nil {
			if lastDiff = last.diff(inv); lastDiff == "" {
				return true, nil
			}
		}
		last = inv
		return false, nil
	})
	if err != nil {
		return nil, fmt.Errorf("its objects did not settle (%s): %w", lastDiff, err)
	}
	return last, nil
}

// diff describes how got differs from want (the baseline), or returns "".
// Objects ignored are not compared.
func (want inventory) diff(got inventory) string {
	out := want.changes(got)
	for k := range got {
		if _, ok := want[k]; !ok && !ignored(k) {
			out = append(out, "left "+k.String())
		}
	}
	return summary(out)
}

// changed describes the objects of want (the baseline) that got lacks, holds
// as another object (another UID) or holds changed, or returns "".
func (want inventory) changed(got inventory) string {
	return summary(want.changes(got))
}

func (want inventory) changes(got inventory) []string {
	var out []string
	for k, w := range want {
		if ignored(k) {
			continue
		}
		g, ok := got[k]
		switch {
		case !ok:
			out = append(out, "missing "+k.String())
		case g.uid != w.uid:
			out = append(out, "replaced "+k.String())
		case g.version != w.version:
			out = append(out, fmt.Sprintf("changed %s (%s, was %s)", k, g.version, w.version))
		}
	}
	return out
}

func summary(out []string) string {
	sort.Strings(out)
	if len(out) > 5 {
		out = append(out[:5], fmt.Sprintf("and %d more", len(out)-5))
	}
	return strings.Join(out, ", ")
}

// wipe deletes every object the baseline does not hold, and returns nil once
// the cluster's inventory is the baseline again: every object of the baseline
// there, the same object (same UID) and unchanged. Finalizers are removed, pods
// deleted without grace, namespaces finalized: nothing waits on a controller.
func (c *Env) wipe(ctx context.Context) (*wipeStats, error) {
	stats := &wipeStats{}
	kube, err := kubernetes.NewForConfig(c.quietConfig())
	if err != nil {
		return stats, err
	}
	dyn, err := dynamic.NewForConfig(c.quietConfig())
	if err != nil {
		return stats, err
	}
	var lastDiff string
	err = wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		stats.passes++
		t0 := time.Now()
		inv, objs, err := c.takeInventory(ctx)
		stats.listing += time.Since(t0)
		if err != nil {
			lastDiff = err.Error()
			return false, nil
		}
		if d := c.baseline.changed(inv); d != "" {
			// A baseline object missing, replaced or changed (a CRD a
			// payload updated, say): no wipe brings it back. Putting a
			// CRD back was tried: the API server then answered 404 for
			// its resource for a while after it was Established again.
			return false, errors.New(d)
		}
		// pending: what the wipe waits to see gone; del: what it deletes,
		// which adds the events of the namespaces the baseline holds and
		// the APIServices the baseline does not hold.
		var pending, del []objKey
		for k, st := range inv {
			b, inBaseline := c.baseline[k]
			if inBaseline && b.uid == st.uid {
				continue
			}
			tolerated := c.tolerated(k)
			if !tolerated || k.gvr.Resource == "events" || (k.gvr.GroupResource() == apiServicesGR && !inBaseline) {
				del = append(del, k)
			}
			if !tolerated {
				pending = append(pending, k)
			}
		}
		t1 := time.Now()
		defer func() { stats.writing += time.Since(t1) }()
		stats.deleted += len(del)
		if err := c.deleteAll(ctx, kube, dyn, del, objs); err != nil {
			return false, err
		}
		if len(pending) == 0 {
			// The API server removes an APIService of the baseline's
			// while no CRD of its group is left, and makes it again.
			lastDiff = "waiting for the baseline's APIServices"
			return apiServicesBack(objs, c.baseline), nil
		}
		lastDiff = fmt.Sprintf("%d objects left, such as %s", len(pending), pending[0])
		return false, nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return stats, fmt.Errorf("the wipe did not finish (%s): %w", lastDiff, err)
		}
		return stats, err
	}
	return stats, nil
}

// wipeStats say where a wipe's time went.
type wipeStats struct {
	passes, deleted  int
	listing, writing time.Duration
}

func (s *wipeStats) String() string {
	return fmt.Sprintf("%d passes, %d deletions; listing %s, writing %s", s.passes, s.deleted, s.listing.Round(10*time.Millisecond), s.writing.Round(10*time.Millisecond))
}

// tolerated reports whether the wipe leaves k alone where it finds it: an
// object ignored, in a namespace the baseline holds (in another, it would
// come back with the namespace's name).
func (c *Env) tolerated(k objKey) bool {
	if !ignored(k) {
		return false
	}
	if k.namespace == "" {
		return true
	}
	_, ok := c.baseline[objKey{gvr: namespacesGVR, name: k.namespace}]
	return ok
}

var namespacesGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// deleteAll deletes the given objects: namespaces first, so that nothing new
// is made in them, then what they hold and the cluster-scoped objects, the
// CRDs last, and finally the namespaces' finalizers. It returns only errors
// that another pass would not cure.
func (c *Env) deleteAll(ctx context.Context, kube kubernetes.Interface, dyn dynamic.Interface, keys []objKey, objs map[objKey]*unstructured.Unstructured) error {
	rank := func(k objKey) int {
		switch {
		case k.gvr == namespacesGVR:
			return 0
		case k.gvr.Resource == "customresourcedefinitions":
			return 2
		}
		return 1
	}
	zero := int64(0)
	background := metav1.DeletePropagationBackground
	opts := metav1.DeleteOptions{GracePeriodSeconds: &zero, PropagationPolicy: &background}
	// Of a namespace the baseline does not hold, everything goes: one
	// request for each resource in it (after the finalizers are off).
	type group struct {
		gvr       schema.GroupVersionResource
		namespace string
	}
	var phases [3][]func() error
	collections := map[group]bool{}
	for _, k := range keys {
		r := dyn.Resource(k.gvr).Namespace(k.namespace)
		if len(objs[k].GetFinalizers()) > 0 {
			phases[0] = append(phases[0], func() error {
				_, err := r.Patch(ctx, k.name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
				if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
					return fmt.Errorf("removing the finalizers of %s: %w", k, err)
				}
				return nil
			})
		}
		if _, held := c.baseline[objKey{gvr: namespacesGVR, name: k.namespace}]; k.namespace != "" && !held {
			g := group{k.gvr, k.namespace}
			if !collections[g] {
				collections[g] = true
				phases[1] = append(phases[1], func() error {
					err := r.DeleteCollection(ctx, opts, metav1.ListOptions{})
					if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsMethodNotSupported(err) {
						return fmt.Errorf("deleting the %s of namespace %s: %w", k.gvr.Resource, k.namespace, err)
					}
					return nil
				})
			}
			continue
		}
		del := func() error {
			if err := r.Delete(ctx, k.name, opts); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				return fmt.Errorf("deleting %s: %w", k, err)
			}
			return nil
		}
		switch rank(k) {
		case 0:
			// Namespaces first, with the finalizers: nothing new is made
			// in a namespace that is going.
			phases[0] = append(phases[0], del)
		case 1:
			phases[1] = append(phases[1], del)
		default:
			phases[2] = append(phases[2], del)
		}
	}
	for _, k := range keys {
		if rank(k) != 0 {
			continue
		}
		phases[2] = append(phases[2], func() error {
			ns, err := kube.CoreV1().Namespaces().Get(ctx, k.name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("reading namespace %s: %w", k.name, err)
			}
			if len(ns.Spec.Finalizers) == 0 {
				return nil
			}
			ns.Spec.Finalizers = nil
			if _, err := kube.CoreV1().Namespaces().Finalize(ctx, ns, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				return fmt.Errorf("finalizing namespace %s: %w", k.name, err)
			}
			return nil
		})
	}
	for _, phase := range phases {
		if err := runAll(phase, deleteWorkers); err != nil {
			return err
		}
	}
	return nil
}

// runAll runs fs, n at a time, and returns their errors joined.
func runAll(fs []func() error, n int) error {
	errs := make([]error, len(fs))
	forEach(len(fs), n, func(i int) { errs[i] = fs[i]() })
	return errors.Join(errs...)
}

// forEach calls f(0) … f(count-1), workers at a time, and returns when every
// call has.
func forEach(count, workers int, f func(i int)) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, workers)
	for i := range count {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			f(i)
		}()
	}
	wg.Wait()
}

// reusePool is the part of Env that ForTest uses.
type reusePool struct {
	// idle are wiped clusters waiting for a test (a parent's).
	idle []*Env
	// baseline is the inventory a wipe restores (a child's); nil when the
	// cluster is not reused.
	baseline inventory
}

var crdsGR = schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}

var apiServicesGR = schema.GroupResource{Group: "apiregistration.k8s.io", Resource: "apiservices"}

// crdContent is what the inventory compares of a CRD: its spec, labels and
// annotations (the API server keeps writing its status).
func crdContent(o *unstructured.Unstructured) string {
	spec, _, _ := unstructured.NestedFieldNoCopy(o.Object, "spec")
	b, err := json.Marshal([]any{spec, o.GetLabels(), o.GetAnnotations()})
	if err != nil {
		return "unreadable: " + err.Error()
	}
	sum := sha256.Sum256(b)
	return "content " + hex.EncodeToString(sum[:8])
}

// apiServicesBack reports whether every APIService of the baseline is in
// objs.
func apiServicesBack(objs map[objKey]*unstructured.Unstructured, baseline inventory) bool {
	for k := range baseline {
		if k.gvr.GroupResource() == apiServicesGR && objs[k] == nil {
			return false
		}
	}
	return true
}
