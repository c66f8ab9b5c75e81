package realpayload

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan/planfile"
)

// Players stand in for what a bare API server lacks while the engine runs a
// plan: the operators (a ClusterOperator the engine waits on reports the
// versions its gate waits for, Available and neither Progressing nor Degraded;
// a static-pod operator rolls its latest revision onto every control-plane
// node's mirror pod) and the CVO once restored (ClusterVersion's status takes
// the desired update). They act when the engine reports it waits on a gate, as
// the real operators would once their manifests are applied; they never write
// an object a manifest step wrote, so the objects the test compares with the CVO
// referee are the engine's alone. Workloads roll out for real
// (kube-controller-manager, kube-scheduler, kwok).
type Players struct {
	c     *Cluster
	kube  kubernetes.Interface
	steps map[string]*planfile.Step
	ch    chan *apply.Event
	wg    sync.WaitGroup
	// Errs are the players' failures, for the test to report.
	mu     sync.Mutex
	errs   []error
	failed chan struct{}
	done   map[string]bool
}

// Play starts players for plan p; feed them the engine's events with Observe
// and call Stop when the run is over.
func (c *Cluster) Play(ctx context.Context, p *planfile.Plan) (*Players, error) {
	kube, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		return nil, err
	}
	pl := &Players{c: c, kube: kube, steps: map[string]*planfile.Step{}, ch: make(chan *apply.Event, 1024), failed: make(chan struct{}), done: map[string]bool{}}
	for i := range p.Steps {
		pl.steps[p.Steps[i].ID] = &p.Steps[i]
	}
	pl.wg.Add(1)
	go func() {
		defer pl.wg.Done()
		for e := range pl.ch {
			if err := pl.play(ctx, e); err != nil {
				pl.mu.Lock()
				if len(pl.errs) == 0 {
					close(pl.failed)
				}
				pl.errs = append(pl.errs, err)
				pl.mu.Unlock()
			}
		}
	}()
	return pl, nil
}

// Observe passes one engine event to the players (never blocking the engine for
// long: the queue is deep).
func (pl *Players) Observe(e apply.Event) {
	if e.Type == apply.EventWaiting && e.Step != nil && e.Gate != nil {
		pl.ch <- &e
	}
}

// Failed is closed when a player first fails: the operator it stands in for
// will never report, and the gate waiting on it would only time out.
func (pl *Players) Failed() <-chan struct{} { return pl.failed }

// Stop ends the players and returns their errors.
func (pl *Players) Stop() []error {
	close(pl.ch)
	pl.wg.Wait()
	return pl.errs
}

func (pl *Players) play(ctx context.Context, e *apply.Event) error {
	key := e.Step.ID + "/" + string(e.Gate.Kind)
	if pl.done[key] {
		return nil
	}
	st := pl.steps[e.Step.ID]
	if st == nil || st.Gate == nil || st.Gate.Kind != e.Gate.Kind {
		return nil
	}
	var act func() error
	switch g := st.Gate; g.Kind {
	case planfile.GateClusterOperator:
		act = func() error { return pl.operatorReports(ctx, g) }
	case planfile.GateStaticPods:
		act = func() error { return pl.staticPodsRoll(ctx, g.StaticPods) }
	case planfile.GateCVORunning:
		act = func() error { return pl.cvoTakesTheUpdate(ctx) }
	default:
		return nil
	}
	// A controller may write the same object meanwhile (kwok a mirror pod's
	// status): an operator tries again from what it reads.
	err := retry.OnError(retry.DefaultBackoff, func(error) bool { return ctx.Err() == nil }, act)
	if err == nil {
		pl.done[key] = true
	}
	return err
}

var (
	clusterOperators = schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "clusteroperators"}
)

// operatorReports is an operator whose manifests were applied: it reports the
// versions the gate waits for (the manifest's), Available, not Progressing, not
// Degraded; the relatedObjects the CVO wrote stay.
func (pl *Players) operatorReports(ctx context.Context, g *planfile.Gate) error {
	client := pl.c.Dynamic.Resource(clusterOperators)
	co, err := client.Get(ctx, g.ClusterOperator, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("clusteroperator/%s: %w", g.ClusterOperator, err)
	}
	var versions []any
	for _, v := range g.Versions {
		versions = append(versions, map[string]any{"name": v.Name, "version": v.Version})
	}
	now := metav1.Now().UTC().Format("2006-01-02T15:04:05Z")
	cond := func(t, s string) map[string]any {
		return map[string]any{"type": t, "status": s, "lastTransitionTime": now, "reason": "AsExpected"}
	}
	st, _ := co.Object["status"].(map[string]any)
	if st == nil {
		st = map[string]any{}
	}
	st["versions"] = versions
	st["conditions"] = []any{cond("Available", "True"), cond("Progressing", "False"), cond("Degraded", "False")}
	co.Object["status"] = st
	_, err = client.UpdateStatus(ctx, co, metav1.UpdateOptions{})
	return err
}

