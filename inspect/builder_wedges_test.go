package inspect

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/openshift-recover/recover/internal/openshift"
)

// drainWorld is a cluster whose worker-1 drains and master-0 is cordoned: the
// etcd guard PDB, an application PDB, and pods on and off the troubled nodes.
type drainWorld struct {
	nodes []*corev1.Node
	pdbs  []*policyv1.PodDisruptionBudget
	pods  []*corev1.Pod
}

func newDrainWorld() drainWorld {
	var w drainWorld
	for _, n := range []string{"master-0", "master-1", "worker-1", "worker-2"} {
		node := node1(n, strings.TrimRight(n, "-012"), "v1.29.1", "rendered-x")
		w.nodes = append(w.nodes, node)
	}
	w.nodes[0].Spec.Unschedulable = true                                          // master-0: cordoned
	w.nodes[2].Annotations[openshift.AnnotationDesiredDrain] = "drain-rendered-y" // worker-1: draining
	pdb := func(ns, name string, sel map[string]string) *policyv1.PodDisruptionBudget {
		return &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + name)},
			Spec:   policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromInt32(2)), Selector: &metav1.LabelSelector{MatchLabels: sel}},
			Status: policyv1.PodDisruptionBudgetStatus{CurrentHealthy: 2, DesiredHealthy: 2, ExpectedPods: 3}}
	}
	w.pdbs = []*policyv1.PodDisruptionBudget{
		pdb("openshift-etcd", "etcd-guard-pdb", map[string]string{"app": "guard"}),
		pdb("shop", "web", map[string]string{"app": "web"}),
		pdb("shop", "all-tiers", map[string]string{"tier": "front"}),
	}
	pod := func(ns, name, node string, lbl map[string]string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbl},
			Spec:   corev1.PodSpec{NodeName: node},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}
	}
	w.pods = []*corev1.Pod{
		pod("openshift-etcd", "etcd-guard-master-0", "master-0", map[string]string{"app": "guard"}),
		pod("openshift-etcd", "etcd-guard-master-1", "master-1", map[string]string{"app": "guard"}),
		pod("shop", "web-1", "worker-1", map[string]string{"app": "web", "tier": "front"}),
		pod("shop", "web-2", "worker-2", map[string]string{"app": "web", "tier": "front"}),
		pod("shop", "db-1", "worker-1", map[string]string{"app": "db"}),
		pod("other", "web-1", "worker-1", map[string]string{"app": "web"}), // a PDB selects only in its namespace
	}
	w.pods[0].Status.Conditions[0].Status = corev1.ConditionFalse
	return w
}

// build feeds the world in the given order of object groups ("nodes", "pdbs",
// "pods"), shuffling each group, and calls DrainInputsComplete after the groups
// in complete (if any).
func (w drainWorld) build(order []string, seed uint64, complete int) *Snapshot {
	rng := rand.New(rand.NewPCG(seed, 1))
	b := NewBuilder(SourceLive, "test")
	for i, g := range order {
		switch g {
		case "nodes":
			for _, j := range rng.Perm(len(w.nodes)) {
				b.AddNode(w.nodes[j])
			}
		case "pdbs":
			for _, j := range rng.Perm(len(w.pdbs)) {
				b.AddPodDisruptionBudget(w.pdbs[j])
			}
		case "pods":
			for _, j := range rng.Perm(len(w.pods)) {
				b.AddPod(w.pods[j])
				b.AddPod(w.pods[j]) // a second LIST of the same pod changes nothing
			}
		}
		if i+1 == complete {
			b.DrainInputsComplete()
		}
	}
	return b.Finish()
}

func TestBuilderDrainPodsAnyOrder(t *testing.T) {
	w := newDrainWorld()
	want := []DrainPod{
		{Namespace: "openshift-etcd", Name: "etcd-guard-master-0", Node: "master-0", Phase: "Running", PDBs: []string{"openshift-etcd/etcd-guard-pdb"}},
		{Namespace: "shop", Name: "web-1", Node: "worker-1", Phase: "Running", Ready: true, PDBs: []string{"shop/all-tiers", "shop/web"}},
	}
	ref := w.build([]string{"nodes", "pdbs", "pods"}, 1, 0)
	if !reflect.DeepEqual(ref.DrainPods, want) {
		t.Fatalf("drain pods:\n got %+v\nwant %+v", ref.DrainPods, want)
	}
	refJSON, _ := json.Marshal(ref)
	orders := [][]string{{"nodes", "pdbs", "pods"}, {"pods", "nodes", "pdbs"}, {"pods", "pdbs", "nodes"}, {"pdbs", "pods", "nodes"}, {"nodes", "pods", "pdbs"}, {"pdbs", "nodes", "pods"}}
	for seed := uint64(1); seed <= 5; seed++ {
		for _, o := range orders {
			got, _ := json.Marshal(w.build(o, seed, 0))
			if string(got) != string(refJSON) {
				t.Fatalf("order %v seed %d gives another snapshot:\n%s\n%s", o, seed, got, refJSON)
			}
		}
		// A source that says nodes and budgets are complete drops pods at once,
		// with the same result.
		for _, o := range [][]string{{"nodes", "pdbs", "pods"}, {"pdbs", "nodes", "pods"}} {
			got, _ := json.Marshal(w.build(o, seed, 2))
			if string(got) != string(refJSON) {
				t.Fatalf("order %v with DrainInputsComplete gives another snapshot:\n%s\n%s", o, got, refJSON)
			}
		}
	}
	// Guards are recorded on their operator, whatever the order.
	for _, op := range ref.StaticPodOperators {
		if op.Component == "etcd" {
			if len(op.Guards) != 2 || op.Guards[0].Node != "master-0" || op.Guards[0].Ready || !op.Guards[1].Ready {
				t.Fatalf("etcd guards: %+v", op.Guards)
			}
			return
		}
	}
	t.Fatal("no etcd static-pod operator with its guard pods")
}

