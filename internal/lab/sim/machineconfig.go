package sim

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"sync"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
)

// The machine-config daemon's node annotations and states, and the MCO's
// MachineConfig annotations (machine-config-operator pkg/daemon/constants).
const (
	currentConfigAnnotation = "machineconfiguration.openshift.io/currentConfig"
	desiredConfigAnnotation = "machineconfiguration.openshift.io/desiredConfig"
	stateAnnotation         = "machineconfiguration.openshift.io/state"
	reasonAnnotation        = "machineconfiguration.openshift.io/reason"
	stateDone               = "Done"
	stateWorking            = "Working"
	stateDegraded           = "Degraded"
	releaseImageAnnotation  = "machineconfiguration.openshift.io/release-image-version"
	generatedByAnnotation   = "machineconfiguration.openshift.io/generated-by-controller-version"
	requiredForUpgradeLabel = "operator.machineconfiguration.openshift.io/required-for-upgrade"
)

// reconcileMachineConfig is the MCO's sync when its Deployment runs a release the
// ClusterOperator does not report: it renders a MachineConfig of that release for
// every pool and points the pool at it, and reports the new version only once the
// required pools (the master pool) have rolled it out to every node
// (machine-config-operator pkg/operator/sync.go syncRequiredMachineConfigPools).
// The pools themselves are rolled by the pool controller, one node at a time.
func (op *operator) reconcileMachineConfig(ctx context.Context, version, reported string) bool {
	if version == "" || version == reported {
		return true
	}
	if !op.progressing(ctx, version, "", "Working towards "+version) {
		return false
	}
	pools, err := op.ops.pools.List(labels.Everything())
	if err != nil {
		return false
	}
	targets := map[string]string{}
	for _, pool := range pools {
		name, err := op.renderPool(ctx, pool.Name, version)
		if err != nil {
			op.s.rec.record(op.actor, "Error", "MachineConfigPool "+pool.Name, err.Error(), nil)
			op.retryLater(ctx)
			return true
		}
		targets[pool.Name] = name
	}
	last := ""
	for {
		done, waiting := op.requiredPoolsDone(targets)
		if done {
			break
		}
		if waiting != last {
			op.s.rec.record(op.actor, "WaitingForPools", "ClusterOperator "+machineConfigOperator, "waiting for required pools: "+waiting, nil)
			last = waiting
		}
		if !op.pauseFor(ctx, func(t Timing) time.Duration { return t.CVOPoll.Duration }, version) {
			return false
		}
	}
	return op.reportVersion(ctx, version, "AsExpected", "Cluster version is "+version)
}

// requiredPoolsDone reports whether every required pool runs its target on every
// node, and else names the pools still rolling.
func (op *operator) requiredPoolsDone(targets map[string]string) (bool, string) {
	pools, err := op.ops.pools.List(labels.Everything())
	if err != nil {
		return false, err.Error()
	}
	required := requiredPools(pools)
	var waiting []string
	for _, p := range required {
		st := p.Status
		if st.Configuration.Name != targets[p.Name] || st.UpdatedMachineCount != st.MachineCount {
			waiting = append(waiting, fmt.Sprintf("%s (%d of %d updated)", p.Name, st.UpdatedMachineCount, st.MachineCount))
		}
	}
	sort.Strings(waiting)
	return len(waiting) == 0, fmt.Sprint(waiting)
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

// pools is the machine-config controller's node controller and the
// machine-config daemons together: for every pool that is not paused it updates
// nodes to the pool's target config one at a time (maxUnavailable 1): desiredConfig
// and state Working, cordon, the kubelet of the target release after
// Timing.MachineConfigNode, currentConfig and state Done, uncordon; and it keeps the
// pool's status counts and conditions as the MCO computes them. A node already
// updating when its pool is paused finishes; no other starts.
type pools struct {
	s  *Sim
	op *operators

	mu    sync.Mutex
	ctx   context.Context
	wakes map[string]chan struct{}
	wg    sync.WaitGroup
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
		again := p.step(ctx, name)
		if again {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-faultsChanged:
		}
	}
}

