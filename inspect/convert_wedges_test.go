package inspect

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	apiserverv1 "github.com/openshift/api/apiserver/v1"
	machinev1beta1 "github.com/openshift/api/machine/v1beta1"
	operatorv1 "github.com/openshift/api/operator/v1"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/openshift-recover/recover/internal/openshift"
)

func TestPodDisruptionBudgetFromAPI(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec policyv1.PodDisruptionBudgetSpec
		want PodDisruptionBudget
	}{
		{"guard pdb", policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromInt32(2)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "guard"}}},
			PodDisruptionBudget{MinAvailable: "2", Selector: "app=guard"}},
		{"percent and expressions", policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptr.To(intstr.FromString("10%")),
			Selector:                   &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}, MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"b", "a"}}}},
			UnhealthyPodEvictionPolicy: ptr.To(policyv1.AlwaysAllow)},
			PodDisruptionBudget{MaxUnavailable: "10%", Selector: "app=x,tier in (a,b)", UnhealthyPodEvictionPolicy: "AlwaysAllow"}},
		{"no selector", policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromInt32(1))}, PodDisruptionBudget{MinAvailable: "1"}},
		{"invalid selector", policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Bogus"}}}},
			PodDisruptionBudget{Selector: `invalid selector: "Bogus" is not a valid label selector operator`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: "u1", Generation: 3}, Spec: tc.spec,
				Status: policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 3, CurrentHealthy: 2, DesiredHealthy: 2, ExpectedPods: 3}}
			got := PodDisruptionBudgetFromAPI(p)
			tc.want.Namespace, tc.want.Name, tc.want.UID, tc.want.Generation, tc.want.ObservedGeneration = "ns", "p", "u1", 3, 3
			tc.want.CurrentHealthy, tc.want.DesiredHealthy, tc.want.ExpectedPods = 2, 2, 3
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestPDBSelectorReadsSelectorsAsTheDisruptionController(t *testing.T) {
	pod := labels.Set{"app": "x"}
	for _, tc := range []struct {
		name string
		sel  *metav1.LabelSelector
		want bool
	}{
		{"nil selects nothing", nil, false},
		{"empty selects every pod (policy/v1)", &metav1.LabelSelector{}, true},
		{"match", &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}, true},
		{"no match", &metav1.LabelSelector{MatchLabels: map[string]string{"app": "y"}}, false},
		{"invalid selects nothing", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Bogus"}}}, false},
	} {
		if got := PDBSelector(&policyv1.PodDisruptionBudget{Spec: policyv1.PodDisruptionBudgetSpec{Selector: tc.sel}}).Matches(pod); got != tc.want {
			t.Errorf("%s: matches %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestCSRState(t *testing.T) {
	cond := func(ty certificatesv1.RequestConditionType, st corev1.ConditionStatus) certificatesv1.CertificateSigningRequestCondition {
		return certificatesv1.CertificateSigningRequestCondition{Type: ty, Status: st}
	}
	for _, tc := range []struct {
		name string
		st   certificatesv1.CertificateSigningRequestStatus
		want string
	}{
		{"no condition", certificatesv1.CertificateSigningRequestStatus{}, CSRStatePending},
		{"approved", certificatesv1.CertificateSigningRequestStatus{Conditions: []certificatesv1.CertificateSigningRequestCondition{cond(certificatesv1.CertificateApproved, corev1.ConditionTrue)}}, CSRStateApproved},
		{"approved without status (old objects)", certificatesv1.CertificateSigningRequestStatus{Conditions: []certificatesv1.CertificateSigningRequestCondition{cond(certificatesv1.CertificateApproved, "")}}, CSRStateApproved},
		{"approved=False is pending", certificatesv1.CertificateSigningRequestStatus{Conditions: []certificatesv1.CertificateSigningRequestCondition{cond(certificatesv1.CertificateApproved, corev1.ConditionFalse)}}, CSRStatePending},
		{"issued", certificatesv1.CertificateSigningRequestStatus{Certificate: []byte("x"), Conditions: []certificatesv1.CertificateSigningRequestCondition{cond(certificatesv1.CertificateApproved, corev1.ConditionTrue)}}, CSRStateIssued},
		{"denied", certificatesv1.CertificateSigningRequestStatus{Conditions: []certificatesv1.CertificateSigningRequestCondition{cond(certificatesv1.CertificateDenied, corev1.ConditionTrue)}}, CSRStateDenied},
		{"failed after approval", certificatesv1.CertificateSigningRequestStatus{Conditions: []certificatesv1.CertificateSigningRequestCondition{
			cond(certificatesv1.CertificateApproved, corev1.ConditionTrue), cond(certificatesv1.CertificateFailed, corev1.ConditionTrue)}}, CSRStateFailed},
	} {
		if got := CSRState(tc.st); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// csrPEM returns a real PKCS#10 request, as a kubelet makes one.
func csrPEM(t testing.TB, cn string, orgs, dns []string, ips []net.IP) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: cn, Organization: orgs}, DNSNames: dns, IPAddresses: ips}, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

func TestCertificateSigningRequestFromAPI(t *testing.T) {
	created := metav1.NewTime(time.Date(2024, 2, 27, 10, 0, 0, 0, time.FixedZone("CET", 3600)))
	serving := csrPEM(t, "system:node:worker-1", []string{"system:nodes"}, []string{"worker-1", "worker-1.example.com"}, []net.IP{net.ParseIP("10.0.0.7")})
	for _, tc := range []struct {
		name    string
		request []byte
		want    CertificateSigningRequest
	}{
		{"serving request", serving, CertificateSigningRequest{CommonName: "system:node:worker-1", Organizations: []string{"system:nodes"},
			DNSNames: []string{"worker-1", "worker-1.example.com"}, IPAddresses: []string{"10.0.0.7"}}},
		{"empty", nil, CertificateSigningRequest{ParseError: "spec.request is empty"}},
		{"not PEM", []byte("hello"), CertificateSigningRequest{ParseError: "spec.request holds no PEM block"}},
		{"a certificate, not a request", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1}}),
			CertificateSigningRequest{ParseError: `spec.request holds a PEM "CERTIFICATE" block, not a CERTIFICATE REQUEST`}},
		{"garbage DER", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: []byte{1, 2, 3}}), CertificateSigningRequest{ParseError: "spec.request is not a PKCS#10 request"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "csr-abc", UID: "u", CreationTimestamp: created},
				Spec: certificatesv1.CertificateSigningRequestSpec{Request: tc.request, SignerName: openshift.SignerKubeletServing, Username: "system:node:worker-1",
					Groups: []string{"system:nodes", "system:authenticated"}, Usages: []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageServerAuth}}}
			got := CertificateSigningRequestFromAPI(c)
			if tc.want.ParseError != "" && strings.HasPrefix(got.ParseError, tc.want.ParseError) {
				tc.want.ParseError = got.ParseError // the x509 detail after the prefix is Go's
			}
			tc.want.Name, tc.want.UID, tc.want.SignerName, tc.want.Username, tc.want.State = "csr-abc", "u", openshift.SignerKubeletServing, "system:node:worker-1", CSRStatePending
			tc.want.Groups, tc.want.Usages = []string{"system:nodes", "system:authenticated"}, []string{"digital signature", "server auth"}
			tc.want.Created = created.UTC()
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
			if got.Created.Location() != time.UTC {
				t.Errorf("created time is not UTC: %v", got.Created)
			}
			data, _ := json.Marshal(got)
			if strings.Contains(string(data), "BEGIN") || (len(tc.request) > 20 && strings.Contains(string(data), string(tc.request[30:50]))) {
				t.Errorf("the record holds the raw request: %s", data)
			}
		})
	}
}

