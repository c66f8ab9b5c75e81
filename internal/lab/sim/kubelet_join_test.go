package sim

import (
	"crypto/x509"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/internal/openshift"
)

// TestAJoiningKubeletRequestsItsCertificatesAndRegisters: a joining node without
// a CSR in the must-gather gets one from its kubelet (as the node-bootstrapper);
// once issued the node registers, its serving CSR follows and stays pending until
// approved too.
func TestAJoiningKubeletRequestsItsCertificatesAndRegisters(t *testing.T) {
	f := newFixture()
	f.extra = map[string]any{
		"namespaces/openshift-machine-api/machine.openshift.io/machines.yaml": map[string]any{
			"apiVersion": "machine.openshift.io/v1beta1", "kind": "MachineList",
			"items": []any{map[string]any{
				"apiVersion": "machine.openshift.io/v1beta1", "kind": "Machine",
				"metadata": map[string]any{"name": "lab-worker-q8x2v", "namespace": openshift.MachineAPINamespace,
					"labels": map[string]any{machineRoleLabel: "worker"}},
				"spec": map[string]any{},
				"status": map[string]any{"phase": "Provisioned", "addresses": []any{
					map[string]any{"type": "InternalIP", "address": "10.0.1.19"},
					map[string]any{"type": "InternalDNS", "address": "worker-9"},
				}},
			}},
		},
	}
	f.scenarioExtra = map[string]any{"joiningNodes": []any{map[string]any{"node": "worker-9", "servingCSR": true}}}
	h := newHarness(t, f, Options{}, false)

	requested := h.waitEvent("the kubelet requests its client certificate", func(e Event) bool {
		return e.Actor == "kubelet/worker-9" && e.Reason == "CSRRequested"
	})
	client := h.csrsOf("worker-9", openshift.SignerKubeletClient)
	if len(client) != 1 || client[0].Spec.Username != openshift.NodeBootstrapper || len(client[0].Spec.Groups) != 3 {
		t.Fatalf("client CSRs %+v, want one from the node-bootstrapper (%s)", client, requested)
	}
	if _, err := h.sim.kube.CoreV1().Nodes().Get(h.ctx, "worker-9", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("worker-9 registered before its certificate was issued: %v", err)
	}
	w, err := h.sim.kube.CoreV1().Nodes().Watch(h.ctx, metav1.ListOptions{FieldSelector: "metadata.name=worker-9"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	h.approveCSR(client[0].Name)
	// The node as the kubelet registered it, and its first status.
	for ev := range w.ResultChan() {
		n, ok := ev.Object.(*corev1.Node)
		if !ok {
			t.Fatalf("watching worker-9: %v", ev.Object)
		}
		if c := readyCondition(n); c != nil {
			if c.Status != corev1.ConditionFalse || c.Reason != kubeletNotReadyReason {
				t.Errorf("a freshly registered node: Ready %+v, want False %s", c, kubeletNotReadyReason)
			}
			break
		}
	}
	h.eventually("worker-9 turns Ready", func() (bool, string, error) {
		return nodeReady(h.node("worker-9")), fmt.Sprintf("%+v", readyCondition(h.node("worker-9"))), nil
	})
	var serving []string
	h.eventually("the kubelet requests its serving certificate", func() (bool, string, error) {
		s := h.csrsOf("worker-9", openshift.SignerKubeletServing)
		serving = nil
		for _, c := range s {
			serving = append(serving, c.Name)
		}
		return len(s) == 1, fmt.Sprint(serving), nil
	})
	s := h.csrsOf("worker-9", openshift.SignerKubeletServing)[0]
	if s.Spec.Username != openshift.NodeUserPrefix+"worker-9" || len(s.Status.Conditions) != 0 {
		t.Errorf("serving CSR %s: requestor %s, conditions %+v; want the node's own, pending", s.Name, s.Spec.Username, s.Status.Conditions)
	}
	h.approveCSR(s.Name)
	h.eventually("the serving CSR is issued", func() (bool, string, error) {
		c := h.csrsOf("worker-9", openshift.SignerKubeletServing)[0]
		return len(c.Status.Certificate) > 0, fmt.Sprintf("%+v", c.Status.Conditions), nil
	})
	issued := h.csrsOf("worker-9", openshift.SignerKubeletServing)[0]
	h.issuedBySigningCA(&issued, x509.ExtKeyUsageServerAuth)
	if m := h.machine("lab-worker-q8x2v"); m.Status.NodeRef == nil || m.Status.NodeRef.Name != "worker-9" || m.Status.Phase == nil || *m.Status.Phase != machinePhaseRunning {
		t.Errorf("machine: nodeRef %+v phase %v", m.Status.NodeRef, m.Status.Phase)
	}
}

func readyCondition(n *corev1.Node) *corev1.NodeCondition {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == corev1.NodeReady {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}
