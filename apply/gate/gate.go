package gate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/openshift-recover/recover/internal/openshift"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift-recover/recover/apply/internal/retry"
	"github.com/openshift-recover/recover/apply/resource"
	"github.com/openshift-recover/recover/plan/planfile"
)

// Default timeouts per gate kind. A plan gate's Timeout overrides them, and the
// engine's options override both.
var DefaultTimeouts = map[planfile.GateKind]time.Duration{
	planfile.GateClusterOperator: 30 * time.Minute,
	planfile.GateCRDEstablished:  2 * time.Minute,
	planfile.GateWorkloadRollout: 10 * time.Minute,
	planfile.GateStaticPods:      30 * time.Minute,
	planfile.GatePoolUpdated:     90 * time.Minute,
	planfile.GateCVOScaledDown:   5 * time.Minute,
	planfile.GateCVORunning:      10 * time.Minute,
	planfile.GateDeleted:         10 * time.Minute,
	// A relaxed PodDisruptionBudget waits for a pool that drains and reboots its
	// nodes one at a time: the longest default.
	planfile.GateNodesSettled:     3 * time.Hour,
	planfile.GateNodesReady:       30 * time.Minute,
	planfile.GateCSRIssued:        10 * time.Minute,
	planfile.GateRestored:         5 * time.Minute,
	planfile.GateConditionCleared: 30 * time.Minute,
	// The restored CVO retrieves and verifies the payload: minutes.
	planfile.GateReleaseAccepted: 15 * time.Minute,
}

// Progress is a gate's state at one moment.
type Progress struct {
	// Met is true when the gate's condition holds.
	Met bool `json:"met"`
	// Failed is true when the condition cannot become true without intervention
	// (a workload whose rollout kstatus reports Failed).
	Failed bool `json:"failed,omitempty"`
	// CVOWaits is true when the CVO itself would still be waiting here, not
	// failing (a cluster-operator gate whose operator is updating, or Degraded
	// for less than 40 minutes: inspect.OperatorWaitFor): the gate's timeout
	// does not end such a wait, unless the admin set it (--gate-timeout).
	CVOWaits bool `json:"cvoWaits,omitempty"`
	// Slow is true past the CVO's "longer than expected" threshold
	// (inspect.SlowAfter); the gate keeps waiting and says so.
	Slow bool `json:"slow,omitempty"`
	// Reason is the CVO's reason for not moving on (ClusterOperatorUpdating,
	// ClusterOperatorDegraded, ...), for a cluster-operator gate.
	Reason string `json:"reason,omitempty"`
	// Message says what holds or what is missing, in one sentence.
	Message string `json:"message"`
	// Pending lists what is not there yet, one item each (a node behind, a
	// version not reported, a condition not met).
	Pending []string `json:"pending,omitempty"`
}

func (p Progress) same(q Progress) bool {
	return p.Met == q.Met && p.Failed == q.Failed && p.Message == q.Message && p.CVOWaits == q.CVOWaits && p.Slow == q.Slow
}

// TimeoutError is returned when a gate is not met within its timeout (for a
// cluster-operator gate: and the CVO would no longer be waiting either, unless
// the timeout is the admin's).
type TimeoutError struct {
	Kind    planfile.GateKind
	Timeout time.Duration
	Last    Progress
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s gate not met after %s: %s", e.Kind, e.Timeout, e.Last.Message)
}

// FailedError is returned when a gate failed for good.
type FailedError struct {
	Kind planfile.GateKind
	Last Progress
}

func (e *FailedError) Error() string {
	return fmt.Sprintf("%s gate failed: %s", e.Kind, e.Last.Message)
}

// Checker evaluates gates against a cluster.
type Checker struct {
	dynamic dynamic.Interface
	mapper  *resource.Mapper
}

// NewChecker returns a Checker.
func NewChecker(dyn dynamic.Interface, mapper *resource.Mapper) *Checker {
	return &Checker{dynamic: dyn, mapper: mapper}
}

