package sim

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift-recover/recover/internal/openshift"
)

// The machine-config daemon's node annotations and states, and the MCO's
// MachineConfig annotations (machine-config-operator pkg/daemon/constants); the
// annotation names are internal/openshift's, the one place recover spells them.
const (
	currentConfigAnnotation = openshift.AnnotationCurrentConfig
	desiredConfigAnnotation = openshift.AnnotationDesiredConfig
	stateAnnotation         = openshift.AnnotationMCDState
	reasonAnnotation        = openshift.AnnotationMCDReason
	stateDone               = "Done"
	stateWorking            = "Working"
	stateDegraded           = "Degraded"
	releaseImageAnnotation  = openshift.AnnotationReleaseImageVersion
	generatedByAnnotation   = openshift.AnnotationControllerVersion
	requiredForUpgradeLabel = "operator.machineconfiguration.openshift.io/required-for-upgrade"
)

// reconcileMachineConfig is the MCO's sync. When its Deployment runs a release the
// ClusterOperator does not report, it renders a MachineConfig of that release for
// every pool and points the pool at it (the pools themselves are rolled by the
// node controller). Then, as syncRequiredMachineConfigPools does (machine-config-
// operator pkg/operator/sync.go, 4.14 and later), it checks the pools: any pool
// Degraded, or a required pool (label required-for-upgrade, else master) not yet
// on its target, keeps the new version unreported; a paused required pool fails the
// sync at once and a wait longer than Timing.PoolSyncNode per required machine
// fails it too, and a failed sync is Degraded=True with reason RequiredPoolsFailed.
// Once the pools are done it reports the version (or, at its version already,
// clears the Degraded it set). It never blocks: it checks again when a pool
// changes or after CVOPoll.
func (op *operator) reconcileMachineConfig(ctx context.Context, version, reported string) bool {
	op.adoptDegraded(ctx, requiredPoolsFailed)
	if version == "" {
		return true
	}
	op.mu.Lock()
	rendered := op.renderedFor
	op.mu.Unlock()
	if version != reported && rendered != version {
		if !op.progressing(ctx, version, "", "Working towards "+version) {
			return false
		}
		pools, err := op.ops.pools.List(labels.Everything())
		if err != nil {
			return false
		}
		for _, pool := range pools {
			if _, err := op.renderPool(ctx, pool.Name, version); err != nil {
				op.s.rec.record(op.actor, "Error", "MachineConfigPool "+pool.Name, err.Error(), nil)
				op.retryLater(ctx)
				return true
			}
		}
		op.mu.Lock()
		op.renderedFor, rendered = version, version
		op.poolsFailing = time.Time{}
		op.mu.Unlock()
	}
	check := op.checkPools(rendered == version, version)
	op.syncUpgradeable(ctx)
	name := op.spec.ClusterOperator
	verb := func(err error) string {
		if version == reported {
			return fmt.Sprintf("Failed to resync %s because: %v", version, err)
		}
		return fmt.Sprintf("Unable to apply %s: %v", version, err)
	}
	op.mu.Lock()
	if check.waiting != op.poolsWaiting {
		op.poolsWaiting = check.waiting
		if check.waiting != "" {
			op.s.rec.record(op.actor, "WaitingForPools", "ClusterOperator "+name, check.waiting, nil)
		}
	}
	op.mu.Unlock()
	switch {
	case check.fatal != nil:
		op.failSync(ctx, version, verb(check.fatal))
		op.retryLater(ctx)
	case check.lastErr != nil:
		op.mu.Lock()
		if op.poolsFailing.IsZero() {
			op.poolsFailing = time.Now()
		}
		since := op.poolsFailing
		op.mu.Unlock()
		if time.Since(since) >= op.s.timings().poolSyncTimeout(check.requiredMachines) {
			op.failSync(ctx, version, verb(fmt.Errorf("error during syncRequiredMachineConfigPools: [%v, %v]", context.DeadlineExceeded, check.lastErr)))
			op.mu.Lock()
			op.poolsFailing = time.Now() // the next sync waits again
			op.mu.Unlock()
		}
		op.retryLater(ctx)
	default:
		op.mu.Lock()
		op.poolsFailing = time.Time{}
		op.mu.Unlock()
		cleared := op.s.own.set(name, nil)
		if version != reported {
			return op.reportVersion(ctx, version, "AsExpected", "Cluster version is "+version)
		}
		if cleared {
			if err := op.writeDegraded(ctx); err != nil {
				op.retryLater(ctx)
			}
		}
	}
	return true
}