func TestBuilderDrainPodsNeeded(t *testing.T) {
	w := newDrainWorld()
	b := NewBuilder(SourceLive, "t")
	if b.DrainPodsNeeded() {
		t.Fatal("needed without nodes or budgets")
	}
	for _, n := range w.nodes {
		b.AddNode(n)
	}
	if b.DrainPodsNeeded() {
		t.Fatal("needed without a budget")
	}
	b.AddPodDisruptionBudget(w.pdbs[0])
	if !b.DrainPodsNeeded() {
		t.Fatal("not needed with a draining node and a budget")
	}
	calm := NewBuilder(SourceLive, "t")
	calm.AddNode(node1("worker-3", "worker", "v1.29.1", "x"))
	calm.AddPodDisruptionBudget(w.pdbs[0])
	if calm.DrainPodsNeeded() {
		t.Fatal("needed although no node has drain trouble")
	}
}

func TestBuilderWebhookEndpoints(t *testing.T) {
	vwc := &admissionv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "v"}, Webhooks: []admissionv1.ValidatingWebhook{
		{Name: "a", ClientConfig: admissionv1.WebhookClientConfig{Service: &admissionv1.ServiceReference{Namespace: "hooks", Name: "svc"}}},
		{Name: "b", ClientConfig: admissionv1.WebhookClientConfig{Service: &admissionv1.ServiceReference{Namespace: "hooks", Name: "down"}}},
		{Name: "c", ClientConfig: admissionv1.WebhookClientConfig{URL: ptr.To("https://x.example/")}},
	}}
	slice := func(ns, name, svc string, ready ...bool) *discoveryv1.EndpointSlice {
		s := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{discoveryv1.LabelServiceName: svc}}}
		for _, r := range ready {
			s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{"10.0.0.1"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(r)}})
		}
		return s
	}
	for _, collected := range []bool{true, false} {
		b := NewBuilder(SourceLive, "t")
		// Slices first, one twice, one of another namespace's same-named service.
		b.AddEndpointSlice(slice("hooks", "svc-1", "svc", true, false))
		b.AddEndpointSlice(slice("hooks", "svc-2", "svc", true))
		b.AddEndpointSlice(slice("hooks", "svc-2", "svc", true))
		b.AddEndpointSlice(slice("other", "svc-1", "svc", true, true, true))
		b.AddEndpointSlice(slice("hooks", "down-1", "down", false))
		b.AddValidatingWebhookConfiguration(vwc)
		if got := b.WebhookServices(); !reflect.DeepEqual(got, []string{"hooks/down", "hooks/svc"}) {
			t.Fatalf("webhook services %v", got)
		}
		state := Collected
		if !collected {
			state = Forbidden
		}
		b.Record(ResourceStatus{Resource: ResEndpointSlices.Key(), State: state})
		s := b.Finish()
		ready := map[string]int32{}
		for _, w := range s.Webhooks {
			ready[w.Name] = w.ReadyEndpoints
		}
		if collected {
			if !reflect.DeepEqual(ready, map[string]int32{"a": 2, "b": 0, "c": -1}) ||
				!reflect.DeepEqual(s.ServiceEndpoints, []ServiceEndpoints{{"hooks", "down", 0}, {"hooks", "svc", 2}}) {
				t.Fatalf("ready %v, endpoints %+v", ready, s.ServiceEndpoints)
			}
		} else if !reflect.DeepEqual(ready, map[string]int32{"a": -1, "b": -1, "c": -1}) || s.ServiceEndpoints != nil {
			t.Fatalf("endpoint slices not collected, yet ready %v, endpoints %+v", ready, s.ServiceEndpoints)
		}
	}
}