// step moves the pool one node forward; it reports whether to step again at once.
func (p *pools) step(ctx context.Context, name string) bool {
	if ctx.Err() != nil {
		return false
	}
	// Read the pool itself, not the cache: a pause must stop the next node even
	// when it lands while the previous one finishes.
	pool, err := p.s.mcfg.MachineconfigurationV1().MachineConfigPools().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return false
	}
	target := pool.Spec.Configuration.Name
	nodes := p.nodesOf(pool)
	if target == "" {
		p.syncStatus(ctx, name)
		return false
	}
	var updating *corev1.Node
	for _, n := range nodes {
		if n.Annotations[desiredConfigAnnotation] == target && n.Annotations[currentConfigAnnotation] != target {
			updating = n
			break
		}
	}
	if updating == nil && !pool.Spec.Paused {
		for _, n := range nodes {
			if n.Annotations[currentConfigAnnotation] != target {
				if err := p.startNode(ctx, n.Name, target); err != nil {
					p.s.rec.record("machine-config", "Error", "Node "+n.Name, err.Error(), nil)
					return false
				}
				p.s.rec.record("machine-config", "NodeUpdating", "Node "+n.Name, fmt.Sprintf("pool %s: desiredConfig %s", name, target), nil)
				updating = n
				break
			}
		}
	}
	p.syncStatus(ctx, name)
	if updating == nil {
		return false
	}
	if !p.waitWhileStuck(ctx, updating.Name) {
		return false
	}
	if !p.s.delay(ctx, func(t Timing) time.Duration { return t.MachineConfigNode.Duration }, nil) {
		return false
	}
	kubelet, err := p.finishNode(ctx, updating.Name, target)
	if err != nil {
		p.s.rec.record("machine-config", "Error", "Node "+updating.Name, err.Error(), nil)
		return false
	}
	p.s.rec.record("machine-config", "NodeUpdated", "Node "+updating.Name, fmt.Sprintf("pool %s: currentConfig %s, kubelet %s", name, target, kubelet), nil)
	p.syncStatus(ctx, name)
	// The informer will see the write; step again once it has.
	return false
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

// startNode is the node controller choosing a node: desiredConfig, then the daemon
// starting (state Working) and cordoning it.
func (p *pools) startNode(ctx context.Context, node, target string) error {
	nodes := p.s.kube.CoreV1().Nodes()
	return retryConflict(ctx, func() error {
		n, err := nodes.Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if n.Annotations == nil {
			n.Annotations = map[string]string{}
		}
		n.Annotations[desiredConfigAnnotation] = target
		n.Annotations[stateAnnotation] = stateWorking
		n.Annotations[reasonAnnotation] = ""
		n.Spec.Unschedulable = true
		_, err = nodes.Update(ctx, n, metav1.UpdateOptions{})
		return err
	})
}

// finishNode is the daemon after the reboot: the kubelet of the target config's
// release, currentConfig = target, state Done, uncordoned.
func (p *pools) finishNode(ctx context.Context, node, target string) (string, error) {
	kubelet := p.kubeletOf(ctx, target)
	nodes := p.s.kube.CoreV1().Nodes()
	err := retryConflict(ctx, func() error {
		n, err := nodes.Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if kubelet != "" {
			n.Status.NodeInfo.KubeletVersion = kubelet
			n.Status.NodeInfo.KubeProxyVersion = kubelet
			if n, err = nodes.UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
				return err
			}
		}
		n.Annotations[currentConfigAnnotation] = target
		n.Annotations[desiredConfigAnnotation] = target
		n.Annotations[stateAnnotation] = stateDone
		n.Spec.Unschedulable = false
		_, err = nodes.Update(ctx, n, metav1.UpdateOptions{})
		return err
	})
	if kubelet == "" {
		kubelet = "unchanged (release of " + target + " unknown)"
	}
	return kubelet, err
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
		setPoolCondition(&st, mcfgv1.MachineConfigPoolNodeDegraded, corev1.ConditionTrue, fmt.Sprintf("%d nodes are reporting degraded status on sync", degraded))
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
	for i := range st.Conditions {
		c := &st.Conditions[i]
		if c.Type != t {
			continue
		}
		if c.Status != status {
			c.LastTransitionTime = metav1.Now()
		}
		c.Status, c.Message, c.Reason = status, msg, ""
		return
	}
	st.Conditions = append(st.Conditions, mcfgv1.MachineConfigPoolCondition{Type: t, Status: status, Message: msg, LastTransitionTime: metav1.Now()})
}