// WaitOptions tune Wait.
type WaitOptions struct {
	// Timeout bounds the wait; zero means the kind's default (for machine-config,
	// scaled to its pools: machineConfigTimeout).
	Timeout time.Duration
	// HardTimeout makes Timeout end the wait even where the CVO would still
	// wait (the admin's --gate-timeout).
	HardTimeout bool
	// Heartbeat repeats the last progress this often while nothing changes
	// (zero: only on change).
	Heartbeat time.Duration
	// OnProgress is called with every change of progress and every heartbeat.
	OnProgress func(p Progress, elapsed time.Duration)
	// Restore is the pre-image a restored gate compares against (the engine
	// reads it from the journal).
	Restore *Restore
}

// source is one watched set of objects.
type source struct {
	gvr       schema.GroupVersionResource
	namespace string
	// name restricts the source to one object; selector to labelled ones.
	name     string
	selector string
}

// spec is a gate made concrete: its sources and its evaluation over their objects
// (objs[i] are source i's objects) after waiting waited.
type spec struct {
	sources []source
	eval    func(objs [][]*unstructured.Unstructured, waited time.Duration) Progress
	// timeout, when set, gives the default timeout from the objects (a
	// machine-config gate's, from its pools).
	timeout func(objs [][]*unstructured.Unstructured) time.Duration
}

// Check evaluates the gate once, from lists rather than watches.
func (c *Checker) Check(ctx context.Context, g *planfile.Gate) (Progress, error) {
	return c.CheckWith(ctx, g, WaitOptions{})
}

// CheckWith is Check with the options a gate may need (a restored gate's
// pre-image).
func (c *Checker) CheckWith(ctx context.Context, g *planfile.Gate, opts WaitOptions) (Progress, error) {
	s, err := c.spec(ctx, g, opts.Restore)
	if err != nil {
		return Progress{}, err
	}
	return c.evalLists(ctx, s, false)
}

// evalLists evaluates a gate's spec once over lists of its sources (from the
// watch cache when cached).
func (c *Checker) evalLists(ctx context.Context, s *spec, cached bool) (Progress, error) {
	objs := make([][]*unstructured.Unstructured, len(s.sources))
	for i, src := range s.sources {
		var list *unstructured.UnstructuredList
		err := retry.Do(ctx, func() (err error) {
			lo := listOptions(src)
			if cached {
				lo.ResourceVersion = "0"
			}
			list, err = c.resource(src).List(ctx, lo)
			return err
		})
		if err != nil {
			return Progress{}, fmt.Errorf("listing %s: %w", src.gvr.Resource, err)
		}
		for j := range list.Items {
			objs[i] = append(objs[i], &list.Items[j])
		}
	}
	return s.eval(objs, 0), nil
}

