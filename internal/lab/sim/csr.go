package sim

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"net"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/internal/openshift"
)

// nodeBootstrapperGroups are the groups of the node-bootstrapper service
// account's token, exactly the set the machine approver requires.
var nodeBootstrapperGroups = []string{"system:serviceaccounts", "system:serviceaccounts:" + openshift.MachineConfigDaemonNamespace, "system:authenticated"}

// newCSRRequest returns a PEM PKCS#10 request with a fresh ECDSA P-256 key (what
// a kubelet generates) for the subject and alternative names.
func newCSRRequest(cn string, orgs, dns []string, ips []net.IP) ([]byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{
		Subject:     pkix.Name{CommonName: cn, Organization: orgs},
		DNSNames:    dns,
		IPAddresses: ips,
	}, key)
	if err != nil {
		return nil, fmt.Errorf("creating a certificate request for %s: %w", cn, err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}), nil
}

// kubeletClientCSR is the CSR a bootstrapping kubelet creates for its client
// certificate: CN system:node:<node>, O system:nodes, signer
// kube-apiserver-client-kubelet, requested with the node-bootstrapper token.
func kubeletClientCSR(node string) (*certificatesv1.CertificateSigningRequest, error) {
	req, err := newCSRRequest(openshift.NodeUserPrefix+node, []string{openshift.NodesGroup}, nil, nil)
	if err != nil {
		return nil, err
	}
	return &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "csr-"},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request:    req,
			SignerName: openshift.SignerKubeletClient,
			Usages:     []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageClientAuth},
			Username:   openshift.NodeBootstrapper,
			Groups:     nodeBootstrapperGroups,
		},
	}, nil
}

// kubeletServingCSR is the CSR a registered kubelet creates for its serving
// certificate, naming its addresses, requested as the node itself.
func kubeletServingCSR(node string, dns []string, ips []net.IP) (*certificatesv1.CertificateSigningRequest, error) {
	req, err := newCSRRequest(openshift.NodeUserPrefix+node, []string{openshift.NodesGroup}, dns, ips)
	if err != nil {
		return nil, err
	}
	return &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "csr-"},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request:    req,
			SignerName: openshift.SignerKubeletServing,
			Usages:     []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageServerAuth},
			Username:   openshift.NodeUserPrefix + node,
			Groups:     []string{openshift.NodesGroup, "system:authenticated"},
		},
	}, nil
}

// csrSubject returns the common name of a CSR's request ("" when unreadable).
func csrSubject(csr *certificatesv1.CertificateSigningRequest) string {
	block, _ := pem.Decode(csr.Spec.Request)
	if block == nil {
		return ""
	}
	req, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		return ""
	}
	return req.Subject.CommonName
}

// csrDecided reports whether a CSR was denied or failed: a kubelet asks again.
func csrDecided(csr *certificatesv1.CertificateSigningRequest) bool {
	for _, c := range csr.Status.Conditions {
		if c.Type == certificatesv1.CertificateDenied || c.Type == certificatesv1.CertificateFailed {
			return true
		}
	}
	return false
}

// csrFor reports whether csr is node's request for signer.
func csrFor(csr *certificatesv1.CertificateSigningRequest, node, signer string) bool {
	return csr.Spec.SignerName == signer && strings.EqualFold(csrSubject(csr), openshift.NodeUserPrefix+node)
}
