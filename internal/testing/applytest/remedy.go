package applytest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The remediation steps of plan formatVersion 1.1, built by hand.

// Change adds a remediation step of action that merge-patches obj (patch is
// JSON; fields are the dotted paths it sets, a key with dots written as one
// segment by the caller through fieldsOf).
func (b *Builder) Change(action planfile.Action, obj planfile.ObjectRef, uid, patch string, fields [][]string, gate *planfile.Gate) *Builder {
	return b.add(planfile.Step{ID: string(action) + "-" + obj.Name, Action: action, Remedy: string(action),
		Change: &planfile.Change{Object: obj, UID: uid, Patch: json.RawMessage(patch), Fields: fields}, Gate: gate})
}

// RelaxPDB adds a relax-pdb step of the PodDisruptionBudget ns/name, built
// as the planner builds it (plan.RelaxPDBChange: minAvailable 0,
// maxUnavailable dropped; the budget taken as minAvailable 1), gated on gate
// (typically nodes-settled). Pair it with Revert.
func (b *Builder) RelaxPDB(ns, name, uid string, gate *planfile.Gate) *Builder {
	b.add(planfile.Step{ID: string(planfile.ActionRelaxPDB) + "-" + name, Action: planfile.ActionRelaxPDB,
		Remedy: planfile.RemedyRelaxPDB, Finding: "DrainBlockedByPDB", Change: planfile.RelaxPDBChange(ns, name, uid, "1", ""), Gate: gate})
	return b
}

// Revert adds the revert step of the step whose ID is of (LastID after it was
// added), gated on the object being restored, and marks that step temporary.
func (b *Builder) Revert(of string) *Builder {
	var target *planfile.Step
	for i := range b.p.Steps {
		if b.p.Steps[i].ID == of {
			target = &b.p.Steps[i]
		}
	}
	if target == nil {
		panic("applytest: Revert of an unknown step " + of)
	}
	b.add(planfile.Step{ID: "revert-" + target.Change.Object.Name, Action: planfile.ActionRevert, Reverts: of, Remedy: target.Remedy,
		Gate: &planfile.Gate{Kind: planfile.GateRestored, Description: "the object carries its journaled pre-image again"}})
	for i := range b.p.Steps {
		if b.p.Steps[i].ID == of {
			b.p.Steps[i].RevertedBy = b.LastID()
		}
	}
	return b
}

// ApproveCSR adds an approve-csr step gated on the certificate being issued.
func (b *Builder) ApproveCSR(c planfile.CSRApproval) *Builder {
	return b.add(planfile.Step{ID: "approve-csr-" + c.Name, Action: planfile.ActionApproveCSR, Remedy: planfile.RemedyApproveCSR, Finding: "CSRPending", CSR: &c,
		Gate: &planfile.Gate{Kind: planfile.GateCSRIssued, Object: &planfile.ObjectRef{APIVersion: "certificates.k8s.io/v1", Kind: "CertificateSigningRequest", Name: c.Name}}})
}

// LastID is the ID of the step added last.
func (b *Builder) LastID() string { return b.p.Steps[len(b.p.Steps)-1].ID }

// PDBRef names a PodDisruptionBudget.
func PDBRef(ns, name string) planfile.ObjectRef {
	return planfile.ObjectRef{APIVersion: "policy/v1", Kind: "PodDisruptionBudget", Namespace: ns, Name: name}
}

// NodesSettled is the gate a relaxed PDB waits for.
func NodesSettled(nodes ...string) *planfile.Gate {
	return &planfile.Gate{Kind: planfile.GateNodesSettled, Nodes: nodes, Description: "the drained nodes settled"}
}

// NodeCSR builds a certificate signing request as a kubelet makes it, with a
// real PKCS#10 request: CN system:node:<node>, organization system:nodes, the
// given DNS names and IPs (serving requests carry them; client requests none).
func NodeCSR(name, node, signer, username string, groups, dnsNames []string, ips []net.IP) *certificatesv1.CertificateSigningRequest {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{
		Subject:  pkix.Name{CommonName: openshift.NodeUserPrefix + node, Organization: []string{openshift.NodesGroup}},
		DNSNames: dnsNames, IPAddresses: ips,
	}, key)
	if err != nil {
		panic(fmt.Sprintf("applytest: CSR: %v", err))
	}
	usages := []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageClientAuth}
	if signer == openshift.SignerKubeletServing {
		usages = []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageServerAuth}
	}
	return &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request:    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}),
			SignerName: signer,
			Usages:     usages,
			Username:   username,
			Groups:     groups,
		},
	}
}