// Wait watches the gate's sources until the gate is met, fails, times out or ctx
// ends. It returns the last progress, and a *TimeoutError, a *FailedError or
// ctx's error when the gate was not met.
func (c *Checker) Wait(ctx context.Context, g *planfile.Gate, opts WaitOptions) (Progress, error) {
	start := time.Now()
	timeout := opts.Timeout
	defaulted := timeout <= 0
	if defaulted {
		timeout = DefaultTimeouts[g.Kind]
	}
	s, err := c.spec(ctx, g, opts.Restore)
	if err != nil {
		return Progress{}, err
	}
	// A gate met already (a remediation's, typically) needs one list, not the
	// informers' start-up and their cache-sync poll. The list is served from
	// the API server's watch cache, as an informer's first list is: a
	// consistent list of a resource nobody wrote lately waits for etcd's
	// progress notification (about 80 ms).
	if p, err := c.evalLists(ctx, s, true); err == nil && (p.Met || p.Failed) {
		if opts.OnProgress != nil {
			opts.OnProgress(p, time.Since(start))
		}
		if p.Failed {
			return p, &FailedError{Kind: g.Kind, Last: p}
		}
		return p, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	changed := make(chan struct{}, 1)
	notify := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	handler := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { notify() },
		UpdateFunc: func(any, any) { notify() },
		DeleteFunc: func(any) { notify() },
	}
	stores := make([]cache.Store, len(s.sources))
	synced := make([]cache.InformerSynced, len(s.sources))
	for i, src := range s.sources {
		src := src
		inf := dynamicinformer.NewFilteredDynamicInformer(c.dynamic, src.gvr, src.namespace, 0, cache.Indexers{}, func(o *metav1.ListOptions) {
			lo := listOptions(src)
			o.FieldSelector, o.LabelSelector = lo.FieldSelector, lo.LabelSelector
		}).Informer()
		if _, err := inf.AddEventHandler(handler); err != nil {
			return Progress{}, err
		}
		stores[i] = inf.GetStore()
		synced[i] = inf.HasSynced
		go inf.RunWithContext(ctx)
	}
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		if err := ctx.Err(); err != nil && !errors.Is(err, context.Canceled) {
			return Progress{}, err
		}
		return Progress{}, context.Cause(ctx)
	}
	list := func() [][]*unstructured.Unstructured {
		objs := make([][]*unstructured.Unstructured, len(stores))
		for i, st := range stores {
			for _, o := range st.List() {
				if u, ok := o.(*unstructured.Unstructured); ok {
					objs[i] = append(objs[i], u)
				}
			}
		}
		return objs
	}
	if defaulted && s.timeout != nil {
		timeout = max(timeout, s.timeout(list()))
	}
	timer := time.NewTimer(max(timeout-time.Since(start), 0))
	defer timer.Stop()
	var heartbeat <-chan time.Time
	if opts.Heartbeat > 0 {
		t := time.NewTicker(opts.Heartbeat)
		defer t.Stop()
		heartbeat = t.C
	}
	// A cluster-operator gate's verdict changes with time alone (Degraded
	// fails after 40 minutes, an update is slow after 30): it is evaluated
	// again every minute even when nothing changes.
	var tick <-chan time.Time
	if g.Kind == planfile.GateClusterOperator {
		t := time.NewTicker(time.Minute)
		defer t.Stop()
		tick = t.C
	}
	var last Progress
	first, timedOut := true, false
	for {
		p := s.eval(list(), time.Since(start))
		if (first || !p.same(last)) && opts.OnProgress != nil {
			opts.OnProgress(p, time.Since(start))
		}
		first, last = false, p
		switch {
		case p.Met:
			return p, nil
		case p.Failed:
			return p, &FailedError{Kind: g.Kind, Last: p}
		case timedOut && (!p.CVOWaits || opts.HardTimeout):
			return p, &TimeoutError{Kind: g.Kind, Timeout: timeout, Last: p}
		}
		select {
		case <-changed:
		case <-tick:
		case <-heartbeat:
			if opts.OnProgress != nil {
				opts.OnProgress(last, time.Since(start))
			}
		case <-timer.C:
			// Past the timeout: the next evaluation ends the wait unless the
			// CVO would still be waiting.
			timedOut = true
		case <-ctx.Done():
			return last, ctx.Err()
		}
	}
}

func (c *Checker) resource(src source) dynamic.ResourceInterface {
	if src.namespace != "" {
		return c.dynamic.Resource(src.gvr).Namespace(src.namespace)
	}
	return c.dynamic.Resource(src.gvr)
}

func listOptions(src source) metav1.ListOptions {
	lo := metav1.ListOptions{LabelSelector: src.selector}
	if src.name != "" {
		lo.FieldSelector = fields.OneTermEqualSelector("metadata.name", src.name).String()
	}
	return lo
}

// Describe returns a short sentence for a gate: its description, or one made from
// its kind and subject.
func Describe(g *planfile.Gate) string {
	if g == nil {
		return "no gate"
	}
	if g.Description != "" {
		return g.Description
	}
	return string(g.Kind) + " " + Subject(g)
}

// Subject names what a gate watches ("clusteroperator/etcd", "pool/master").
func Subject(g *planfile.Gate) string {
	switch g.Kind {
	case planfile.GateClusterOperator:
		return "clusteroperator/" + g.ClusterOperator
	case planfile.GatePoolUpdated:
		return "machineconfigpool/" + g.Pool
	case planfile.GateStaticPods:
		if g.StaticPods != nil {
			return g.StaticPods.Resource + "/cluster"
		}
	case planfile.GateCVOScaledDown, planfile.GateCVORunning:
		return "deployment/" + openshift.CVONamespace + "/" + openshift.CVODeployment
	case planfile.GateNodesSettled, planfile.GateNodesReady:
		return "node/" + strings.Join(g.Nodes, ",")
	}
	if g.Object != nil {
		parts := []string{strings.ToLower(g.Object.Kind)}
		if g.Object.Namespace != "" {
			parts = append(parts, g.Object.Namespace)
		}
		return strings.Join(append(parts, g.Object.Name), "/")
	}
	return ""
}
