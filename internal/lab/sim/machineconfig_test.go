package sim

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/openshift-recover/recover/internal/openshift"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// nodeWatch records, for every node update, how many nodes of each pool were
// mid-update (desiredConfig differs from currentConfig, or state Working) at once.
type nodeWatch struct {
	mu      sync.Mutex
	nodes   map[string]corev1.Node
	maxBusy map[string]int
	updates int
}

func (h *harness) watchNodes() *nodeWatch {
	h.t.Helper()
	nw := &nodeWatch{nodes: map[string]corev1.Node{}, maxBusy: map[string]int{}}
	list, err := h.sim.kube.CoreV1().Nodes().List(h.ctx, metav1.ListOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	for _, n := range list.Items {
		nw.nodes[n.Name] = n
	}
	w, err := h.sim.kube.CoreV1().Nodes().Watch(h.ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(w.Stop)
	go func() {
		for ev := range w.ResultChan() {
			n, ok := ev.Object.(*corev1.Node)
			if !ok || ev.Type != watch.Modified {
				continue
			}
			nw.mu.Lock()
			nw.nodes[n.Name] = *n
			nw.updates++
			busy := map[string]int{}
			for _, x := range nw.nodes {
				if x.Annotations[desiredConfigAnnotation] != x.Annotations[currentConfigAnnotation] || x.Annotations[stateAnnotation] == stateWorking {
					busy[poolOf(&x)]++
				}
			}
			for pool, b := range busy {
				nw.maxBusy[pool] = max(nw.maxBusy[pool], b)
			}
			nw.mu.Unlock()
		}
	}()
	return nw
}

func poolOf(n *corev1.Node) string {
	if _, ok := n.Labels[openshift.LabelNodeRoleMaster]; ok {
		return "master"
	}
	return "worker"
}

func (nw *nodeWatch) count() int {
	nw.mu.Lock()
	defer nw.mu.Unlock()
	return nw.updates
}

func (nw *nodeWatch) busiest(pool string) int {
	nw.mu.Lock()
	defer nw.mu.Unlock()
	return nw.maxBusy[pool]
}

func (h *harness) pool(name string) *mcfgv1.MachineConfigPool {
	h.t.Helper()
	p, err := h.sim.mcfg.MachineconfigurationV1().MachineConfigPools().Get(h.ctx, name, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	return p
}

func (h *harness) setPaused(pool string, paused bool) {
	h.t.Helper()
	pools := h.sim.mcfg.MachineconfigurationV1().MachineConfigPools()
	if err := retryConflict(h.ctx, func() error {
		p, err := pools.Get(h.ctx, pool, metav1.GetOptions{})
		if err != nil {
			return err
		}
		p.Spec.Paused = paused
		_, err = pools.Update(h.ctx, p, metav1.UpdateOptions{})
		return err
	}); err != nil {
		h.t.Fatal(err)
	}
}

func TestMachineConfigRollsOneNodeAtATimeAndHonoursPause(t *testing.T) {
	f := newFixture()
	h := newHarness(t, f, Options{}, false)
	h.setPaused("worker", true)
	nodes := h.watchNodes()
	h.rollOperator("machine-config", newVersion)

	// The MCO reports its release once the required (master) pool is done, even
	// though the paused worker pool has not moved.
	h.eventually("machine-config reports "+newVersion, func() (bool, string, error) {
		co := h.clusterOperator("machine-config")
		return atRelease(co, newVersion), describeCO(co), nil
	})
	target := renderedConfigName("master", newVersion)
	master := h.pool("master")
	if master.Status.Configuration.Name != target || master.Status.UpdatedMachineCount != 3 || master.Status.MachineCount != 3 {
		t.Errorf("master pool: configuration %s, %d of %d updated; want %s, 3 of 3", master.Status.Configuration.Name, master.Status.UpdatedMachineCount, master.Status.MachineCount, target)
	}
	if c := poolCondition(master, mcfgv1.MachineConfigPoolUpdated); c == nil || c.Status != corev1.ConditionTrue {
		t.Errorf("master pool Updated condition: %+v", c)
	}
	for _, name := range f.masterNames() {
		n := h.node(name)
		if n.Status.NodeInfo.KubeletVersion != "v"+newKube || n.Annotations[currentConfigAnnotation] != target || n.Annotations[stateAnnotation] != stateDone || n.Spec.Unschedulable {
			t.Errorf("%s: kubelet %s, currentConfig %s, state %s, unschedulable %v", name, n.Status.NodeInfo.KubeletVersion, n.Annotations[currentConfigAnnotation], n.Annotations[stateAnnotation], n.Spec.Unschedulable)
		}
	}
	mc, err := h.sim.mcfg.MachineconfigurationV1().MachineConfigs().Get(h.ctx, target, metav1.GetOptions{})
	if err != nil || mc.Annotations[releaseImageAnnotation] != newVersion {
		t.Errorf("rendered MachineConfig %s: %v, release-image-version %q", target, err, mc.Annotations[releaseImageAnnotation])
	}

	// The paused pool targets the new config but did not move.
	worker := h.pool("worker")
	if worker.Spec.Configuration.Name != renderedConfigName("worker", newVersion) {
		t.Errorf("worker pool targets %s, want the new rendered config", worker.Spec.Configuration.Name)
	}
	if c := poolCondition(worker, mcfgv1.MachineConfigPoolUpdating); c == nil || c.Status != corev1.ConditionFalse || c.Message != "Pool is paused; will not update to MachineConfig "+worker.Spec.Configuration.Name {
		t.Errorf("paused worker pool Updating condition: %+v", c)
	}
	if worker.Status.UpdatedMachineCount != 0 {
		t.Errorf("paused worker pool: %d machines updated, want 0", worker.Status.UpdatedMachineCount)
	}
	for i := range f.workers {
		if n := h.node(fmt.Sprintf("worker-%d", i)); n.Status.NodeInfo.KubeletVersion != "v"+oldKube {
			t.Errorf("worker-%d in a paused pool moved to kubelet %s", i, n.Status.NodeInfo.KubeletVersion)
		}
	}

	// Unpaused, the workers follow, also one at a time.
	h.setPaused("worker", false)
	h.eventually("the worker pool is updated", func() (bool, string, error) {
		p := h.pool("worker")
		return p.Status.UpdatedMachineCount == int32(f.workers) && p.Status.Configuration.Name == p.Spec.Configuration.Name,
			fmt.Sprintf("%d of %d updated", p.Status.UpdatedMachineCount, p.Status.MachineCount), nil
	})
	for i := range f.workers {
		if n := h.node(fmt.Sprintf("worker-%d", i)); n.Status.NodeInfo.KubeletVersion != "v"+newKube {
			t.Errorf("worker-%d kubelet %s after unpausing, want v%s", i, n.Status.NodeInfo.KubeletVersion, newKube)
		}
	}
	if nodes.count() == 0 {
		t.Fatal("the node watch saw no updates")
	}
	for _, pool := range []string{"master", "worker"} {
		if b := nodes.busiest(pool); b != 1 {
			t.Errorf("pool %s had %d nodes updating at once, want exactly 1 at a time", pool, b)
		}
	}
}

func TestPausingAPoolMidRolloutStopsAfterTheCurrentNode(t *testing.T) {
	f := newFixture()
	h := newHarness(t, f, Options{}, false)
	h.rollOperator("machine-config", newVersion)
	first := h.waitEvent("a master starts updating", func(e Event) bool { return e.Reason == "NodeUpdating" && e.Object == "Node master-0" })
	h.setPaused("master", true)
	// The node already updating finishes (its daemon is at work); no other starts.
	h.waitEvent("master-0 finishes", func(e Event) bool { return e.Reason == "NodeUpdated" && e.Object == "Node master-0" })
	h.eventually("the paused master pool reports it will not update", func() (bool, string, error) {
		c := poolCondition(h.pool("master"), mcfgv1.MachineConfigPoolUpdating)
		return c != nil && c.Status == corev1.ConditionFalse, fmt.Sprintf("%+v", c), nil
	})
	for _, e := range h.sim.Events() {
		if e.Seq > first.Seq && e.Reason == "NodeUpdating" && (e.Object == "Node master-1" || e.Object == "Node master-2") {
			t.Fatalf("a master started updating in a paused pool: %s", e)
		}
	}
	if co := h.clusterOperator("machine-config"); versionOf(co, "operator") != oldVersion {
		t.Fatalf("machine-config reported %s with the required pool paused mid-rollout", versionOf(co, "operator"))
	}
	h.setPaused("master", false)
	h.eventually("machine-config reports "+newVersion+" after unpausing", func() (bool, string, error) {
		co := h.clusterOperator("machine-config")
		return atRelease(co, newVersion), describeCO(co), nil
	})
}

func TestAPausedRequiredPoolFailsTheMCOSyncUntilUnpaused(t *testing.T) {
	f := newFixture()
	h := newHarness(t, f, Options{}, false)
	h.setPaused("master", true)
	h.rollOperator("machine-config", newVersion)
	h.waitEvent("machine-config goes Degraded for the paused pool", func(e Event) bool {
		return e.Actor == "operator/machine-config" && e.Reason == "Degraded" &&
			e.Message == "True: Unable to apply "+newVersion+": error required MachineConfigPool master is paused and cannot sync until it is unpaused"
	})
	co := h.clusterOperator("machine-config")
	if versionOf(co, "operator") != oldVersion {
		t.Fatalf("machine-config reported %s with its required pool paused", versionOf(co, "operator"))
	}
	if c := findCondition(co.Status.Conditions, configv1.OperatorProgressing); c == nil || c.Status != configv1.ConditionTrue || c.Message != "Unable to apply "+newVersion {
		t.Errorf("machine-config Progressing: %+v", c)
	}
	h.setPaused("master", false)
	h.eventually("machine-config reports "+newVersion+" and is no longer Degraded", func() (bool, string, error) {
		co := h.clusterOperator("machine-config")
		return atRelease(co, newVersion), describeCO(co), nil
	})
}

func TestADegradedPoolFailsTheMCOSyncAfterItsTimeout(t *testing.T) {
	f := newFixture()
	f.timing.PoolSyncNode = metav1.Duration{Duration: 100 * time.Millisecond}
	h := newHarness(t, f, Options{}, false)
	// A worker degraded for a reason of its own.
	if err := retryConflict(h.ctx, func() error {
		n := h.node("worker-1")
		n.Annotations[stateAnnotation] = stateDegraded
		n.Annotations[reasonAnnotation] = "unexpected on-disk state validating against rendered-worker-x: content mismatch for file \"/etc/kubernetes/kubelet.conf\""
		_, err := h.sim.kube.CoreV1().Nodes().Update(h.ctx, n, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	h.eventually("the worker pool counts it degraded", func() (bool, string, error) {
		p := h.pool("worker")
		c := poolCondition(p, mcfgv1.MachineConfigPoolDegraded)
		return p.Status.DegradedMachineCount == 1 && c != nil && c.Status == corev1.ConditionTrue, fmt.Sprintf("%+v", p.Status), nil
	})
	h.eventually("machine-config fails its resync (RequiredPoolsFailed) and is not Upgradeable", func() (bool, string, error) {
		co := h.clusterOperator("machine-config")
		d := findCondition(co.Status.Conditions, configv1.OperatorDegraded)
		u := findCondition(co.Status.Conditions, configv1.OperatorUpgradeable)
		return d != nil && d.Status == configv1.ConditionTrue && d.Reason == requiredPoolsFailed &&
				d.Message == "Failed to resync "+oldVersion+" because: error during syncRequiredMachineConfigPools: [context deadline exceeded, error MachineConfigPool worker is not ready, retrying. Status: (pool degraded: true total: 2, ready 1, updated: 1, unavailable: 0)]" &&
				u != nil && u.Status == configv1.ConditionFalse && u.Reason == "DegradedPool",
			fmt.Sprintf("Degraded %+v, Upgradeable %+v", d, u), nil
	})
	if err := retryConflict(h.ctx, func() error {
		n := h.node("worker-1")
		n.Annotations[stateAnnotation] = stateDone
		n.Annotations[reasonAnnotation] = ""
		_, err := h.sim.kube.CoreV1().Nodes().Update(h.ctx, n, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	h.eventually("machine-config clears the Degraded it set", func() (bool, string, error) {
		co := h.clusterOperator("machine-config")
		d := findCondition(co.Status.Conditions, configv1.OperatorDegraded)
		u := findCondition(co.Status.Conditions, configv1.OperatorUpgradeable)
		return d != nil && d.Status == configv1.ConditionFalse && u != nil && u.Status == configv1.ConditionTrue, fmt.Sprintf("Degraded %+v, Upgradeable %+v", d, u), nil
	})
}