// requiredPoolsFailed is the MCO's Degraded reason for a failed pool sync
// (taskFailed("RequiredPools")).
const requiredPoolsFailed = "RequiredPoolsFailed"

// failSync reports the MCO Degraded for a failed pool sync, and Progressing as
// syncDegradedStatus sets it alongside.
func (op *operator) failSync(ctx context.Context, version, msg string) {
	name := op.spec.ClusterOperator
	cond := conditionUpdate{Type: configv1.OperatorDegraded, Status: configv1.ConditionTrue, Reason: requiredPoolsFailed, Message: msg}
	if !op.s.own.set(name, &cond) {
		return
	}
	_ = op.s.updateClusterOperator(ctx, name, func(co *configv1.ClusterOperator) bool {
		if c := findCondition(co.Status.Conditions, configv1.OperatorProgressing); c != nil && c.Status == configv1.ConditionTrue {
			setCondition(&co.Status.Conditions, conditionUpdate{Type: configv1.OperatorProgressing, Status: configv1.ConditionTrue, Message: "Unable to apply " + version})
		} else {
			setCondition(&co.Status.Conditions, conditionUpdate{Type: configv1.OperatorProgressing, Status: configv1.ConditionFalse, Message: "Error while reconciling " + version})
		}
		return true
	})
	if err := op.writeDegraded(ctx); err != nil {
		op.retryLater(ctx)
	}
}

// poolCheck is one pass of syncRequiredMachineConfigPools over the pools.
type poolCheck struct {
	lastErr          error  // why the pools are not done yet
	fatal            error  // a paused required pool: the sync fails at once
	waiting          string // the pools still rolling, for events
	requiredMachines int
}

// checkPools checks the pools in name order as the MCO's loop does. rendered says
// whether the operator rendered version's configs itself (then a required pool's
// target is the name it rendered; else the pool's own spec).
func (op *operator) checkPools(rendered bool, version string) poolCheck {
	var out poolCheck
	pools, err := op.ops.pools.List(labels.Everything())
	if err != nil {
		out.lastErr = err
		return out
	}
	sort.Slice(pools, func(i, j int) bool { return pools[i].Name < pools[j].Name })
	required := requiredPools(pools)
	isRequired := map[string]bool{}
	for _, p := range required {
		isRequired[p.Name] = true
		out.requiredMachines += int(p.Status.MachineCount)
	}
	var waiting []string
	for _, p := range required {
		target := p.Spec.Configuration.Name
		if rendered {
			target = renderedConfigName(p.Name, version)
		}
		if st := p.Status; st.Configuration.Name != target || st.UpdatedMachineCount != st.MachineCount {
			waiting = append(waiting, fmt.Sprintf("%s (%d of %d updated)", p.Name, st.UpdatedMachineCount, st.MachineCount))
		}
	}
	if len(waiting) > 0 {
		out.waiting = "waiting for required pools: " + strings.Join(waiting, ", ")
	}
	for _, p := range pools {
		st := p.Status
		if c := poolCondition(p, mcfgv1.MachineConfigPoolDegraded); c != nil && c.Status == corev1.ConditionTrue {
			out.lastErr = fmt.Errorf("error MachineConfigPool %s is not ready, retrying. Status: (pool degraded: true total: %d, ready %d, updated: %d, unavailable: %d)",
				p.Name, st.MachineCount, st.ReadyMachineCount, st.UpdatedMachineCount, st.UnavailableMachineCount)
			return out
		}
		if !isRequired[p.Name] {
			continue
		}
		target := p.Spec.Configuration.Name
		if rendered {
			target = renderedConfigName(p.Name, version)
		}
		updated := poolCondition(p, mcfgv1.MachineConfigPoolUpdated)
		if st.Configuration.Name == target && st.UpdatedMachineCount == st.MachineCount && updated != nil && updated.Status == corev1.ConditionTrue {
			continue
		}
		out.lastErr = fmt.Errorf("error required MachineConfigPool %s is not ready, retrying. Status: (total: %d, ready %d, updated: %d, unavailable: %d, degraded: %d)",
			p.Name, st.MachineCount, st.ReadyMachineCount, st.UpdatedMachineCount, st.UnavailableMachineCount, st.DegradedMachineCount)
		if p.Spec.Paused {
			out.fatal = fmt.Errorf("error required MachineConfigPool %s is paused and cannot sync until it is unpaused", p.Name)
		}
		return out
	}
	return out
}