func TestBuilderKeepsWhatTheFactsSay(t *testing.T) {
	b := NewBuilder(SourceLive, "t")
	for _, c := range []struct {
		name string
		st   certificatesv1.CertificateSigningRequestStatus
	}{
		{"csr-pending", certificatesv1.CertificateSigningRequestStatus{}},
		{"csr-approved", certificatesv1.CertificateSigningRequestStatus{Conditions: []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue}}}},
		{"csr-denied", certificatesv1.CertificateSigningRequestStatus{Conditions: []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateDenied, Status: corev1.ConditionTrue}}}},
	} {
		b.AddCertificateSigningRequest(&certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: c.name}, Status: c.st})
	}
	b.AddConfigMap(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: openshift.AdminGatesNamespace, Name: openshift.AdminGatesConfigMap},
		Data: map[string]string{"ack-4.18-kube-1.32-api-removals-in-4.19": "Kubernetes 1.32 removes APIs"}})
	b.AddConfigMap(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: openshift.AdminAcksNamespace, Name: openshift.AdminAcksConfigMap, UID: "acks-uid"}})
	b.AddConfigMap(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: openshift.AdminAcksNamespace, Name: "other"}, Data: map[string]string{"x": "y"}})
	notAfter := map[string]string{openshift.AnnotationCertNotAfter: "2025-01-01T00:00:00Z"}
	b.AddSecretMetadata(&metav1.ObjectMeta{Namespace: openshift.SignerNamespaces[0], Name: openshift.KubeletSigner, Annotations: notAfter})
	b.AddSecretMetadata(&metav1.ObjectMeta{Namespace: openshift.SignerNamespaces[0], Name: "plain"})
	b.AddSecretMetadata(&metav1.ObjectMeta{Namespace: "user-ns", Name: "cert", Annotations: notAfter})
	b.AddValidatingAdmissionPolicyBinding(&admissionv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "z"},
		Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "p", ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny}}})
	b.AddValidatingAdmissionPolicyBinding(&admissionv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "a"},
		Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "p", ValidationActions: []admissionv1.ValidationAction{admissionv1.Warn}}})
	b.AddValidatingAdmissionPolicyBinding(&admissionv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "orphan"}, Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "gone"}})
	b.AddValidatingAdmissionPolicy(&admissionv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "p"}})
	b.SetStaticPodOperator("etcds", metav1.ObjectMeta{Name: "cluster"}, operatorv1.StaticPodOperatorSpec{ForceRedeploymentReason: "recovery-1"}, operatorv1.StaticPodOperatorStatus{})
	b.SetCloudCredential(&operatorv1.CloudCredential{ObjectMeta: metav1.ObjectMeta{Name: "other"}})
	s := b.Finish()
	if len(s.CertificateSigningRequests) != 1 || s.CertificateSigningRequests[0].Name != "csr-pending" {
		t.Errorf("CSRs: %+v", s.CertificateSigningRequests)
	}
	if g := s.AdminGates; g == nil || len(g.Gates) != 1 || g.Acks == nil || len(g.Acks) != 0 || g.AcksUID != "acks-uid" {
		t.Errorf("admin gates: %+v", s.AdminGates)
	}
	if len(s.Certificates) != 1 || s.Certificates[0].Name != openshift.KubeletSigner {
		t.Errorf("certificates: %+v", s.Certificates)
	}
	if len(s.AdmissionPolicies) != 1 || !reflect.DeepEqual(s.AdmissionPolicies[0].Bindings, []string{"a: Warn", "z: Deny"}) {
		t.Errorf("policies: %+v", s.AdmissionPolicies)
	}
	if op := s.StaticPodOperators[0]; op.Component != "etcd" || op.ForceRedeploymentReason != "recovery-1" {
		t.Errorf("static-pod operator: %+v", op)
	}
	if s.CloudCredential != nil {
		t.Errorf("a CloudCredential not named cluster was kept: %+v", s.CloudCredential)
	}
}

func TestBuilderAdminGatesRecordedButMissing(t *testing.T) {
	b := NewBuilder(SourceLive, "t")
	if s := b.Finish(); s.AdminGates != nil {
		t.Fatalf("admin gates without any record: %+v", s.AdminGates)
	}
	b = NewBuilder(SourceLive, "t")
	b.Record(ResourceStatus{Resource: ResConfigMaps.Key(), Namespace: openshift.AdminGatesNamespace, State: Collected})
	if s := b.Finish(); s.AdminGates == nil || s.AdminGates.Gates != nil {
		t.Fatalf("collected but absent gates: %+v", s.AdminGates)
	}
}

// The objects a remedy patches keep their UIDs, so apply can refuse one that was
// deleted and recreated since the snapshot.
func TestBuilderKeepsTheUIDsRemediesPatch(t *testing.T) {
	b := NewBuilder(SourceLive, "test")
	b.SetClusterVersion(&configv1.ClusterVersion{ObjectMeta: metav1.ObjectMeta{Name: "version", UID: "cv-uid"}})
	b.SetStaticPodOperator("kubeapiservers", metav1.ObjectMeta{Name: "cluster", UID: "kas-uid"}, operatorv1.StaticPodOperatorSpec{}, operatorv1.StaticPodOperatorStatus{})
	s := b.Finish()
	if s.ClusterVersion == nil || s.ClusterVersion.UID != "cv-uid" {
		t.Errorf("ClusterVersion UID not kept: %+v", s.ClusterVersion)
	}
	if op := s.StaticPodOperator("kube-apiserver"); op == nil || op.UID != "kas-uid" {
		t.Errorf("kubeapiservers/cluster UID not kept: %+v", op)
	}
}