// staticPodsRoll is a static-pod operator rolling its latest revision (at least
// 1, at least the gate's minimum) to every control-plane node, in the steps
// library-go's controllers take (operator/staticpod/controller/node and
// installer): a nodeStatus is added for a node with its nodeName alone, then
// one node at a time gets targetRevision, its mirror pod the revision (Running
// and Ready), then currentRevision with targetRevision cleared. Since 4.16 the
// operators' CRDs hold them to it: a nodeStatus may not be created with a
// revision, at most one node has a targetRevision, currentRevision only grows
// (openshift/api operator/v1 types.go NodeStatus, its x-kubernetes-validations).
func (pl *Players) staticPodsRoll(ctx context.Context, sp *planfile.StaticPodsGate) error {
	gvr := schema.GroupVersionResource{Group: "operator.openshift.io", Version: "v1", Resource: sp.Resource}
	client := pl.c.Dynamic.Resource(gvr)
	sel := labels.SelectorFromSet(labels.Set{"node-role.kubernetes.io/master": ""})
	if sp.NodeSelector != "" {
		var err error
		if sel, err = labels.Parse(sp.NodeSelector); err != nil {
			return err
		}
	}
	nodes, err := pl.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return err
	}
	container := sp.PodPrefix
	if c := inspect.StaticPodComponentFor(sp.Resource); c != nil && c.Container != "" {
		container = c.Container
	}
	// The node controller lists every node; the revision controller makes
	// the latest revision.
	var rev int64
	if err := pl.updateStatus(ctx, client, sp.Resource, func(st map[string]any) {
		latest, _, _ := unstructured.NestedInt64(st, "latestAvailableRevision")
		rev = max(latest, 1, int64(sp.MinRevision))
		st["latestAvailableRevision"] = rev
		statuses, _ := st["nodeStatuses"].([]any)
		for _, n := range nodes.Items {
			if nodeStatus(statuses, n.Name) == nil {
				statuses = append(statuses, map[string]any{"nodeName": n.Name})
			}
		}
		st["nodeStatuses"] = statuses
	}); err != nil {
		return err
	}
	// The installer controller, one node at a time.
	for _, n := range nodes.Items {
		if err := pl.updateStatus(ctx, client, sp.Resource, func(st map[string]any) {
			statuses, _ := st["nodeStatuses"].([]any)
			if ns := nodeStatus(statuses, n.Name); ns != nil && !atRevision(ns, rev) {
				ns["targetRevision"] = rev
			}
		}); err != nil {
			return err
		}
		if err := pl.mirrorPod(ctx, sp, n.Name, container, rev); err != nil {
			return err
		}
		if err := pl.updateStatus(ctx, client, sp.Resource, func(st map[string]any) {
			statuses, _ := st["nodeStatuses"].([]any)
			if ns := nodeStatus(statuses, n.Name); ns != nil {
				if !atRevision(ns, rev) {
					ns["currentRevision"] = rev
				}
				delete(ns, "targetRevision")
			}
		}); err != nil {
			return err
		}
	}
	return nil
}

// updateStatus writes the status of the operator's cluster object as change
// leaves it, read afresh and again on a conflict.
func (pl *Players) updateStatus(ctx context.Context, client dynamic.ResourceInterface, resource string, change func(status map[string]any)) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cr, err := client.Get(ctx, "cluster", metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("%s/cluster: %w", resource, err)
		}
		st, _ := cr.Object["status"].(map[string]any)
		if st == nil {
			st = map[string]any{}
		}
		change(st)
		cr.Object["status"] = st
		_, err = client.UpdateStatus(ctx, cr, metav1.UpdateOptions{})
		return err
	})
}

// nodeStatus is node's entry of nodeStatuses (nil: none).
func nodeStatus(statuses []any, node string) map[string]any {
	for _, s := range statuses {
		if m, ok := s.(map[string]any); ok && m["nodeName"] == node {
			return m
		}
	}
	return nil
}

// atRevision reports whether a nodeStatus has currentRevision rev or later.
func atRevision(ns map[string]any, rev int64) bool {
	cur, _, _ := unstructured.NestedInt64(ns, "currentRevision")
	return cur >= rev
}

func (pl *Players) mirrorPod(ctx context.Context, sp *planfile.StaticPodsGate, node, container string, rev int64) error {
	// The operator creates its operand's namespace (openshift-etcd has no
	// manifest in the 4.4 payload).
	if _, err := pl.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: sp.Namespace}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	pods := pl.kube.CoreV1().Pods(sp.Namespace)
	name := sp.PodPrefix + "-" + node
	p, err := pods.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		p, err = pods.Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"revision": strconv.FormatInt(rev, 10)}, Annotations: map[string]string{"kubernetes.io/config.mirror": "recover-test"}},
			Spec:       corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: container, Image: "quay.io/openshift/origin-hyperkube:4.4"}}},
		}, metav1.CreateOptions{})
	} else if err == nil && p.Labels["revision"] != strconv.FormatInt(rev, 10) {
		p.Labels["revision"] = strconv.FormatInt(rev, 10)
		p, err = pods.Update(ctx, p, metav1.UpdateOptions{})
	}
	if err != nil {
		return fmt.Errorf("mirror pod %s/%s: %w", sp.Namespace, name, err)
	}
	p.Status.Phase = corev1.PodRunning
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	_, err = pods.UpdateStatus(ctx, p, metav1.UpdateOptions{})
	return err
}

// cvoTakesTheUpdate is the restored CVO accepting the desired update:
// ClusterVersion's status.desired becomes spec.desiredUpdate, observed.
func (pl *Players) cvoTakesTheUpdate(ctx context.Context) error {
	client := pl.c.Dynamic.Resource(clusterVersions)
	cv, err := client.Get(ctx, "version", metav1.GetOptions{})
	if err != nil {
		return err
	}
	var typed struct {
		Spec struct {
			DesiredUpdate *struct {
				Version string `json:"version"`
				Image   string `json:"image"`
			} `json:"desiredUpdate"`
		} `json:"spec"`
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(cv.Object, &typed); err != nil {
		return err
	}
	du := typed.Spec.DesiredUpdate
	if du == nil {
		return fmt.Errorf("ClusterVersion has no desired update")
	}
	_ = unstructured.SetNestedMap(cv.Object, map[string]any{"version": du.Version, "image": du.Image}, "status", "desired")
	_ = unstructured.SetNestedField(cv.Object, cv.GetGeneration(), "status", "observedGeneration")
	_, err = client.UpdateStatus(ctx, cv, metav1.UpdateOptions{})
	return err
}
