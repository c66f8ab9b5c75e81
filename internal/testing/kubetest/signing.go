package kubetest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"time"
)

// The cluster signing CA kube-controller-manager's CSR signing controller issues
// certificates with (--cluster-signing-cert-file / --cluster-signing-key-file),
// for every kubernetes.io signer: kubelet client and serving certificates among
// them. Its files sit in the environment's directory.
const (
	SigningCertFile = "cluster-signing-ca.crt"
	SigningKeyFile  = "cluster-signing-ca.key"
)

// SigningCAPath returns the path of the cluster signing CA certificate (PEM), to
// verify the certificates the API server's CSRs were issued with.
func (e *Env) SigningCAPath() string { return filepath.Join(e.Dir, SigningCertFile) }

// SigningKeyPath returns the path of the cluster signing CA's key (PEM): what a
// simulated kubelet signs its serving certificate with, so that the API server,
// which trusts that CA for kubelets, reaches it for pods/log.
func (e *Env) SigningKeyPath() string { return filepath.Join(e.Dir, SigningKeyFile) }

// writeSigningCA generates a self-signed ECDSA CA valid for a day and writes its
// certificate and key into dir.
func writeSigningCA(dir string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "kubetest-cluster-signing-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return fmt.Errorf("creating the cluster signing CA: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, SigningCertFile), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, SigningKeyFile), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600)
}
