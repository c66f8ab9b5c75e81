package sim

import (
	"fmt"
	"strconv"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

func (h *harness) kubeAPIServerStatus() *operatorv1.StaticPodOperatorStatus {
	h.t.Helper()
	u, err := h.sim.dyn.Resource(staticPodGVR("kubeapiservers")).Get(h.ctx, staticPodSingleton, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	st := &operatorv1.StaticPodOperatorStatus{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object["status"].(map[string]any), st); err != nil {
		h.t.Fatal(err)
	}
	return st
}

func (h *harness) mirrorPod(node string) *corev1.Pod {
	h.t.Helper()
	p, err := h.sim.kube.CoreV1().Pods("openshift-kube-apiserver").Get(h.ctx, "kube-apiserver-"+node, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	return p
}

// eventIndex returns the Seq of the first event matching, or 0.
func eventIndex(events []Event, match func(Event) bool) int {
	for _, e := range events {
		if match(e) {
			return e.Seq
		}
	}
	return 0
}

func TestStaticPodRolloutGoesNodeByNode(t *testing.T) {
	f := newFixture()
	h := newHarness(t, f, Options{}, false)
	history := h.watchClusterOperator("kube-apiserver")
	h.rollOperator("kube-apiserver", newVersion)
	h.eventually("kube-apiserver reports "+newVersion, func() (bool, string, error) {
		co := h.clusterOperator("kube-apiserver")
		return atRelease(co, newVersion), describeCO(co), nil
	})
	rev := f.revision + 1
	co := h.clusterOperator("kube-apiserver")
	if got := versionOf(co, "kube-apiserver"); got != newKube {
		t.Errorf("operand version kube-apiserver=%s, want %s from the payload's ClusterOperator manifest", got, newKube)
	}
	checkRolloutOrder(t, "kube-apiserver", history.through(h, newVersion), oldVersion, newVersion)

	st := h.kubeAPIServerStatus()
	if st.LatestAvailableRevision != rev {
		t.Errorf("latestAvailableRevision %d, want %d", st.LatestAvailableRevision, rev)
	}
	for _, ns := range st.NodeStatuses {
		if ns.CurrentRevision != rev || ns.TargetRevision != 0 {
			t.Errorf("nodeStatus %s: current %d target %d, want current %d and no target", ns.NodeName, ns.CurrentRevision, ns.TargetRevision, rev)
		}
	}
	wantImage := componentImage("hyperkube", newVersion)
	for _, node := range f.masterNames() {
		p := h.mirrorPod(node)
		if p.Labels[revisionLabel] != strconv.Itoa(int(rev)) || p.Spec.Containers[0].Image != wantImage || p.Status.Phase != corev1.PodRunning {
			t.Errorf("mirror pod on %s: revision %s image %s phase %s; want revision %d running %s", node, p.Labels[revisionLabel], p.Spec.Containers[0].Image, p.Status.Phase, rev, wantImage)
		}
		inst, err := h.sim.kube.CoreV1().Pods("openshift-kube-apiserver").Get(h.ctx, fmt.Sprintf("installer-%d-%s", rev, node), metav1.GetOptions{})
		if err != nil {
			t.Errorf("installer pod on %s: %v", node, err)
		} else if inst.Status.Phase != corev1.PodSucceeded || inst.Spec.NodeName != node {
			t.Errorf("installer pod on %s: phase %s on node %s", node, inst.Status.Phase, inst.Spec.NodeName)
		}
	}

	// One node at a time, and the version only after the last one.
	events := h.sim.Events()
	actor := "operator/kube-apiserver"
	reported := eventIndex(events, func(e Event) bool { return e.Actor == actor && e.Reason == "VersionReported" })
	prevDone := 0
	for _, node := range f.masterNames() {
		started := eventIndex(events, func(e Event) bool {
			return e.Actor == actor && e.Reason == "InstallerStarted" && e.Object == fmt.Sprintf("Pod openshift-kube-apiserver/installer-%d-%s", rev, node)
		})
		done := eventIndex(events, func(e Event) bool {
			return e.Actor == actor && e.Reason == "NodeAtRevision" && e.Message == fmt.Sprintf("nodeStatuses: %s currentRevision %d", node, rev)
		})
		if started == 0 || done == 0 || started > done || started < prevDone || done > reported {
			t.Errorf("node %s: installer started at event %d, at revision at %d, previous node done at %d, version reported at %d; want one node at a time, then the version", node, started, done, prevDone, reported)
		}
		prevDone = done
	}
}

func TestKubeletFalseSuccessLeavesOneMasterBehind(t *testing.T) {
	f := newFixture()
	h := newHarness(t, f, Options{}, false)
	fault := Fault{Type: FaultKubeletFalseSuccess, ClusterOperator: "kube-apiserver", Node: "master-2"}
	if err := h.sim.InjectFault(fault); err != nil {
		t.Fatal(err)
	}
	h.rollOperator("kube-apiserver", newVersion)
	h.eventually("kube-apiserver claims "+newVersion, func() (bool, string, error) {
		co := h.clusterOperator("kube-apiserver")
		return atRelease(co, newVersion), describeCO(co), nil
	})
	rev := f.revision + 1
	// The claim: every nodeStatus at the new revision, the installer Succeeded.
	for _, ns := range h.kubeAPIServerStatus().NodeStatuses {
		if ns.CurrentRevision != rev {
			t.Errorf("nodeStatus %s claims %d, want %d (the operator believes the installer)", ns.NodeName, ns.CurrentRevision, rev)
		}
	}
	inst, err := h.sim.kube.CoreV1().Pods("openshift-kube-apiserver").Get(h.ctx, fmt.Sprintf("installer-%d-master-2", rev), metav1.GetOptions{})
	if err != nil || inst.Status.Phase != corev1.PodSucceeded {
		t.Fatalf("installer on master-2: %v, phase %v; the kubelet bug reports Succeeded", err, inst.Status.Phase)
	}
	// The reality: master-2 still runs the old revision and image.
	p := h.mirrorPod("master-2")
	if p.Labels[revisionLabel] != strconv.Itoa(int(f.revision)) || p.Spec.Containers[0].Image != componentImage("hyperkube", oldVersion) {
		t.Errorf("mirror pod on master-2: revision %s image %s; want the old revision %d and image", p.Labels[revisionLabel], p.Spec.Containers[0].Image, f.revision)
	}
	for _, node := range []string{"master-0", "master-1"} {
		if got := h.mirrorPod(node).Labels[revisionLabel]; got != strconv.Itoa(int(rev)) {
			t.Errorf("mirror pod on %s: revision %s, want %d", node, got, rev)
		}
	}

	// Once the kubelet is fixed, a forced redeployment (a new
	// forceRedeploymentReason, what an admin or recover does) brings master-2 up.
	h.sim.ClearFault(fault)
	client := h.sim.dyn.Resource(staticPodGVR("kubeapiservers"))
	err = retryConflict(h.ctx, func() error {
		u, err := client.Get(h.ctx, staticPodSingleton, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if err := unstructured.SetNestedField(u.Object, "recover: master-2 runs an old revision", "spec", "forceRedeploymentReason"); err != nil {
			return err
		}
		_, err = client.Update(h.ctx, u, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	h.eventually("every master at a new revision after the forced redeployment", func() (bool, string, error) {
		want := strconv.Itoa(int(rev + 1))
		for _, node := range f.masterNames() {
			p, err := h.sim.kube.CoreV1().Pods("openshift-kube-apiserver").Get(h.ctx, "kube-apiserver-"+node, metav1.GetOptions{})
			if err != nil {
				return false, "", nil
			}
			if p.Labels[revisionLabel] != want {
				return false, node + " at revision " + p.Labels[revisionLabel], nil
			}
		}
		return true, "", nil
	})
	if p := h.mirrorPod("master-2"); p.Spec.Containers[0].Image != componentImage("hyperkube", newVersion) {
		t.Errorf("master-2 after the redeployment runs %s, want the new operand image", p.Spec.Containers[0].Image)
	}
	h.eventually("kube-apiserver settles at "+newVersion, func() (bool, string, error) {
		co := h.clusterOperator("kube-apiserver")
		return atRelease(co, newVersion), describeCO(co), nil
	})
}

func TestRevisionSummary(t *testing.T) {
	st := []operatorv1.NodeStatus{{NodeName: "a", CurrentRevision: 8}, {NodeName: "b", CurrentRevision: 9}, {NodeName: "c", CurrentRevision: 8}}
	if got, want := revisionSummary(st, 9), "2 nodes are at revision 8; 1 nodes are at revision 9"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := revisionSummary(st, 10), "2 nodes are at revision 8; 1 nodes are at revision 9; 0 nodes have achieved new revision 10"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