func TestMachineFromAPI(t *testing.T) {
	m := &machinev1beta1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: openshift.MachineAPINamespace, Name: "w-1", CreationTimestamp: metav1.NewTime(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))},
		Status: machinev1beta1.MachineStatus{Phase: ptr.To("Provisioned"), Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalDNS, Address: "w-1.example"}, {Type: corev1.NodeInternalIP, Address: "10.0.0.1"}}}}
	got := MachineFromAPI(m)
	want := Machine{Namespace: openshift.MachineAPINamespace, Name: "w-1", Phase: "Provisioned", Created: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC),
		Addresses: []Address{{"InternalDNS", "w-1.example"}, {"InternalIP", "10.0.0.1"}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v", got)
	}
	m.Status.NodeRef = &corev1.ObjectReference{Kind: "Node", Name: "w-1"}
	if got := MachineFromAPI(m); got.NodeRef != "w-1" {
		t.Fatalf("nodeRef %q", got.NodeRef)
	}
}

func TestAPIRequestCountFromAPI(t *testing.T) {
	a := &apiserverv1.APIRequestCount{ObjectMeta: metav1.ObjectMeta{Name: "flowschemas.v1beta2.flowcontrol.apiserver.k8s.io"},
		Status: apiserverv1.APIRequestCountStatus{RemovedInRelease: "1.29", RequestCount: 42, CurrentHour: apiserverv1.PerResourceAPIRequestLog{RequestCount: 3}}}
	got, ok := APIRequestCountFromAPI(a)
	if !ok || got != (APIRequestCount{Name: a.Name, RemovedInRelease: "1.29", RequestCount: 42, CurrentHour: 3}) {
		t.Fatalf("got %+v %v", got, ok)
	}
	a.Status.RemovedInRelease = ""
	if _, ok := APIRequestCountFromAPI(a); ok {
		t.Fatal("an API no release removes is kept")
	}
}

