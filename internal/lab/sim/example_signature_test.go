package sim

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/internal/openshift"
)

const (
	unverifiedDigest = "sha256:604d8ea695dd6e18c934f5a0b079b7f21d5c18e6d57a4e5947cccd25dfb4a448"
	unverifiedImage  = "quay.io/openshift-release-dev/ocp-release@" + unverifiedDigest
)

// TestExampleReleaseNotAcceptedUntilASignatureVerifies: the CVO of the
// release-not-accepted example refuses 4.15.31 because it cannot verify it; a
// signature ConfigMap whose signature does not verify against the scenario's
// keyring changes nothing; one with the example's signature makes it accept
// and complete 4.15.31 (spec.desiredUpdate.force stays false).
func TestExampleReleaseNotAcceptedUntilASignatureVerifies(t *testing.T) {
	h := exampleHarness(t, "release-not-accepted")
	h.start()
	cannotVerify := func(what string) {
		h.eventually(what, func() (bool, string, error) {
			cv := h.clusterVersion()
			c := findCondition(cv.Status.Conditions, "ReleaseAccepted")
			return c != nil && c.Status == configv1.ConditionFalse && c.Reason == "RetrievePayload" && strings.Contains(c.Message, "The update cannot be verified") &&
				cv.Status.Desired.Version == "4.15.30", fmt.Sprintf("%+v, desired %s", c, cv.Status.Desired.Version), nil
		})
	}
	cannotVerify("the CVO refuses 4.15.31: it cannot verify it")

	prefix := openshift.SignatureKeyPrefix(unverifiedDigest)
	put := func(name string, sig []byte) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: openshift.SignaturesNamespace,
			Labels: map[string]string{openshift.LabelVerificationSignatures: ""}}, BinaryData: map[string][]byte{prefix + "-1": sig}}
		if _, err := h.sim.kube.CoreV1().ConfigMaps(openshift.SignaturesNamespace).Create(h.ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	put("not-a-signature", []byte("-----BEGIN PGP MESSAGE-----\nbogus\n-----END PGP MESSAGE-----\n"))
	cannotVerify("a signature that does not verify changes nothing")

	sig, err := os.ReadFile(filepath.Join(h.sim.scn.Dir, "signature", "signature-1"))
	if err != nil {
		t.Fatal(err)
	}
	put(prefix, sig)
	h.eventually("the CVO verifies 4.15.31 and completes it", func() (bool, string, error) {
		cv := h.clusterVersion()
		c := findCondition(cv.Status.Conditions, "ReleaseAccepted")
		h0 := cv.Status.History[0]
		return c != nil && c.Status == configv1.ConditionTrue && cv.Status.Desired.Image == unverifiedImage && h0.Version == "4.15.31" && h0.State == configv1.CompletedUpdate,
			fmt.Sprintf("ReleaseAccepted %+v, desired %s, history[0] %s %s", c, cv.Status.Desired.Version, h0.Version, h0.State), nil
	})
	if du := h.clusterVersion().Spec.DesiredUpdate; du == nil || du.Force {
		t.Errorf("spec.desiredUpdate %+v: force must stay false", du)
	}
}
