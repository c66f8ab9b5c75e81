package sim

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"testing"

	machinev1beta1 "github.com/openshift/api/machine/v1beta1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/openshift-recover/recover/internal/openshift"
)

// csrsOf returns the CSRs whose request names node, by signer.
func (h *harness) csrsOf(node, signer string) []certificatesv1.CertificateSigningRequest {
	h.t.Helper()
	list, err := h.sim.kube.CertificatesV1().CertificateSigningRequests().List(h.ctx, metav1.ListOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	var out []certificatesv1.CertificateSigningRequest
	for _, c := range list.Items {
		if csrFor(&c, node, signer) {
			out = append(out, c)
		}
	}
	return out
}

// approveCSR approves a CSR through the /approval subresource, as `oc adm
// certificate approve` and recover's approve-csr step do.
func (h *harness) approveCSR(name string) {
	h.t.Helper()
	csrs := h.sim.kube.CertificatesV1().CertificateSigningRequests()
	if err := retryConflict(h.ctx, func() error {
		c, err := csrs.Get(h.ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		c.Status.Conditions = append(c.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
			Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "TestApprove", Message: "approved by the test",
		})
		_, err = csrs.UpdateApproval(h.ctx, name, c, metav1.UpdateOptions{})
		return err
	}); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) machine(name string) *machinev1beta1.Machine {
	h.t.Helper()
	u, err := h.sim.dyn.Resource(machineGVR).Namespace(openshift.MachineAPINamespace).Get(h.ctx, name, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	m := &machinev1beta1.Machine{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, m); err != nil {
		h.t.Fatal(err)
	}
	return m
}

// issuedBySigningCA checks that a CSR's certificate verifies against the
// environment's cluster signing CA (the real signing controller issued it).
func (h *harness) issuedBySigningCA(c *certificatesv1.CertificateSigningRequest, usage x509.ExtKeyUsage) {
	h.t.Helper()
	block, _ := pem.Decode(c.Status.Certificate)
	if block == nil {
		h.t.Fatalf("CSR %s: status.certificate is not PEM", c.Name)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		h.t.Fatal(err)
	}
	ca, err := os.ReadFile(h.env.SigningCAPath())
	if err != nil {
		h.t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca)
	if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{usage}}); err != nil {
		h.t.Errorf("CSR %s: certificate %s does not verify against the signing CA: %v", c.Name, cert.Subject, err)
	}
}

func TestExampleCSRPendingKeepsTheNodeOutUntilApproved(t *testing.T) {
	h := exampleHarness(t, "csr-pending")
	client := h.csrsOf("worker-2", openshift.SignerKubeletClient)
	stray := h.csrsOf("localhost", openshift.SignerKubeletClient)
	if len(client) != 1 || len(stray) != 1 {
		t.Fatalf("loaded CSRs: %d for worker-2, %d for localhost; want one each", len(client), len(stray))
	}
	for _, c := range append(client, stray...) {
		// Created as their requestor: the API server records who asked.
		if c.Spec.Username != openshift.NodeBootstrapper || len(c.Spec.Groups) != 3 || len(c.Status.Conditions) != 0 {
			t.Errorf("CSR %s: requestor %s %v, conditions %+v; want the node-bootstrapper's pending request", c.Name, c.Spec.Username, c.Spec.Groups, c.Status.Conditions)
		}
	}
	var machineName string
	list, err := h.sim.dyn.Resource(machineGVR).Namespace(openshift.MachineAPINamespace).List(h.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range list.Items {
		m := &machinev1beta1.Machine{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, m); err != nil {
			t.Fatal(err)
		}
		for _, a := range m.Status.Addresses {
			if a.Type == corev1.NodeInternalDNS && a.Address == "worker-2" {
				machineName = m.Name
				if m.Status.NodeRef != nil || m.Status.Phase == nil || *m.Status.Phase != "Provisioned" {
					t.Errorf("machine %s: nodeRef %v, phase %v; want a Provisioned machine without a node", m.Name, m.Status.NodeRef, m.Status.Phase)
				}
			}
		}
	}
	if machineName == "" {
		t.Fatal("no Machine with InternalDNS worker-2")
	}
	h.start()

	// The wedge holds: no node, both requests pending, the kubelet asks for
	// nothing more while its request is pending.
	h.waitEvent("the kubelets' informers are up", func(e Event) bool { return e.Actor == "cvo" })
	if _, err := h.sim.kube.CoreV1().Nodes().Get(h.ctx, "worker-2", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("worker-2 registered without a client certificate: %v", err)
	}
	if n := len(h.csrsOf("worker-2", openshift.SignerKubeletClient)); n != 1 {
		t.Errorf("worker-2 has %d client CSRs while one is pending, want 1", n)
	}

	// The remedy: approve the vouched request; the signing controller issues
	// it, the kubelet registers the node, which turns Ready, and the Machine
	// gets its nodeRef. The stray request stays pending.
	h.approveCSR(client[0].Name)
	h.eventually("worker-2's CSR is issued", func() (bool, string, error) {
		c := h.csrsOf("worker-2", openshift.SignerKubeletClient)
		return len(c) == 1 && len(c[0].Status.Certificate) > 0, fmt.Sprintf("%+v", c[0].Status.Conditions), nil
	})
	issued := h.csrsOf("worker-2", openshift.SignerKubeletClient)[0]
	h.issuedBySigningCA(&issued, x509.ExtKeyUsageClientAuth)
	h.eventually("worker-2 registers and turns Ready", func() (bool, string, error) {
		n, err := h.sim.kube.CoreV1().Nodes().Get(h.ctx, "worker-2", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, "no node yet", nil
		}
		if err != nil {
			return false, "", err
		}
		return nodeReady(n), fmt.Sprintf("%+v", n.Status.Conditions), nil
	})
	n := h.node("worker-2")
	if n.Annotations[currentConfigAnnotation] != renderedConfigName("worker", "4.4.4") || n.Status.NodeInfo.KubeletVersion != "v1.17.1" || n.Labels["node-role.kubernetes.io/worker"] != "" {
		t.Errorf("worker-2: config %s, kubelet %s, labels %v", n.Annotations[currentConfigAnnotation], n.Status.NodeInfo.KubeletVersion, n.Labels)
	}
	if m := h.machine(machineName); m.Status.NodeRef == nil || m.Status.NodeRef.Name != "worker-2" {
		t.Errorf("machine %s has no nodeRef to worker-2: %+v", machineName, m.Status.NodeRef)
	}
	h.eventually("the worker pool counts worker-2", func() (bool, string, error) {
		p := h.pool("worker")
		return p.Status.MachineCount == 3 && p.Status.UpdatedMachineCount == 3, fmt.Sprintf("%d of %d", p.Status.UpdatedMachineCount, p.Status.MachineCount), nil
	})
	if s := h.csrsOf("localhost", openshift.SignerKubeletClient); len(s) != 1 || len(s[0].Status.Conditions) != 0 || len(s[0].Status.Certificate) != 0 {
		t.Errorf("the unvouched CSR was decided: %+v", s)
	}
	if s := h.csrsOf("worker-2", openshift.SignerKubeletServing); len(s) != 0 {
		t.Errorf("worker-2 asked for a serving certificate without servingCSR: %d", len(s))
	}
}