// syncUpgradeable is the MCO's syncUpgradeableStatus, reduced to the pools: a
// Degraded pool makes machine-config Upgradeable=False (DegradedPool). It writes
// only a change, and adds no condition the ClusterOperator lacks while all is well.
func (op *operator) syncUpgradeable(ctx context.Context) {
	pools, err := op.ops.pools.List(labels.Everything())
	if err != nil {
		return
	}
	want := conditionUpdate{Type: configv1.OperatorUpgradeable, Status: configv1.ConditionTrue, Reason: "AsExpected"}
	for _, p := range pools {
		if c := poolCondition(p, mcfgv1.MachineConfigPoolDegraded); c != nil && c.Status == corev1.ConditionTrue {
			want = conditionUpdate{Type: configv1.OperatorUpgradeable, Status: configv1.ConditionFalse, Reason: "DegradedPool",
				Message: "One or more machine config pools are degraded, please see `oc get mcp` for further details and resolve before upgrading"}
			break
		}
	}
	_ = op.s.updateClusterOperator(ctx, op.spec.ClusterOperator, func(co *configv1.ClusterOperator) bool {
		c := findCondition(co.Status.Conditions, configv1.OperatorUpgradeable)
		if c == nil && want.Status == configv1.ConditionTrue {
			return false
		}
		if c != nil && c.Status == want.Status && c.Reason == want.Reason && c.Message == want.Message {
			return false
		}
		setCondition(&co.Status.Conditions, want)
		return true
	})
}

// requiredPools returns the pools labelled required-for-upgrade, or the master pool
// when none is.
func requiredPools(pools []*mcfgv1.MachineConfigPool) []*mcfgv1.MachineConfigPool {
	var out []*mcfgv1.MachineConfigPool
	for _, p := range pools {
		if _, ok := p.Labels[requiredForUpgradeLabel]; ok {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		for _, p := range pools {
			if p.Name == "master" {
				out = append(out, p)
			}
		}
	}
	return out
}

// renderedConfigName is the rendered MachineConfig of a pool at a release. The MCO
// names them rendered-<pool>-<hash of the merged configs>; the hash here is of the
// pool and the release, which is what differs between the simulator's configs.
func renderedConfigName(pool, version string) string {
	sum := sha256.Sum256([]byte(pool + "\x00" + version))
	return "rendered-" + pool + "-" + hex.EncodeToString(sum[:16])
}

// renderPool creates the pool's rendered MachineConfig for version and points the
// pool's spec.configuration at it.
func (op *operator) renderPool(ctx context.Context, pool, version string) (string, error) {
	name := renderedConfigName(pool, version)
	mcs := op.s.mcfg.MachineconfigurationV1().MachineConfigs()
	if _, err := mcs.Get(ctx, name, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		mc := &mcfgv1.MachineConfig{
			ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{
				generatedByAnnotation:  version,
				releaseImageAnnotation: version,
			}},
			Spec: mcfgv1.MachineConfigSpec{Config: runtime.RawExtension{Raw: []byte(`{"ignition":{"version":"3.1.0"}}`)}},
		}
		if _, err := mcs.Create(ctx, mc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return "", fmt.Errorf("creating rendered MachineConfig %s: %w", name, err)
		}
	} else if err != nil {
		return "", err
	}
	pools := op.s.mcfg.MachineconfigurationV1().MachineConfigPools()
	changed := false
	err := retryConflict(ctx, func() error {
		p, err := pools.Get(ctx, pool, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if p.Spec.Configuration.Name == name {
			return nil
		}
		p.Spec.Configuration.Name = name
		_, err = pools.Update(ctx, p, metav1.UpdateOptions{})
		changed = err == nil
		return err
	})
	if err != nil {
		return "", fmt.Errorf("pointing MachineConfigPool %s at %s: %w", pool, name, err)
	}
	if changed {
		op.s.rec.record(op.actor, "Rendered", "MachineConfigPool "+pool, fmt.Sprintf("now targeting MachineConfig %s (%s)", name, version), nil)
	}
	return name, nil
}

// pools is the machine-config controller's node controller, with the
// machine-config daemons and the drain controller it drives: for every pool that
// is not paused it gives up to maxUnavailable nodes at a time (default 1) the
// pool's target config as desiredConfig, and runs each such node's daemon (see
// daemon: drain through the Eviction API, reboot into the target's kubelet,
// uncordon, Done); and it keeps the pool's status counts and conditions as the MCO
// computes them. A node already updating when its pool is paused finishes; no
// other starts.
type pools struct {
	s  *Sim
	op *operators

	mu      sync.Mutex
	ctx     context.Context
	wakes   map[string]chan struct{}
	daemons map[string]bool // nodes whose daemon is at work
	wg      sync.WaitGroup
}

func (p *pools) handler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { p.notify(obj) },
		UpdateFunc: func(_, obj any) { p.notify(obj) },
	}
}

