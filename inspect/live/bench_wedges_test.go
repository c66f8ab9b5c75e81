package live

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	machinev1beta1 "github.com/openshift/api/machine/v1beta1"
	machineclient "github.com/openshift/client-go/machine/clientset/versioned"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

// The wedges of the benchmark cluster.
const (
	benchPDBs         = 50 // one application namespace each
	benchPodsPerPDB   = 2  // on draining nodes
	benchFillerPods   = 1900
	benchDrainingNode = 20
	benchCSRs         = 100
	benchWebhooks     = 10
)

// parallel runs fn(i) for i in [0, n) on 8 workers and fails on the first error.
func parallel(b *testing.B, n int, fn func(i int) error) {
	b.Helper()
	work := make(chan int)
	var wg sync.WaitGroup
	var failed atomic.Value
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if err := fn(i); err != nil {
					failed.Store(err)
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
}

// seedWedges adds the wedge facts to a synthetic cluster of nodes: 20 draining
// workers, 50 PDBs at their limit each guarding 2 running pods on them, 1,900
// other pods, 100 pending kubelet CSRs, a Machine per node, 10 webhooks whose
// services have endpoint slices, signer Secrets and the admin gates.
func seedWedges(b *testing.B, cfg *rest.Config, nodes int) {
	b.Helper()
	ctx := context.Background()
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandler = rest.NoWarnings{}
	kube := kubernetes.NewForConfigOrDie(cfg)
	must := func(err error) {
		if err != nil && !apierrors.IsAlreadyExists(err) {
			b.Fatal(err)
		}
	}
	namespace := func(ns string) {
		_, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		must(err)
		_, err = kube.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}}, metav1.CreateOptions{})
		must(err)
	}
	draining := make([]string, benchDrainingNode)
	for i := range draining {
		draining[i] = syntheticNode(3 + i).Name
		patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:"drain-rendered-worker-new"}},"spec":{"unschedulable":true}}`, openshift.AnnotationDesiredDrain)
		_, err := kube.CoreV1().Nodes().Patch(ctx, draining[i], types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		must(err)
	}
	pod := func(ns, name, node string, labels map[string]string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: ns + "-rs", UID: "rs-uid", Controller: ptr.To(true)}}},
			Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "app", Image: "registry.example.com/app@sha256:" + fmt.Sprintf("%064d", 1),
				Env: []corev1.EnvVar{{Name: "MODE", Value: "production"}}, Resources: corev1.ResourceRequirements{}}}}}
	}
	for i := 0; i < benchPDBs; i++ {
		ns := fmt.Sprintf("app-%02d", i)
		namespace(ns)
		pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app"},
			Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromInt32(benchPodsPerPDB)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": ns}}}}
		created, err := kube.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, pdb, metav1.CreateOptions{})
		must(err)
		created.Status = policyv1.PodDisruptionBudgetStatus{CurrentHealthy: benchPodsPerPDB, DesiredHealthy: benchPodsPerPDB, ExpectedPods: benchPodsPerPDB}
		_, err = kube.PolicyV1().PodDisruptionBudgets(ns).UpdateStatus(ctx, created, metav1.UpdateOptions{})
		must(err)
	}
	parallel(b, benchPDBs*benchPodsPerPDB, func(i int) error {
		ns := fmt.Sprintf("app-%02d", i/benchPodsPerPDB)
		p, err := kube.CoreV1().Pods(ns).Create(ctx, pod(ns, fmt.Sprintf("app-%d", i%benchPodsPerPDB), draining[i%len(draining)], map[string]string{"app": ns}), metav1.CreateOptions{})
		if err != nil {
			return err
		}
		p.Status.Phase = corev1.PodRunning
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		_, err = kube.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{})
		return err
	})
	namespace("filler")
	parallel(b, benchFillerPods, func(i int) error {
		_, err := kube.CoreV1().Pods("filler").Create(ctx, pod("filler", fmt.Sprintf("filler-%04d", i), syntheticNode(i%nodes).Name, map[string]string{"app": "filler"}), metav1.CreateOptions{})
		return err
	})

	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	parallel(b, benchCSRs, func(i int) error {
		node := syntheticNode(3 + i%(nodes-3)).Name
		der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: openshift.NodeUserPrefix + node, Organization: []string{openshift.NodesGroup}},
			DNSNames: []string{node}}, key)
		if err != nil {
			return err
		}
		csr := &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("csr-%03d", i)}, Spec: certificatesv1.CertificateSigningRequestSpec{
			SignerName: openshift.SignerKubeletServing, Request: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}),
			Usages: []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageServerAuth}}}
		_, err = kube.CertificatesV1().CertificateSigningRequests().Create(ctx, csr, metav1.CreateOptions{})
		return err
	})

	namespace(openshift.MachineAPINamespace)
	machines := machineclient.NewForConfigOrDie(cfg).MachineV1beta1().Machines(openshift.MachineAPINamespace)
	parallel(b, nodes, func(i int) error {
		node := syntheticNode(i).Name
		m, err := machines.Create(ctx, &machinev1beta1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "machine-" + node, Namespace: openshift.MachineAPINamespace}}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		m.Status = machinev1beta1.MachineStatus{Phase: ptr.To("Running"), NodeRef: &corev1.ObjectReference{Kind: "Node", Name: node},
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("10.0.%d.%d", i/250, i%250)}, {Type: corev1.NodeInternalDNS, Address: node}}}
		_, err = machines.UpdateStatus(ctx, m, metav1.UpdateOptions{})
		return err
	})

	for _, ns := range openshift.SignerNamespaces {
		namespace(ns)
		for j := 0; j < 10; j++ {
			_, err := kube.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("signer-%d", j),
				Annotations: map[string]string{openshift.AnnotationCertNotAfter: "2030-01-01T00:00:00Z"}},
				Data: map[string][]byte{"tls.crt": make([]byte, 1500), "tls.key": make([]byte, 250)}}, metav1.CreateOptions{})
			must(err)
		}
	}
	for ns, name := range map[string]string{openshift.AdminGatesNamespace: openshift.AdminGatesConfigMap, openshift.AdminAcksNamespace: openshift.AdminAcksConfigMap} {
		namespace(ns)
		_, err := kube.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Data: map[string]string{"ack-4.18-kube-1.32-api-removals-in-4.19": "true"}}, metav1.CreateOptions{})
		must(err)
	}

	namespace("hooks")
	for i := 0; i < benchWebhooks; i++ {
		svc := fmt.Sprintf("hook-%d", i)
		slice := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "hooks", Name: svc + "-abcde", Labels: map[string]string{discoveryv1.LabelServiceName: svc}},
			AddressType: discoveryv1.AddressTypeIPv4}
		for e := 0; e < 3; e++ {
			slice.Endpoints = append(slice.Endpoints, discoveryv1.Endpoint{Addresses: []string{fmt.Sprintf("10.128.%d.%d", i, e)}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(e > 0)}})
		}
		_, err := kube.DiscoveryV1().EndpointSlices("hooks").Create(ctx, slice, metav1.CreateOptions{})
		must(err)
		// The webhooks intercept a kind nobody writes, so the seeding and the
		// benchmark never call them.
		vwc := &admissionv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: svc}, Webhooks: []admissionv1.ValidatingWebhook{{
			Name: svc + ".example.com", SideEffects: ptr.To(admissionv1.SideEffectClassNone), AdmissionReviewVersions: []string{"v1"},
			ClientConfig: admissionv1.WebhookClientConfig{Service: &admissionv1.ServiceReference{Namespace: "hooks", Name: svc}},
			Rules:        []admissionv1.RuleWithOperations{{Operations: []admissionv1.OperationType{admissionv1.Create}, Rule: admissionv1.Rule{APIGroups: []string{"example.com"}, APIVersions: []string{"v1"}, Resources: []string{"widgets"}}}},
		}}}
		_, err = kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, vwc, metav1.CreateOptions{})
		must(err)
	}
}

// BenchmarkLiveInspectWedges inspects a 500-node synthetic cluster with the wedge
// facts present (50 PDBs at their limit with 100 guarded pods on 20 draining
// nodes and 1,900 other pods, 100 pending CSRs, 500 Machines, 10 webhooks with
// endpoint slices, signer Secrets), beside a kubectl-equivalent sequential JSON
// LIST of the same resources (pods -A, secrets whole). It reports requests and
// the peak live heap of one run.
func BenchmarkLiveInspectWedges(b *testing.B) {
	kubetest.Require(b, env)
	fresh, err := env.Fresh()
	if err != nil {
		b.Fatal(err)
	}
	defer fresh.Stop()
	seedSynthetic(b, fresh.Config, 500)
	seedWedges(b, fresh.Config, 500)
	measure := func(b *testing.B, run func() error) {
		var peak uint64
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			runtime.GC()
			stop, done := make(chan struct{}), make(chan uint64)
			go samplePeakHeap(stop, done)
			err := run()
			close(stop)
			if p := <-done; p > peak {
				peak = p
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	}
	b.Run("recover", func(b *testing.B) {
		cfg, count := countingConfig(fresh.Config)
		src, err := New(cfg, Options{})
		if err != nil {
			b.Fatal(err)
		}
		measure(b, func() error {
			s, err := src.Collect(context.Background())
			if err != nil {
				return err
			}
			if len(s.Nodes) != 500 || len(s.DrainPods) != benchPDBs*benchPodsPerPDB || len(s.CertificateSigningRequests) != benchCSRs ||
				len(s.Machines) != 500 || len(s.Webhooks) != benchWebhooks || len(s.ServiceEndpoints) != benchWebhooks || s.Webhooks[0].ReadyEndpoints != 2 {
				return fmt.Errorf("collected %d nodes, %d drain pods, %d CSRs, %d machines, %d webhooks, %d service endpoints",
					len(s.Nodes), len(s.DrainPods), len(s.CertificateSigningRequests), len(s.Machines), len(s.Webhooks), len(s.ServiceEndpoints))
			}
			return nil
		})
		b.ReportMetric(float64(count.Load())/float64(b.N), "requests/op")
	})
	b.Run("kubectl-get-json", func(b *testing.B) {
		cfg, count := countingConfig(fresh.Config)
		cfg.QPS, cfg.Burst = 50, 100
		dyn := dynamic.NewForConfigOrDie(cfg)
		measure(b, func() error { return kubectlGet(context.Background(), dyn, wedgeTargets()) })
		b.ReportMetric(float64(count.Load())/float64(b.N), "requests/op")
	})
}