// CreateCSRAs creates a certificate signing request as user (impersonated: the
// API server records the requestor from who creates it, as for a kubelet), after
// granting the requestors the node-bootstrapper role.
func (c *Cluster) CreateCSRAs(ctx context.Context, csr *certificatesv1.CertificateSigningRequest, user string, groups []string) (*certificatesv1.CertificateSigningRequest, error) {
	crb := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "applytest-csr-requesters"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "system:node-bootstrapper"},
		Subjects: []rbacv1.Subject{
			{Kind: "Group", APIGroup: "rbac.authorization.k8s.io", Name: openshift.NodesGroup},
			{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: openshift.NodeBootstrapper},
		},
	}
	if _, err := c.Kube.RbacV1().ClusterRoleBindings().Create(ctx, crb, metav1.CreateOptions{}); ignoreExists(err) != nil {
		return nil, err
	}
	cfg := rest.CopyConfig(c.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: append([]string{"system:authenticated"}, groups...)}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	var out *certificatesv1.CertificateSigningRequest
	// The binding may take a moment to reach the authorizer's cache.
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		var err error
		out, err = kube.CertificatesV1().CertificateSigningRequests().Create(ctx, csr, metav1.CreateOptions{})
		if apierrors.IsForbidden(err) {
			return false, nil
		}
		return err == nil, err
	})
	return out, err
}

// IssueCSR plays the signer: an approved request gets a certificate.
func (c *Cluster) IssueCSR(ctx context.Context, name string) error {
	csrs := c.Kube.CertificatesV1().CertificateSigningRequests()
	csr, err := csrs.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if len(csr.Status.Certificate) > 0 {
		// Issued already (a gate may report waiting again before it sees
		// the certificate): a signer issues once, and the API server refuses
		// to change a certificate.
		return nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name}, NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return err
	}
	csr.Status.Certificate = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	_, err = csrs.UpdateStatus(ctx, csr, metav1.UpdateOptions{})
	return err
}

// SetDrain plays the machine-config daemon and drain controller on a master:
// the node's desiredDrain and lastAppliedDrain annotations and its daemon state
// (its current and desired configuration are set equal). Empty values remove
// the annotation.
func (c *Cluster) SetDrain(ctx context.Context, node, desired, lastApplied, state string) error {
	set := func(v string) any {
		if v == "" {
			return nil
		}
		return v
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{
		openshift.AnnotationDesiredDrain:     set(desired),
		openshift.AnnotationLastAppliedDrain: set(lastApplied),
		openshift.AnnotationMCDState:         set(state),
		openshift.AnnotationCurrentConfig:    set(map[bool]string{true: "rendered-master-1"}[state != ""]),
		openshift.AnnotationDesiredConfig:    set(map[bool]string{true: "rendered-master-1"}[state != ""]),
	}}})
	_, err := c.Kube.CoreV1().Nodes().Patch(ctx, node, "application/merge-patch+json", patch, metav1.PatchOptions{})
	return err
}

var machinesGVR = schema.GroupVersionResource{Group: "machine.openshift.io", Version: "v1beta1", Resource: "machines"}

// CreateMachine creates a machine-api Machine in openshift-machine-api whose
// status has the InternalDNS address dns and, when nodeRef is not empty, the
// node it became; it is deleted at the end of the test.
func (c *Cluster) CreateMachine(t testing.TB, ctx context.Context, name, dns, nodeRef string) {
	t.Helper()
	if _, err := c.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: openshift.MachineAPINamespace}}, metav1.CreateOptions{}); ignoreExists(err) != nil {
		t.Fatal(err)
	}
	client := dynamic.NewForConfigOrDie(c.Config).Resource(machinesGVR).Namespace(openshift.MachineAPINamespace)
	m := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "machine.openshift.io/v1beta1", "kind": "Machine",
		"metadata": map[string]any{"name": name, "namespace": openshift.MachineAPINamespace},
		"spec":     map[string]any{},
	}}
	created, err := client.Create(ctx, m, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	status := map[string]any{"addresses": []any{map[string]any{"type": "InternalDNS", "address": dns}}}
	if nodeRef != "" {
		status["nodeRef"] = map[string]any{"kind": "Node", "name": nodeRef}
	}
	created.Object["status"] = status
	if _, err := client.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}