// notify wakes the pool goroutines; a new pool gets one.
func (p *pools) notify(obj any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pool, ok := obj.(*mcfgv1.MachineConfigPool); ok {
		if _, running := p.wakes[pool.Name]; !running && p.ctx != nil {
			wake := make(chan struct{}, 1)
			p.wakes[pool.Name] = wake
			p.wg.Add(1)
			go func(name string) {
				defer p.wg.Done()
				p.run(p.ctx, name, wake)
			}(pool.Name)
		}
	}
	for _, w := range p.wakes {
		select {
		case w <- struct{}{}:
		default:
		}
	}
}

func (p *pools) run(ctx context.Context, name string, wake chan struct{}) {
	for {
		faultsChanged := p.s.faults.watch()
		p.step(ctx, name)
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-faultsChanged:
		}
	}
}

// step is one pass of the node controller over the pool: start nodes up to the
// pool's capacity, run a daemon for every node that is updating, and write the
// pool's status.
func (p *pools) step(ctx context.Context, name string) {
	if ctx.Err() != nil {
		return
	}
	// Read the pool itself, not the cache: a pause must stop the next node even
	// when it lands while the previous one finishes.
	pool, err := p.s.mcfg.MachineconfigurationV1().MachineConfigPools().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return
	}
	target := pool.Spec.Configuration.Name
	if target == "" {
		p.syncStatus(ctx, name)
		return
	}
	nodes := p.nodesOf(pool)
	if !pool.Spec.Paused {
		capacity := maxUnavailable(pool, len(nodes))
		for _, n := range nodes {
			if nodeUnavailable(n) {
				capacity--
			}
		}
		for _, n := range nodes {
			if capacity <= 0 {
				break
			}
			if n.Annotations[desiredConfigAnnotation] == target || n.Annotations[currentConfigAnnotation] == target {
				continue
			}
			if err := p.startNode(ctx, n.Name, target); err != nil {
				p.s.rec.record("machine-config", "Error", "Node "+n.Name, err.Error(), nil)
				break
			}
			p.s.rec.record("machine-config", "NodeUpdating", "Node "+n.Name, fmt.Sprintf("pool %s: desiredConfig %s", name, target), nil)
			capacity--
		}
		// The lister lags the writes just made; the daemons read the nodes live.
		nodes = p.nodesOf(pool)
	}
	for _, n := range nodes {
		// The daemon works toward the node's desiredConfig, whatever the pool
		// targets now: a node the controller started on the previous config
		// just before the pool moved finishes that update first, then counts
		// as available and is given the new one (leaving it alone deadlocked
		// the pool, its capacity held by a node nobody updated). A node
		// Degraded on the config it runs (content mismatch, ...) is not
		// updating: its daemon keeps failing, it stays Degraded.
		desired := n.Annotations[desiredConfigAnnotation]
		if desired != "" && n.Annotations[currentConfigAnnotation] != desired {
			p.runDaemon(ctx, name, n.Name, desired)
		}
	}
	p.syncStatus(ctx, name)
}