func TestWebhooksFromAPI(t *testing.T) {
	ignore := admissionv1.Ignore
	ns := admissionv1.NamespacedScope
	c := &admissionv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "cfg"}, Webhooks: []admissionv1.ValidatingWebhook{
		{Name: "svc.example.com", ClientConfig: admissionv1.WebhookClientConfig{Service: &admissionv1.ServiceReference{Namespace: "hooks", Name: "validator", Path: ptr.To("/validate")}},
			Rules: []admissionv1.RuleWithOperations{
				{Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update}, Rule: admissionv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}}},
				{Operations: []admissionv1.OperationType{admissionv1.OperationAll}, Rule: admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods", "pods/status"}, Scope: &ns}},
				{Operations: []admissionv1.OperationType{admissionv1.Delete}, Rule: admissionv1.Rule{APIGroups: []string{"", "batch"}, APIVersions: []string{"v1", "v1beta1"}, Resources: []string{"*"}}},
			},
			NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system"}}}},
			TimeoutSeconds:    ptr.To[int32](5)},
		{Name: "url.example.com", ClientConfig: admissionv1.WebhookClientConfig{URL: ptr.To("https://admin:hunter2@hooks.example.com:8443/validate?token=s3cret")}, FailurePolicy: &ignore,
			ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}},
		{Name: "bad-url.example.com", ClientConfig: admissionv1.WebhookClientConfig{URL: ptr.To("://user:pw@%zz")}},
	}}
	got := ValidatingWebhooksFromAPI(c)
	want := []Webhook{
		{Kind: WebhookValidating, Configuration: "cfg", Name: "svc.example.com", FailurePolicy: "Fail", TimeoutSeconds: 5, Service: "hooks/validator",
			Rules:             []string{"CREATE,UPDATE apps/v1 deployments", "* v1 pods,pods/status (Namespaced)", "DELETE core,batch/v1,v1beta1 *"},
			NamespaceSelector: "kubernetes.io/metadata.name notin (kube-system)", ReadyEndpoints: -1},
		{Kind: WebhookValidating, Configuration: "cfg", Name: "url.example.com", FailurePolicy: "Ignore", TimeoutSeconds: 10, URL: "hooks.example.com:8443", ObjectSelector: "team=a", ReadyEndpoints: -1},
		{Kind: WebhookValidating, Configuration: "cfg", Name: "bad-url.example.com", FailurePolicy: "Fail", TimeoutSeconds: 10, URL: "unparseable URL", ReadyEndpoints: -1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	data, _ := json.Marshal(got)
	for _, secret := range []string{"hunter2", "admin", "s3cret", "/validate", "pw"} {
		if strings.Contains(string(data), secret) {
			t.Errorf("webhook records keep %q of a URL: %s", secret, data)
		}
	}
	m := MutatingWebhooksFromAPI(&admissionv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "m"}, Webhooks: []admissionv1.MutatingWebhook{{Name: "w"}}})
	if len(m) != 1 || m[0].Kind != WebhookMutating || m[0].FailurePolicy != "Fail" || m[0].ReadyEndpoints != -1 {
		t.Fatalf("mutating: %+v", m)
	}
}

