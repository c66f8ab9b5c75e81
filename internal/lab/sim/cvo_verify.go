package sim

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/payload/signature"
)

// unverified is the fake CVO verifying rel before it retrieves its payload,
// when the scenario asks for verification (Scenario.Verification): it reads
// the signature ConfigMaps as library-go's configmap store does (namespace
// openshift-config-managed, label release.openshift.io/verification-signatures,
// binaryData keys with the prefix sha256-<hex>) and checks each signature
// against the scenario's keyring. It returns why the release cannot be
// verified, "" when it can (or when nothing is verified).
func (c *cvo) unverified(ctx context.Context, rel *Release) string {
	v := c.s.scn.Verification
	if v == nil {
		return ""
	}
	_, digest, ok := strings.Cut(rel.Image, "@")
	if !ok {
		return "the release image is not by digest"
	}
	keyring, err := signature.LoadKeyring(filepath.Join(c.s.scn.Dir, v.Keyring))
	if err != nil {
		return "the scenario's keyring: " + err.Error()
	}
	cms, err := c.s.kube.CoreV1().ConfigMaps(openshift.SignaturesNamespace).List(ctx, metav1.ListOptions{LabelSelector: openshift.LabelVerificationSignatures})
	if err != nil {
		return "listing signature config maps: " + err.Error()
	}
	prefix := openshift.SignatureKeyPrefix(digest)
	for _, cm := range cms.Items {
		for k, data := range cm.BinaryData {
			if !strings.HasPrefix(k, prefix) {
				continue
			}
			if _, err := signature.VerifySignature(data, keyring, digest); err == nil {
				return ""
			}
		}
	}
	return fmt.Sprintf("unable to verify %s against keyrings: verifier-public-key-redhat", digest)
}
