package sim

import (
	"context"
	"slices"
	"sync"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfglisters "github.com/openshift/client-go/machineconfiguration/listers/machineconfiguration/v1"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// machineConfigOperator is the machine-config operator's ClusterOperator name.
const machineConfigOperator = "machine-config"

// operandImageEnv is the env var through which static-pod operators learn their
// operand's image (the kube-apiserver operator's IMAGE is hyperkube).
const operandImageEnv = "IMAGE"

// operators runs one fake operator per ClusterOperator whose Deployment the
// simulator has seen. An operator acts when its Deployment has rolled out a
// release (env RELEASE_VERSION) that its ClusterOperator does not report yet.
type operators struct {
	s           *Sim
	deployments appslisters.DeploymentLister
	nodes       corelisters.NodeLister
	pods        corelisters.PodLister
	pools       mcfglisters.MachineConfigPoolLister
	queue       *keyQueue

	mu       sync.Mutex
	ctx      context.Context
	wg       sync.WaitGroup
	byName   map[string]*operator
	explicit map[string][]OperatorSpec
	derived  map[string][]string
}

func newOperators(s *Sim) *operators {
	ops := &operators{s: s, byName: map[string]*operator{}, explicit: map[string][]OperatorSpec{}, queue: newKeyQueue()}
	for _, spec := range s.scn.Operators {
		ops.explicit[spec.Deployment] = append(ops.explicit[spec.Deployment], spec)
	}
	return ops
}

func (ops *operators) deploymentHandler() cache.ResourceEventHandler {
	enqueue := func(obj any) {
		if d, ok := obj.(*appsv1.Deployment); ok {
			ops.queue.add(d.Namespace + "/" + d.Name)
		}
	}
	return cache.ResourceEventHandlerFuncs{AddFunc: enqueue, UpdateFunc: func(_, obj any) { enqueue(obj) }}
}

// specsFor returns the operators a Deployment runs: the scenario's explicit ones, or
// those derived from the payloads (the ClusterOperator manifests of the payload
// component that holds the Deployment).
func (ops *operators) specsFor(key string) []OperatorSpec {
	ops.mu.Lock()
	defer ops.mu.Unlock()
	if specs, ok := ops.explicit[key]; ok {
		return specs
	}
	if ops.derived == nil {
		ops.derived = map[string][]string{}
		for _, r := range ops.s.releases.all() {
			for dep, cos := range r.operatorsOf() {
				for _, co := range cos {
					if !slices.Contains(ops.derived[dep], co) {
						ops.derived[dep] = append(ops.derived[dep], co)
					}
				}
			}
		}
	}
	var specs []OperatorSpec
	for _, co := range ops.derived[key] {
		specs = append(specs, OperatorSpec{ClusterOperator: co, Deployment: key})
	}
	return specs
}

// syncDeployment tells the Deployment's operators which release it now runs.
func (ops *operators) syncDeployment(_ context.Context, key string) error {
	specs := ops.specsFor(key)
	if len(specs) == 0 {
		return nil
	}
	ns, name, _ := cache.SplitMetaNamespaceKey(key)
	d, err := ops.deployments.Deployments(ns).Get(name)
	for _, spec := range specs {
		op := ops.operator(spec)
		version, image := "", ""
		switch {
		case err != nil:
		case rolledOut(d):
			version, image = releaseVersionOf(d), containerEnv(d, operandImageEnv)
		case restarting(d):
			// A pod of the same template is being replaced (a drain evicted
			// it): the operator still runs the release it ran.
			if v, img := op.current(); v == releaseVersionOf(d) && img == containerEnv(d, operandImageEnv) {
				version, image = v, img
			}
		}
		op.observe(version, image)
	}
	return nil
}

// restarting reports whether a Deployment runs only pods of its current template
// but not all of them are available: a pod was evicted or deleted and its
// replacement is starting.
func restarting(d *appsv1.Deployment) bool {
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	return want > 0 && d.Status.ObservedGeneration >= d.Generation && d.Status.UpdatedReplicas == d.Status.Replicas
}

// rolledOut reports whether a Deployment's pods all run its current template.
func rolledOut(d *appsv1.Deployment) bool {
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	return want > 0 &&
		d.Status.ObservedGeneration >= d.Generation &&
		d.Status.UpdatedReplicas == want &&
		d.Status.Replicas == want &&
		d.Status.AvailableReplicas >= want
}

// operator returns the operator for spec, starting it on first use.
func (ops *operators) operator(spec OperatorSpec) *operator {
	ops.mu.Lock()
	defer ops.mu.Unlock()
	if op, ok := ops.byName[spec.ClusterOperator]; ok {
		return op
	}
	if spec.Type == "" {
		spec.Type = defaultOperatorType(spec.ClusterOperator)
	}
	if spec.Type == OperatorStaticPod && spec.StaticPods == nil {
		sp := staticPodOperands[spec.ClusterOperator]
		spec.StaticPods = &sp
	}
	op := &operator{ops: ops, s: ops.s, spec: spec, actor: "operator/" + spec.ClusterOperator, wake: make(chan struct{}, 1)}
	ops.byName[spec.ClusterOperator] = op
	ops.wg.Add(1)
	go func() {
		defer ops.wg.Done()
		op.run(ops.ctx)
	}()
	return op
}

// byClusterOperator returns the running operator of a ClusterOperator.
func (ops *operators) byClusterOperator(name string) *operator {
	ops.mu.Lock()
	defer ops.mu.Unlock()
	return ops.byName[name]
}

// wakeAll wakes every operator (after a fault change or a static-pod spec change).
func (ops *operators) wakeAll() {
	ops.mu.Lock()
	defer ops.mu.Unlock()
	for _, op := range ops.byName {
		op.poke()
	}
}

// operator is one fake operator. Its goroutine reconciles whenever it is woken: by
// its Deployment, by a fault change, or by its operator resource's spec.
type operator struct {
	ops   *operators
	s     *Sim
	spec  OperatorSpec
	actor string
	wake  chan struct{}

	mu           sync.Mutex
	observed     string // the release its Deployment runs, "" while not rolled out
	image        string // the operand image its Deployment names (env IMAGE)
	setDegraded  bool   // it reported Degraded=True for a fault
	redeploy     string // static-pod: the forceRedeploymentReason last acted on
	redeploySeen bool   // static-pod: redeploy holds the reason found at start
	inflight     rollout
	adopted      bool // adoptDegraded ran

	// machine-config: the release rendered, and since when the required pools
	// have been failing the operator's sync.
	renderedFor  string
	poolsFailing time.Time
	poolsWaiting string
}

func (op *operator) observe(version, image string) {
	op.mu.Lock()
	changed := op.observed != version || op.image != image
	op.observed, op.image = version, image
	op.mu.Unlock()
	if changed {
		op.poke()
	}
}

func (op *operator) current() (version, image string) {
	op.mu.Lock()
	defer op.mu.Unlock()
	return op.observed, op.image
}

func (op *operator) poke() {
	select {
	case op.wake <- struct{}{}:
	default:
	}
}

func (op *operator) run(ctx context.Context) {
	for {
		faultsChanged := op.s.faults.watch()
		op.reconcile(ctx)
		select {
		case <-ctx.Done():
			return
		case <-op.wake:
		case <-faultsChanged:
		}
	}
}

// reconcile rolls out the observed release when the ClusterOperator does not report
// it, and keeps Degraded in line with the faults.
func (op *operator) reconcile(ctx context.Context) {
	version, _ := op.current()
	co, err := op.s.config.ConfigV1().ClusterOperators().Get(ctx, op.spec.ClusterOperator, metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		op.retryLater(ctx)
		return
	}
	reported := ""
	if co != nil && err == nil {
		reported = operatorVersion(co)
	}
	rolled := true
	switch op.spec.Type {
	case OperatorStaticPod:
		rolled = op.reconcileStaticPods(ctx, version, reported)
	case OperatorMachineConfig:
		rolled = op.reconcileMachineConfig(ctx, version, reported)
	default:
		if version != "" && version != reported {
			rolled = op.rolloutPlain(ctx, version)
		}
	}
	if !rolled {
		// Interrupted by a newer release or the end: go round again.
		op.poke()
		return
	}
	op.syncDegraded(ctx)
}

func (op *operator) retryLater(ctx context.Context) {
	go func() {
		if pause(ctx, op.s.timings().CVOPoll.Duration, nil) {
			op.poke()
		}
	}()
}

// syncDegraded reports Degraded=True while a degraded fault is active, and
// Degraded=False once the fault it reported is cleared.
func (op *operator) syncDegraded(ctx context.Context) {
	name := op.spec.ClusterOperator
	_, faulty := op.s.faults.find(FaultDegraded, name, "")
	op.mu.Lock()
	was := op.setDegraded
	op.mu.Unlock()
	if !faulty && !was {
		return
	}
	cond := op.s.degradedCondition(name)
	changed, err := op.s.setClusterOperatorCondition(ctx, name, cond)
	if err != nil {
		op.retryLater(ctx)
		return
	}
	op.mu.Lock()
	op.setDegraded = faulty
	op.mu.Unlock()
	if changed {
		op.s.rec.record(op.actor, "Degraded", "ClusterOperator "+name, string(cond.Status)+": "+cond.Message, nil)
	}
}

// rolloutPlain is a plain operator's rollout of version: Progressing=True, then
// after Timing.Operator (or never, under a stuck-rollout fault) the release's
// versions with Available=True, Progressing=False. It returns false when it was
// interrupted.
func (op *operator) rolloutPlain(ctx context.Context, version string) bool {
	if !op.progressing(ctx, version, "Deploying", "Progressing towards "+version) {
		return false
	}
	if !op.waitWhileStuck(ctx, version, "") {
		return false
	}
	if !op.pauseFor(ctx, func(t Timing) time.Duration { return t.Operator.Duration }, version) {
		return false
	}
	return op.reportVersion(ctx, version, "AsExpected", "All is well")
}

// progressing sets Progressing=True with the given reason and message.
func (op *operator) progressing(ctx context.Context, version, reason, msg string) bool {
	name := op.spec.ClusterOperator
	err := op.s.updateClusterOperator(ctx, name, func(co *configv1.ClusterOperator) bool {
		setCondition(&co.Status.Conditions, conditionUpdate{Type: configv1.OperatorProgressing, Status: configv1.ConditionTrue, Reason: reason, Message: msg})
		if findCondition(co.Status.Conditions, configv1.OperatorAvailable) == nil {
			setCondition(&co.Status.Conditions, conditionUpdate{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, Reason: "AsExpected"})
		}
		setCondition(&co.Status.Conditions, op.s.degradedCondition(name))
		return true
	})
	if err != nil {
		return false
	}
	op.s.rec.record(op.actor, "Progressing", "ClusterOperator "+name, msg, nil)
	return true
}

// reportVersion sets the versions the release's ClusterOperator manifest declares
// (only "operator" when the payload is unknown), Available=True and
// Progressing=False, in one status write: versions move only once every operand
// runs the release.
func (op *operator) reportVersion(ctx context.Context, version, reason, msg string) bool {
	name := op.spec.ClusterOperator
	versions := []configv1.OperandVersion{{Name: "operator", Version: version}}
	if r, err := op.s.releases.byVersion(version); err == nil {
		if vs, ok := r.clusterOperatorVersions(name); ok && len(vs) > 0 {
			versions = vs
		}
	}
	err := op.s.updateClusterOperator(ctx, name, func(co *configv1.ClusterOperator) bool {
		co.Status.Versions = append([]configv1.OperandVersion(nil), versions...)
		setCondition(&co.Status.Conditions, conditionUpdate{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, Reason: "AsExpected", Message: msg})
		setCondition(&co.Status.Conditions, conditionUpdate{Type: configv1.OperatorProgressing, Status: configv1.ConditionFalse, Reason: reason, Message: msg})
		setCondition(&co.Status.Conditions, op.s.degradedCondition(name))
		return true
	})
	if err != nil {
		return false
	}
	op.mu.Lock()
	_, op.setDegraded = op.s.faults.find(FaultDegraded, name, "")
	op.mu.Unlock()
	op.s.rec.record(op.actor, "VersionReported", "ClusterOperator "+name, formatVersions(versions), nil)
	return true
}

func formatVersions(vs []configv1.OperandVersion) string {
	s := ""
	for i, v := range vs {
		if i > 0 {
			s += ", "
		}
		s += v.Name + "=" + v.Version
	}
	return s
}

// pauseFor waits the delay pick selects (following SetTiming); false when ctx
// ends or the operator's release moved away from version meanwhile. A Deployment
// seen mid-restart (no release observed) has not moved: its status churns while
// the controller manager catches up, most on a loaded machine, and treating that
// as a move restarted the work on every wake. Wake-ups it receives while waiting
// are passed on to the operator's loop afterwards.
func (op *operator) pauseFor(ctx context.Context, pick func(Timing) time.Duration, version string) bool {
	moved := make(chan struct{})
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		woken := false
		defer func() {
			if woken {
				op.poke()
			}
		}()
		for {
			select {
			case <-done:
				return
			case <-op.wake:
				woken = true
				if v, _ := op.current(); v != version && v != "" {
					close(moved)
					return
				}
			}
		}
	}()
	ok := op.s.delay(ctx, pick, moved)
	close(done)
	<-exited
	if !ok {
		return false
	}
	v, _ := op.current()
	return v == version || v == ""
}