func TestAdmissionPolicyFromAPI(t *testing.T) {
	p := &admissionv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "no-latest"}, Spec: admissionv1.ValidatingAdmissionPolicySpec{
		ParamKind: &admissionv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"},
		MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{RuleWithOperations: admissionv1.RuleWithOperations{
			Operations: []admissionv1.OperationType{admissionv1.Create}, Rule: admissionv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}}}}}}}}
	got := AdmissionPolicyFromAPI(p)
	if !reflect.DeepEqual(got, AdmissionPolicy{Name: "no-latest", FailurePolicy: "Fail", ParamKind: "v1/ConfigMap", Rules: []string{"CREATE apps/v1 deployments"}}) {
		t.Fatalf("got %+v", got)
	}
	policy, text := AdmissionPolicyBindingText(&admissionv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "b"},
		Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "no-latest", ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny, admissionv1.Audit}}})
	if policy != "no-latest" || text != "b: Deny,Audit" {
		t.Fatalf("binding: %q %q", policy, text)
	}
}

func TestEndpointSliceReady(t *testing.T) {
	s := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "hooks", Name: "validator-x1", Labels: map[string]string{discoveryv1.LabelServiceName: "validator"}},
		Endpoints: []discoveryv1.Endpoint{
			{Addresses: []string{"10.1.0.1"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}},
			{Addresses: []string{"10.1.0.2"}}, // unknown reads as ready
			{Addresses: []string{"10.1.0.3"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(false)}},
		}}
	svc, ready, ok := EndpointSliceReady(s)
	if !ok || svc != "hooks/validator" || ready != 2 {
		t.Fatalf("got %s %d %v", svc, ready, ok)
	}
	delete(s.Labels, discoveryv1.LabelServiceName)
	if _, _, ok := EndpointSliceReady(s); ok {
		t.Fatal("a slice of no service counted")
	}
}

func TestCertificateSecretFromMeta(t *testing.T) {
	for _, tc := range []struct {
		name string
		ann  map[string]string
		ok   bool
		want CertificateSecret
	}{
		{"signer", map[string]string{openshift.AnnotationCertNotAfter: "2025-02-27T10:00:00Z", openshift.AnnotationCertNotBefore: "2024-02-28T10:00:00+01:00", openshift.AnnotationCertIssuer: "openshift-kube-apiserver-operator_kube-apiserver-to-kubelet-signer@1709"},
			true, CertificateSecret{NotAfter: time.Date(2025, 2, 27, 10, 0, 0, 0, time.UTC), NotBefore: time.Date(2024, 2, 28, 9, 0, 0, 0, time.UTC), Issuer: "openshift-kube-apiserver-operator_kube-apiserver-to-kubelet-signer@1709"}},
		{"not after only", map[string]string{openshift.AnnotationCertNotAfter: "2025-02-27T10:00:00Z"}, true, CertificateSecret{NotAfter: time.Date(2025, 2, 27, 10, 0, 0, 0, time.UTC)}},
		{"no annotation", nil, false, CertificateSecret{}},
		{"unreadable", map[string]string{openshift.AnnotationCertNotAfter: "next year"}, false, CertificateSecret{}},
	} {
		got, ok := CertificateSecretFromMeta(&metav1.ObjectMeta{Namespace: "ns", Name: "s", Annotations: tc.ann})
		if ok {
			tc.want.Namespace, tc.want.Name = "ns", "s"
		}
		if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %+v %v", tc.name, got, ok)
		}
	}
}

func TestCloudCredentialFromAPI(t *testing.T) {
	c := &operatorv1.CloudCredential{ObjectMeta: metav1.ObjectMeta{Name: "cluster", UID: "cc", Annotations: map[string]string{openshift.AnnotationUpgradeableTo: "4.19"}},
		Spec: operatorv1.CloudCredentialSpec{CredentialsMode: operatorv1.CloudCredentialsModeManual}}
	if got := CloudCredentialFromAPI(c); got != (CloudCredential{UID: "cc", Mode: "Manual", UpgradeableTo: "4.19"}) {
		t.Fatalf("got %+v", got)
	}
}