// runDaemon starts the daemon of node unless it is at work already.
func (p *pools) runDaemon(ctx context.Context, pool, node, target string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.daemons[node] {
		return
	}
	p.daemons[node] = true
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		p.daemon(ctx, pool, node, target)
		p.mu.Lock()
		delete(p.daemons, node)
		p.mu.Unlock()
		p.syncStatus(ctx, pool)
		p.notify(nil)
	}()
}

// maxUnavailable is the pool's spec.maxUnavailable (a number or a percentage of
// its nodes, rounded down, at least 1), 1 when unset, as the node controller reads it.
func maxUnavailable(pool *mcfgv1.MachineConfigPool, nodes int) int {
	if pool.Spec.MaxUnavailable == nil {
		return 1
	}
	v, err := intstr.GetScaledValueFromIntOrPercent(pool.Spec.MaxUnavailable, nodes, false)
	if err != nil || v < 1 {
		return 1
	}
	return v
}

// nodeUnavailable is the node controller's view of a node it must count against
// maxUnavailable: updating (desiredConfig not yet current, or the daemon not Done),
// not Ready, or cordoned.
func nodeUnavailable(n *corev1.Node) bool {
	return n.Annotations[desiredConfigAnnotation] != n.Annotations[currentConfigAnnotation] ||
		n.Annotations[stateAnnotation] != stateDone || !nodeReady(n) || n.Spec.Unschedulable
}

// waitWhileStuck holds a node update while a stuck-rollout fault on machine-config
// names the node (or names no node).
func (p *pools) waitWhileStuck(ctx context.Context, node string) bool {
	reported := false
	for {
		changed := p.s.faults.watch()
		if _, stuck := p.s.faults.find(FaultStuckRollout, machineConfigOperator, node); !stuck {
			return true
		}
		if !reported {
			p.s.rec.record("machine-config", "RolloutStuck", "Node "+node, "the machine-config daemon is held by a stuck-rollout fault", nil)
			reported = true
		}
		select {
		case <-ctx.Done():
			return false
		case <-changed:
		}
	}
}

