package kubetest_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"os"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

// TestDisruptionControllerGuardsEvictions: the real disruption controller computes
// a PodDisruptionBudget's status, and the Eviction API refuses what it forbids.
func TestDisruptionControllerGuardsEvictions(t *testing.T) {
	kubetest.Require(t, env)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if _, err := env.NewFakeNode(ctx, "kwok-node-0", map[string]string{"node-role.kubernetes.io/worker": ""}); err != nil {
		t.Fatal(err)
	}
	kube := kubernetes.NewForConfigOrDie(env.Config)
	ns := "pdb-test"
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{"app": "guarded"}
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "guarded", Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example/app:1"}}},
			},
		},
	}
	if _, err := kube.AppsV1().Deployments(ns).Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "guarded", Namespace: ns},
		Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromInt32(2)), Selector: &metav1.LabelSelector{MatchLabels: labels}},
	}
	if _, err := kube.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var got *policyv1.PodDisruptionBudget
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		var err error
		if got, err = kube.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "guarded", metav1.GetOptions{}); err != nil {
			return false, err
		}
		return got.Status.ObservedGeneration == got.Generation && got.Status.CurrentHealthy == 2, nil
	})
	if err != nil {
		t.Fatalf("the disruption controller never computed the budget's status (logs in %s): %v; status %+v", env.Dir, err, got.Status)
	}
	if got.Status.DisruptionsAllowed != 0 || got.Status.DesiredHealthy != 2 || got.Status.ExpectedPods != 2 {
		t.Fatalf("budget status %+v, want 0 disruptions allowed, 2 desired healthy of 2", got.Status)
	}
	pods, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil || len(pods.Items) == 0 {
		t.Fatalf("pods: %v (%d)", err, len(pods.Items))
	}
	err = kube.PolicyV1().Evictions(ns).Evict(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: pods.Items[0].Name, Namespace: ns}})
	if !apierrors.IsTooManyRequests(err) || !strings.Contains(err.Error(), "Cannot evict pod as it would violate the pod's disruption budget.") {
		t.Fatalf("evicting a pod the budget protects: %v, want 429 Cannot evict pod as it would violate the pod's disruption budget.", err)
	}
}

// TestCSRSigningControllerIssuesApprovedRequests: an approved kubelet client CSR
// is issued by kube-controller-manager with the environment's signing CA, and a
// pending one stays pending (no approving controller runs).
func TestCSRSigningControllerIssuesApprovedRequests(t *testing.T) {
	kubetest.Require(t, env)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	kube := kubernetes.NewForConfigOrDie(env.Config)
	csrs := kube.CertificatesV1().CertificateSigningRequests()
	create := func(name string) *certificatesv1.CertificateSigningRequest {
		t.Helper()
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "system:node:" + name, Organization: []string{"system:nodes"}}}, key)
		if err != nil {
			t.Fatal(err)
		}
		c, err := csrs.Create(ctx, &certificatesv1.CertificateSigningRequest{
			ObjectMeta: metav1.ObjectMeta{Name: "csr-" + name},
			Spec: certificatesv1.CertificateSigningRequestSpec{
				Request:    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}),
				SignerName: certificatesv1.KubeAPIServerClientKubeletSignerName,
				Usages:     []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageClientAuth},
			},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	approved, pending := create("signed-node"), create("pending-node")
	approved.Status.Conditions = append(approved.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
		Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "KubetestApprove", Message: "approved by the test",
	})
	if _, err := csrs.UpdateApproval(ctx, approved.Name, approved, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	var issued *certificatesv1.CertificateSigningRequest
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		var err error
		issued, err = csrs.Get(ctx, approved.Name, metav1.GetOptions{})
		return err == nil && len(issued.Status.Certificate) > 0, err
	})
	if err != nil {
		t.Fatalf("the approved CSR was never issued (logs in %s): %v", env.Dir, err)
	}
	block, _ := pem.Decode(issued.Status.Certificate)
	if block == nil {
		t.Fatalf("status.certificate is not PEM: %q", issued.Status.Certificate)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	caPEM, err := os.ReadFile(env.SigningCAPath())
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil || cert.Subject.CommonName != "system:node:signed-node" {
		t.Fatalf("issued certificate %s does not verify against the signing CA: %v", cert.Subject, err)
	}
	if p, err := csrs.Get(ctx, pending.Name, metav1.GetOptions{}); err != nil || len(p.Status.Conditions) != 0 || len(p.Status.Certificate) != 0 {
		t.Fatalf("the unapproved CSR was decided or issued: %v %+v", err, p.Status)
	}
}