// waitWhileStuck blocks while a stuck-rollout fault holds the operator (at node,
// when node is set); false when interrupted.
func (op *operator) waitWhileStuck(ctx context.Context, version, node string) bool {
	reported, woken := false, false
	defer func() {
		if woken {
			op.poke()
		}
	}()
	for {
		changed := op.s.faults.watch()
		f, stuck := op.s.faults.find(FaultStuckRollout, op.spec.ClusterOperator, node)
		if stuck && node == "" && f.Node != "" {
			stuck = false // a node-scoped fault holds only that node
		}
		if !stuck {
			return true
		}
		if !reported {
			where := ""
			if node != "" {
				where = " at node " + node
			}
			op.s.rec.record(op.actor, "RolloutStuck", "ClusterOperator "+op.spec.ClusterOperator, "the rollout of "+version+" is held"+where+" by a stuck-rollout fault", nil)
			reported = true
		}
		select {
		case <-ctx.Done():
			return false
		case <-changed:
		case <-op.wake:
			woken = true
			if v, _ := op.current(); v != version {
				return false
			}
		}
	}
}

// pause waits d or until ctx ends or stop is closed; it reports whether d passed.
func pause(ctx context.Context, d time.Duration, stop <-chan struct{}) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-stop:
		return false
	case <-timer.C:
		return true
	}
}
