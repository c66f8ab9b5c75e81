package sim

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// setForceRedeploymentReason sets the kube-apiserver operator's
// spec.forceRedeploymentReason, as recover's force-redeployment step does.
func (h *harness) setForceRedeploymentReason(reason string) {
	h.t.Helper()
	patch := fmt.Sprintf(`{"spec":{"forceRedeploymentReason":%q}}`, reason)
	if _, err := h.sim.dyn.Resource(staticPodGVR("kubeapiservers")).Patch(h.ctx, staticPodSingleton, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		h.t.Fatal(err)
	}
}

func TestExampleStaticPodStuckFailsUntilANewRevisionIsForced(t *testing.T) {
	h := exampleHarness(t, "static-pod-stuck")
	if f := h.sim.Faults(); len(f) != 1 || f[0].Type != FaultInstallerFails || f[0].Revision != 9 || f[0].Node != "master-1" {
		t.Fatalf("the scenario's fault is not active: %+v", f)
	}
	h.start()

	// The wedge: the installers of revision 9 keep failing on master-1, the
	// failure count grows, master-2 never starts, kube-apiserver is Degraded.
	h.waitEvent("another installer of revision 9 fails on master-1", func(e Event) bool {
		return e.Reason == "InstallerFailed" && e.Object == "Pod openshift-kube-apiserver/installer-9-retry-3-master-1"
	})
	h.eventually("master-1 records its fourth failure", func() (bool, string, error) {
		for _, ns := range h.kubeAPIServerStatus().NodeStatuses {
			if ns.NodeName == "master-1" {
				return ns.LastFailedCount >= 4 && ns.LastFailedRevision == 9 && ns.TargetRevision == 9 && ns.LastFailedReason == installerFailedReason && ns.LastFailedTime != nil &&
						len(ns.LastFailedRevisionErrors) == 1 && strings.HasPrefix(ns.LastFailedRevisionErrors[0], "installer: F0602"),
					fmt.Sprintf("%+v", ns), nil
			}
		}
		return false, "no master-1", nil
	})
	inst, err := h.sim.kube.CoreV1().Pods("openshift-kube-apiserver").Get(h.ctx, "installer-9-retry-3-master-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if inst.Status.Phase != corev1.PodFailed || len(inst.Status.ContainerStatuses) != 1 || inst.Status.ContainerStatuses[0].State.Terminated == nil ||
		!strings.Contains(inst.Status.ContainerStatuses[0].State.Terminated.Message, "localhost-recovery-client-token-9") {
		t.Errorf("installer-9-retry-3-master-1: phase %s, statuses %+v; want Failed with the termination message", inst.Status.Phase, inst.Status.ContainerStatuses)
	}
	st := h.kubeAPIServerStatus()
	for _, ns := range st.NodeStatuses {
		if ns.NodeName == "master-2" && (ns.CurrentRevision != 8 || ns.TargetRevision != 0) {
			t.Errorf("master-2 moved while master-1 fails: %+v", ns)
		}
	}
	co := h.clusterOperator("kube-apiserver")
	if c := findCondition(co.Status.Conditions, configv1.OperatorDegraded); c == nil || c.Status != configv1.ConditionTrue || c.Reason != nodeInstallerPodFailedCO ||
		!strings.HasPrefix(c.Message, "NodeInstallerDegraded: 1 nodes are failing on revision 9:\nNodeInstallerDegraded: installer: ") {
		t.Errorf("kube-apiserver Degraded: %+v", c)
	}
	if versionOf(co, "operator") != "4.4.3" {
		t.Errorf("kube-apiserver reports %s with a revision stuck", versionOf(co, "operator"))
	}

	// The remedy: a new forceRedeploymentReason. Revision 10 lands on every
	// master, the failure is gone and the operator reports 4.4.4.
	h.setForceRedeploymentReason("recover: revision 9 fails on master-1")
	h.eventually("revision 10 runs on every master", func() (bool, string, error) {
		for _, node := range []string{"master-0", "master-1", "master-2"} {
			// The kubelet deletes a mirror pod and creates it anew when its
			// static pod restarts: a poll may fall in between.
			p, err := h.sim.kube.CoreV1().Pods("openshift-kube-apiserver").Get(h.ctx, "kube-apiserver-"+node, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return false, node + ": mirror pod being recreated", nil
			}
			if err != nil {
				return false, "", err
			}
			if rev := p.Labels[revisionLabel]; rev != "10" {
				return false, node + " at revision " + rev, nil
			}
		}
		st := h.kubeAPIServerStatus()
		for _, ns := range st.NodeStatuses {
			if ns.CurrentRevision != 10 || ns.TargetRevision != 0 || ns.LastFailedRevision == ns.TargetRevision && ns.LastFailedRevision != 0 {
				return false, fmt.Sprintf("%+v", ns), nil
			}
		}
		return st.LatestAvailableRevision == 10, "latest " + strconv.Itoa(int(st.LatestAvailableRevision)), nil
	})
	h.eventually("kube-apiserver reports 4.4.4 and is not Degraded", func() (bool, string, error) {
		co := h.clusterOperator("kube-apiserver")
		return atRelease(co, "4.4.4"), describeCO(co), nil
	})
	for _, e := range h.sim.Events() {
		if e.Reason == "RevisionCreated" && e.Message != "revision 10 for "+redeployTrigger {
			t.Errorf("unexpected revision: %s", e)
		}
	}
}
