package sim

import (
	"fmt"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/openshift-recover/recover/internal/openshift"
)

func (h *harness) pdb(ns, name string) *policyv1.PodDisruptionBudget {
	h.t.Helper()
	p, err := h.sim.kube.PolicyV1().PodDisruptionBudgets(ns).Get(h.ctx, name, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	return p
}

// setMinAvailable patches a PodDisruptionBudget's spec.minAvailable, as the
// runbook (and recover's relax-pdb step) does.
func (h *harness) setMinAvailable(ns, name string, n int) {
	h.t.Helper()
	patch := fmt.Sprintf(`{"spec":{"minAvailable":%d}}`, n)
	if _, err := h.sim.kube.PolicyV1().PodDisruptionBudgets(ns).Patch(h.ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) podsOf(ns, selector string) []corev1.Pod {
	h.t.Helper()
	list, err := h.sim.kube.CoreV1().Pods(ns).List(h.ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		h.t.Fatal(err)
	}
	return list.Items
}

func TestExamplePDBBlocksDrainHoldsUntilTheBudgetIsRelaxed(t *testing.T) {
	h := exampleHarness(t, "pdb-blocks-drain")
	w443, w444 := renderedConfigName("worker", "4.4.3"), renderedConfigName("worker", "4.4.4")
	for _, e := range h.sim.Events() {
		if e.Reason == "Skipped" {
			t.Errorf("the example must-gather holds an object the simulator skipped: %s", e)
		}
	}
	// Loaded: the deck pods stay on the nodes being drained.
	on := map[string]string{}
	for _, p := range h.podsOf("ci", "app=deck") {
		on[p.Spec.NodeName] = p.Name
	}
	if on["worker-1"] == "" || on["worker-2"] == "" || len(on) != 2 {
		t.Fatalf("deck pods on %v, want one on worker-1 and one on worker-2 as the must-gather has them", on)
	}
	h.start()

	// The wedge: the real disruption controller says the budget is at its
	// limit, the drain controller's evictions are refused, the nodes stay
	// Degraded and the pool and machine-config report it.
	h.eventually("the disruption controller computes ci/deck at its limit", func() (bool, string, error) {
		p := h.pdb("ci", "deck")
		return p.Status.ObservedGeneration == p.Generation && p.Status.CurrentHealthy == 2 && p.Status.DesiredHealthy == 2 && p.Status.DisruptionsAllowed == 0,
			fmt.Sprintf("%+v", p.Status), nil
	})
	h.waitEvent("an eviction from worker-1 is refused", func(e Event) bool {
		return e.Reason == "DrainFailed" && e.Object == "Node worker-1" && strings.Contains(e.Message, "Cannot evict pod as it would violate the pod's disruption budget.")
	})
	for _, name := range []string{"worker-1", "worker-2"} {
		n := h.node(name)
		a := n.Annotations
		if a[stateAnnotation] != stateDegraded || a[reasonAnnotation] != drainTimeoutReason(name) || !n.Spec.Unschedulable ||
			a[openshift.AnnotationDesiredDrain] != openshift.DrainPrefix+w444 || a[openshift.AnnotationLastAppliedDrain] != openshift.UncordonPrefix+w443 || a[currentConfigAnnotation] != w443 {
			t.Errorf("%s while the budget refuses: state %s (%s), unschedulable %v, desiredDrain %s, lastAppliedDrain %s, currentConfig %s",
				name, a[stateAnnotation], a[reasonAnnotation], n.Spec.Unschedulable, a[openshift.AnnotationDesiredDrain], a[openshift.AnnotationLastAppliedDrain], a[currentConfigAnnotation])
		}
	}
	if len(h.podsOf("ci", "app=deck")) != 2 {
		t.Errorf("the controllers made extra deck pods: %d", len(h.podsOf("ci", "app=deck")))
	}
	h.eventually("the worker pool counts two degraded machines", func() (bool, string, error) {
		p := h.pool("worker")
		c := poolCondition(p, mcfgv1.MachineConfigPoolNodeDegraded)
		return p.Status.DegradedMachineCount == 2 && c != nil && strings.Contains(c.Message, `Node worker-1 is reporting: "failed to drain node: worker-1 after 1 hour.`),
			fmt.Sprintf("%d degraded, %+v", p.Status.DegradedMachineCount, c), nil
	})
	co := h.clusterOperator("machine-config")
	if c := findCondition(co.Status.Conditions, configv1.OperatorDegraded); c == nil || c.Status != configv1.ConditionTrue || c.Reason != requiredPoolsFailed || !strings.Contains(c.Message, "MachineConfigPool worker is not ready") {
		t.Errorf("machine-config Degraded: %+v, want RequiredPoolsFailed naming the worker pool", c)
	}
	if c := findCondition(co.Status.Conditions, configv1.OperatorUpgradeable); c == nil || c.Status != configv1.ConditionFalse || c.Reason != "DegradedPool" {
		t.Errorf("machine-config Upgradeable: %+v, want False DegradedPool", c)
	}

	// The remedy: relax the budget. The drains complete, the nodes update and
	// uncordon, the deck pods are recreated on the node that is not draining.
	h.setMinAvailable("ci", "deck", 0)
	h.eventually("the workers drain, update and are Done", func() (bool, string, error) {
		for _, name := range []string{"worker-0", "worker-1", "worker-2"} {
			n := h.node(name)
			a := n.Annotations
			if a[stateAnnotation] != stateDone || a[currentConfigAnnotation] != w444 || a[desiredConfigAnnotation] != w444 || n.Spec.Unschedulable ||
				a[openshift.AnnotationDesiredDrain] != a[openshift.AnnotationLastAppliedDrain] || a[openshift.AnnotationDesiredDrain] != openshift.UncordonPrefix+w444 {
				return false, fmt.Sprintf("%s: state %s, current %s, unschedulable %v, desiredDrain %s, lastAppliedDrain %s", name, a[stateAnnotation], a[currentConfigAnnotation], n.Spec.Unschedulable, a[openshift.AnnotationDesiredDrain], a[openshift.AnnotationLastAppliedDrain]), nil
			}
		}
		return true, "", nil
	})
	h.eventually("the worker pool is updated and not degraded", func() (bool, string, error) {
		p := h.pool("worker")
		return p.Status.UpdatedMachineCount == 3 && p.Status.DegradedMachineCount == 0 && p.Status.Configuration.Name == w444,
			fmt.Sprintf("%d updated, %d degraded, configuration %s", p.Status.UpdatedMachineCount, p.Status.DegradedMachineCount, p.Status.Configuration.Name), nil
	})
	h.eventually("machine-config is no longer Degraded", func() (bool, string, error) {
		co := h.clusterOperator("machine-config")
		return atRelease(co, "4.4.4"), describeCO(co), nil
	})
	h.eventually("the deck pods run again, on worker-0", func() (bool, string, error) {
		var where []string
		running := 0
		for _, p := range h.podsOf("ci", "app=deck") {
			if p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning {
				running++
				where = append(where, p.Spec.NodeName)
			}
		}
		return running == 2, fmt.Sprint(where), nil
	})
	for _, p := range h.podsOf("ci", "dns.operator.openshift.io/daemonset-dns=default") {
		if p.DeletionTimestamp != nil {
			t.Errorf("the drain evicted DaemonSet pod %s on %s", p.Name, p.Spec.NodeName)
		}
	}

	// Restoring the budget afterwards is fine: nothing is draining any more.
	h.setMinAvailable("ci", "deck", 2)
	h.eventually("the restored budget is at its limit again", func() (bool, string, error) {
		p := h.pdb("ci", "deck")
		return p.Status.ObservedGeneration == p.Generation && p.Status.CurrentHealthy == 2 && p.Status.DisruptionsAllowed == 0, fmt.Sprintf("%+v", p.Status), nil
	})
	for _, name := range []string{"worker-1", "worker-2"} {
		if n := h.node(name); n.Annotations[stateAnnotation] != stateDone || n.Spec.Unschedulable {
			t.Errorf("%s after the budget was restored: state %s, unschedulable %v", name, n.Annotations[stateAnnotation], n.Spec.Unschedulable)
		}
	}
}