func TestNodeFromAPIWedgeFields(t *testing.T) {
	created := metav1.NewTime(time.Date(2024, 2, 27, 10, 0, 0, 0, time.FixedZone("EST", -5*3600)))
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "w", CreationTimestamp: created, Annotations: map[string]string{
		openshift.AnnotationDesiredDrain: "drain-rendered-worker-2", openshift.AnnotationLastAppliedDrain: "uncordon-rendered-worker-1"}},
		Status: corev1.NodeStatus{
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, Reason: "NodeStatusUnknown", Message: "Kubelet stopped posting node status."}},
			Addresses:  []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.9"}, {Type: corev1.NodeHostName, Address: "w"}}}}
	got := NodeFromAPI(n)
	if got.DesiredDrain != "drain-rendered-worker-2" || got.LastAppliedDrain != "uncordon-rendered-worker-1" || !got.Draining() ||
		got.ReadyReason != "NodeStatusUnknown" || got.ReadyMessage != "Kubelet stopped posting node status." ||
		!reflect.DeepEqual(got.Addresses, []Address{{"InternalIP", "10.0.0.9"}, {"Hostname", "w"}}) || !got.Created.Equal(created.Time) || got.Created.Location() != time.UTC {
		t.Fatalf("got %+v", got)
	}
	n.Status.Conditions[0].Status = corev1.ConditionTrue
	if got := NodeFromAPI(n); got.ReadyReason != "" || got.ReadyMessage != "" {
		t.Fatalf("a Ready node keeps its condition's reason: %+v", got)
	}
}

func TestMachineConfigPoolFromAPIGenerations(t *testing.T) {
	p := pool("worker", "rendered-worker-new", 2)
	p.Generation, p.Status.ObservedGeneration, p.UID = 5, 4, "pool-uid"
	got := MachineConfigPoolFromAPI(p)
	if got.Generation != 5 || got.ObservedGeneration != 4 || got.UID != "pool-uid" || PoolRolledOut(got).OK {
		t.Fatalf("got %+v, rolled out %v", got, PoolRolledOut(got))
	}
}

func TestDrainCandidate(t *testing.T) {
	running := func(mut func(p *corev1.Pod)) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "app", Name: "p", OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "web-7f", Controller: ptr.To(true)}}},
			Spec: corev1.PodSpec{NodeName: "w-1"}, Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}
		if mut != nil {
			mut(p)
		}
		return p
	}
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		ok   bool
	}{
		{"running replica", running(nil), true},
		{"unknown phase", running(func(p *corev1.Pod) { p.Status.Phase = corev1.PodUnknown }), true},
		{"not scheduled", running(func(p *corev1.Pod) { p.Spec.NodeName = "" }), false},
		{"pending bypasses budgets", running(func(p *corev1.Pod) { p.Status.Phase = corev1.PodPending }), false},
		{"succeeded", running(func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded }), false},
		{"failed", running(func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed }), false},
		{"deleting", running(func(p *corev1.Pod) { p.DeletionTimestamp = &metav1.Time{Time: time.Now()} }), false},
		{"mirror", running(func(p *corev1.Pod) { p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"} }), false},
		{"daemonset", running(func(p *corev1.Pod) { p.OwnerReferences[0].Kind = "DaemonSet" }), false},
	} {
		d, ok := drainCandidate(tc.pod)
		if ok != tc.ok {
			t.Errorf("%s: candidate %v, want %v", tc.name, ok, tc.ok)
		}
		if ok && (d.Node != "w-1" || d.Owner != "ReplicaSet/web-7f" || !d.Ready) {
			t.Errorf("%s: %+v", tc.name, d)
		}
	}
}

func TestGuardPodFromAPI(t *testing.T) {
	c := StaticPodComponentFor("openshift-kube-scheduler")
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: c.Namespace, Name: "openshift-kube-scheduler-guard-master-1"}, Spec: corev1.PodSpec{NodeName: "master-1"}}
	if g := GuardPodFromAPI(c, p); g == nil || g.Node != "master-1" || g.Ready {
		t.Fatalf("guard %+v", g)
	}
	p.Name = "openshift-kube-scheduler-master-1"
	if g := GuardPodFromAPI(c, p); g != nil {
		t.Fatalf("the static pod read as a guard: %+v", g)
	}
}