// nodesOf returns the pool's nodes sorted by name.
func (p *pools) nodesOf(pool *mcfgv1.MachineConfigPool) []*corev1.Node {
	sel, err := metav1.LabelSelectorAsSelector(pool.Spec.NodeSelector)
	if err != nil || pool.Spec.NodeSelector == nil {
		return nil
	}
	nodes, err := p.op.nodes.List(sel)
	if err != nil {
		return nil
	}
	var out []*corev1.Node
	for _, n := range nodes {
		if _, ok := simNode(p.op.nodes, n.Name); ok {
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// startNode is the node controller choosing a node: its desiredConfig.
func (p *pools) startNode(ctx context.Context, node, target string) error {
	return p.updateNode(ctx, node, func(n *corev1.Node) bool {
		n.Annotations[desiredConfigAnnotation] = target
		return true
	})
}

// finishNode is the daemon after the reboot: the kubelet of the target config's
// release; then the uncordon it asks the drain controller for (desiredDrain
// "uncordon-<config>", which the controller applies: schedulable, lastAppliedDrain);
// then currentConfig = target and state Done.
func (p *pools) finishNode(ctx context.Context, node, target string) (string, error) {
	kubelet := p.kubeletOf(ctx, target)
	nodes := p.s.kube.CoreV1().Nodes()
	if kubelet != "" {
		err := retryConflict(ctx, func() error {
			n, err := nodes.Get(ctx, node, metav1.GetOptions{})
			if err != nil {
				return err
			}
			n.Status.NodeInfo.KubeletVersion = kubelet
			n.Status.NodeInfo.KubeProxyVersion = kubelet
			_, err = nodes.UpdateStatus(ctx, n, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			return "", err
		}
	}
	uncordon := openshift.UncordonPrefix + target
	steps := []func(*corev1.Node) bool{
		func(n *corev1.Node) bool { // the daemon
			n.Annotations[openshift.AnnotationDesiredDrain] = uncordon
			return true
		},
		func(n *corev1.Node) bool { // the drain controller
			n.Spec.Unschedulable = false
			n.Annotations[openshift.AnnotationLastAppliedDrain] = uncordon
			return true
		},
		func(n *corev1.Node) bool { // the daemon
			n.Annotations[currentConfigAnnotation] = target
			n.Annotations[desiredConfigAnnotation] = target
			n.Annotations[stateAnnotation] = stateDone
			n.Annotations[reasonAnnotation] = ""
			return true
		},
	}
	for _, step := range steps {
		if err := p.updateNode(ctx, node, step); err != nil {
			return "", err
		}
	}
	if kubelet == "" {
		kubelet = "unchanged (release of " + target + " unknown)"
	}
	return kubelet, nil
}

// kubeletOf returns the kubelet version ("v1.17.1") of a rendered config: the
// Kubernetes version of the release its release-image-version annotation names.
func (p *pools) kubeletOf(ctx context.Context, config string) string {
	mc, err := p.s.mcfg.MachineconfigurationV1().MachineConfigs().Get(ctx, config, metav1.GetOptions{})
	version := ""
	if err == nil {
		version = mc.Annotations[releaseImageAnnotation]
	}
	if version == "" {
		if op := p.op.byClusterOperator(machineConfigOperator); op != nil {
			version, _ = op.current()
		}
	}
	if version == "" {
		return ""
	}
	r, err := p.s.releases.byVersion(version)
	if err != nil || r.Kubernetes == "" {
		return ""
	}
	return "v" + r.Kubernetes
}

// syncStatus writes the pool status the MCO's node controller computes
// (pkg/controller/node/status.go calculateStatus).
func (p *pools) syncStatus(ctx context.Context, name string) {
	client := p.s.mcfg.MachineconfigurationV1().MachineConfigPools()
	_ = retryConflict(ctx, func() error {
		pool, err := client.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		nodes, err := p.liveNodesOf(ctx, pool)
		if err != nil {
			return err
		}
		st := poolStatus(pool, nodes)
		if equality.Semantic.DeepEqual(pool.Status, st) {
			return nil
		}
		wasDone := pool.Status.Configuration.Name
		pool.Status = st
		if _, err := client.UpdateStatus(ctx, pool, metav1.UpdateOptions{}); err != nil {
			return err
		}
		if st.Configuration.Name != wasDone && st.Configuration.Name != "" {
			p.s.rec.record("machine-config", "PoolUpdated", "MachineConfigPool "+name, "all nodes are updated with MachineConfig "+st.Configuration.Name, nil)
		}
		return nil
	})
}

// liveNodesOf reads the pool's nodes from the API server (the lister may lag the
// write just made).
func (p *pools) liveNodesOf(ctx context.Context, pool *mcfgv1.MachineConfigPool) ([]corev1.Node, error) {
	sel, err := metav1.LabelSelectorAsSelector(pool.Spec.NodeSelector)
	if err != nil || pool.Spec.NodeSelector == nil {
		return nil, err
	}
	list, err := p.s.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// poolStatus computes a pool's status from its nodes.
func poolStatus(pool *mcfgv1.MachineConfigPool, nodes []corev1.Node) mcfgv1.MachineConfigPoolStatus {
	target := pool.Spec.Configuration.Name
	var updated, ready, unavailable, degraded int32
	var reports []string
	for _, n := range nodes {
		cur, des, state := n.Annotations[currentConfigAnnotation], n.Annotations[desiredConfigAnnotation], n.Annotations[stateAnnotation]
		isUpdated := cur == target && des == target && state == stateDone
		isReady := nodeReady(&n) && !n.Spec.Unschedulable
		if isUpdated {
			updated++
			if isReady {
				ready++
			}
		}
		if !isReady || cur != des || state == stateWorking {
			unavailable++
		}
		if state == stateDegraded || state == "Unreconcilable" {
			degraded++
			reports = append(reports, fmt.Sprintf("Node %s is reporting: %q", n.Name, n.Annotations[reasonAnnotation]))
		}
	}
	st := mcfgv1.MachineConfigPoolStatus{
		ObservedGeneration:      pool.Generation,
		Configuration:           pool.Status.Configuration,
		MachineCount:            int32(len(nodes)),
		UpdatedMachineCount:     updated,
		ReadyMachineCount:       ready,
		UnavailableMachineCount: unavailable,
		DegradedMachineCount:    degraded,
		Conditions:              append([]mcfgv1.MachineConfigPoolCondition(nil), pool.Status.Conditions...),
		CertExpirys:             pool.Status.CertExpirys,
	}
	line := "MachineConfig " + target
	if updated == st.MachineCount && ready == st.MachineCount && unavailable == 0 {
		setPoolCondition(&st, mcfgv1.MachineConfigPoolUpdated, corev1.ConditionTrue, "All nodes are updated with "+line)
		setPoolCondition(&st, mcfgv1.MachineConfigPoolUpdating, corev1.ConditionFalse, "")
		st.Configuration = pool.Spec.Configuration
	} else {
		setPoolCondition(&st, mcfgv1.MachineConfigPoolUpdated, corev1.ConditionFalse, "")
		if pool.Spec.Paused {
			setPoolCondition(&st, mcfgv1.MachineConfigPoolUpdating, corev1.ConditionFalse, "Pool is paused; will not update to "+line)
		} else {
			setPoolCondition(&st, mcfgv1.MachineConfigPoolUpdating, corev1.ConditionTrue, "All nodes are updating to "+line)
		}
	}
	if degraded > 0 {
		// pkg/controller/node/status.go: the reason counts, the message quotes
		// every degraded node's reason.
		setPoolConditionReason(&st, mcfgv1.MachineConfigPoolNodeDegraded, corev1.ConditionTrue, fmt.Sprintf("%d nodes are reporting degraded status on sync", degraded), strings.Join(reports, ", "))
		setPoolCondition(&st, mcfgv1.MachineConfigPoolDegraded, corev1.ConditionTrue, "")
	} else {
		setPoolCondition(&st, mcfgv1.MachineConfigPoolNodeDegraded, corev1.ConditionFalse, "")
		setPoolCondition(&st, mcfgv1.MachineConfigPoolDegraded, corev1.ConditionFalse, "")
	}
	return st
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// setPoolCondition sets a pool condition, moving lastTransitionTime only when the
// status changes and leaving the condition alone when nothing differs.
func setPoolCondition(st *mcfgv1.MachineConfigPoolStatus, t mcfgv1.MachineConfigPoolConditionType, status corev1.ConditionStatus, msg string) {
	setPoolConditionReason(st, t, status, "", msg)
}

// setPoolConditionReason is setPoolCondition with a reason.
func setPoolConditionReason(st *mcfgv1.MachineConfigPoolStatus, t mcfgv1.MachineConfigPoolConditionType, status corev1.ConditionStatus, reason, msg string) {
	for i := range st.Conditions {
		c := &st.Conditions[i]
		if c.Type != t {
			continue
		}
		if c.Status != status {
			c.LastTransitionTime = metav1.Now()
		}
		c.Status, c.Message, c.Reason = status, msg, reason
		return
	}
	st.Conditions = append(st.Conditions, mcfgv1.MachineConfigPoolCondition{Type: t, Status: status, Reason: reason, Message: msg, LastTransitionTime: metav1.Now()})
}

// poolCondition returns the pool's condition of type t, or nil.
func poolCondition(p *mcfgv1.MachineConfigPool, t mcfgv1.MachineConfigPoolConditionType) *mcfgv1.MachineConfigPoolCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == t {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}
