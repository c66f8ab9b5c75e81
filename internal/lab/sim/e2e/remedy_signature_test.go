package e2e_test

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/nextcmd"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The signature remedy on examples/release-not-accepted: 4.15.30 asked for
// 4.15.31, which the CVO cannot verify (no signature it trusts).

const (
	unsignedDigest = "sha256:604d8ea695dd6e18c934f5a0b079b7f21d5c18e6d57a4e5947cccd25dfb4a448"
	unsignedImage  = "quay.io/openshift-release-dev/ocp-release@" + unsignedDigest
)

// TestRemedyReleaseSignature is the signature remedy end to end, without
// --force: recover inspect finds ReleaseNotAccepted class signature; recover
// plan with the example's keyring and a signature that does not verify refuses
// with one line (exit 4) and writes nothing; with the example's signature it
// plans the signature ConfigMap and a release-accepted wait after restore-cvo;
// recover apply --yes completes, the ConfigMap holds the signature as the CVO
// reads it, the simulated CVO verifies and accepts 4.15.31 with force false,
// and recover wrote the ConfigMap and the CVO's replicas only.
func TestRemedyReleaseSignature(t *testing.T) {
	t.Parallel()
	c := load(t, "release-not-accepted")
	snap, _ := c.inspectCLI()
	found := false
	for _, f := range snap.FindingsWithCode(inspect.CodeReleaseNotAccepted) {
		found = found || f.Details["class"] == inspect.ReleaseClassSignature && f.Details["image"] == unsignedImage
	}
	if !found {
		t.Fatalf("inspect does not find the unverified release: %v", findingCodes(snap))
	}

	keyring := filepath.Join(c.root, "examples", "release-not-accepted", "signature", "release-keyring.asc")
	good := filepath.Join(c.root, "examples", "release-not-accepted", "signature", "signature-1")
	bad := filepath.Join(c.dir, "signature-bad")
	if err := os.WriteFile(bad, []byte("-----BEGIN PGP MESSAGE-----\nbogus\n-----END PGP MESSAGE-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	audit, kc := c.auditProxy("plan", nil)
	refused := c.recoverVia(kc, "plan", "-o", "json", "--release-keyring", keyring, "--release-signature", bad)
	if refused.code != 4 || refused.stdout != "" || strings.Count(strings.TrimSpace(refused.stderr), "\n") != 0 || !strings.Contains(refused.stderr, "not supplying a signature") {
		t.Fatalf("recover plan with a signature that does not verify: %s; want exit 4, one line, no plan", refused)
	}
	if w := writes(audit.Log()); len(w) != 0 {
		t.Errorf("recover plan wrote to the cluster: %v", w)
	}

	p, path := c.planCLI("--release-keyring", keyring, "--release-signature", good)
	shape := stepShape(p)
	create := slices.Index(shape, string(planfile.ActionCreateReleaseSignature))
	accepted := slices.Index(shape, "wait:"+string(planfile.GateReleaseAccepted))
	if p.Mode != planfile.ModeRemediation || create < 0 || accepted < create {
		t.Fatalf("the plan (%s) is %v, want create-release-signature, then a release-accepted wait", p.Mode, shape)
	}
	cvoKeepsTheWheel(t, p)

	audit, journalPath := c.applyAudited(p, path)

	kube := kubernetes.NewForConfigOrDie(c.cfg)
	name := openshift.SignatureKeyPrefix(unsignedDigest)
	cm, err := kube.CoreV1().ConfigMaps(openshift.SignaturesNamespace).Get(c.ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sig, _ := os.ReadFile(good)
	if _, ok := cm.Labels[openshift.LabelVerificationSignatures]; !ok || base64.StdEncoding.EncodeToString(cm.BinaryData[name+"-1"]) != base64.StdEncoding.EncodeToString(sig) {
		t.Errorf("the signature ConfigMap: labels %v, keys %d", cm.Labels, len(cm.BinaryData))
	}
	config := configclient.NewForConfigOrDie(c.cfg)
	c.eventually("the CVO accepts 4.15.31 without force", func() (bool, string, error) {
		cv, err := config.ConfigV1().ClusterVersions().Get(c.ctx, openshift.ClusterVersionName, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		var ra *configv1.ClusterOperatorStatusCondition
		for i := range cv.Status.Conditions {
			if cv.Status.Conditions[i].Type == "ReleaseAccepted" {
				ra = &cv.Status.Conditions[i]
			}
		}
		ok := ra != nil && ra.Status == configv1.ConditionTrue && cv.Status.Desired.Image == unsignedImage && cv.Spec.DesiredUpdate != nil && !cv.Spec.DesiredUpdate.Force
		return ok, fmt.Sprintf("ReleaseAccepted %+v, desired %s", ra, cv.Status.Desired.Version), nil
	})
	sigPath := objectPath("/api/v1/namespaces/" + openshift.SignaturesNamespace + "/configmaps")
	for p := range written(audit.Log()) {
		if p != cvoDeployment && p != sigPath && p != sigPath+objectPath("/"+name) {
			t.Errorf("recover wrote %s, which the signature remedy has no reason to change", p)
		}
	}

	// The create is journaled like a create-only manifest (intent, then
	// outcome); recover journal lists the ConfigMap among the run's lasting
	// changes, with the command that removes it (it used to list only
	// pre-image patches and CSR approvals).
	s := c.journalCLI(journalPath)
	if s.State != "finished" {
		t.Fatalf("recover journal: state %s", s.State)
	}
	remove := nextcmd.Delete("configmap/"+name, openshift.SignaturesNamespace)
	var listed bool
	for _, ch := range s.Changes {
		if ch.Action != string(planfile.ActionCreateReleaseSignature) {
			continue
		}
		listed = ch.Created && ch.State == "made" && !ch.Temporary && ch.Remove == remove && ch.Object != nil &&
			ch.Object.Kind == "ConfigMap" && ch.Object.Namespace == openshift.SignaturesNamespace && ch.Object.Name == name
		if !listed {
			t.Errorf("recover journal lists the signature ConfigMap as %+v", ch)
		}
	}
	if !listed {
		t.Errorf("recover journal does not list the signature ConfigMap among the changes: %+v", s.Changes)
	}
	if table := c.recover("journal", journalPath); table.code != 0 || !strings.Contains(table.stdout, "ConfigMap "+openshift.SignaturesNamespace+"/"+name) || !strings.Contains(table.stdout, remove) {
		t.Errorf("recover journal's table does not show the created ConfigMap and how to remove it: %s", table)
	}
}
