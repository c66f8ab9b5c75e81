package live

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/mustgather"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/internal/testing/faultproxy"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

// wedgeFixture is the must-gather of a drain-held 4.16 update (see the
// mustgather package's tests).
const wedgeFixture = "../mustgather/testdata/wedges"

// wedgeView is what the wedge facts say, without what a live cluster assigns
// itself (UIDs, creation times) or what no cluster can hold (a CSR whose
// request is not PKCS#10, which the API server refuses).
type wedgeView struct {
	PDBs        []inspect.PodDisruptionBudget
	DrainPods   []inspect.DrainPod
	CSRs        []inspect.CertificateSigningRequest
	Machines    []inspect.Machine
	AdminGates  *inspect.AdminGates
	APIRequests []inspect.APIRequestCount
	Webhooks    []inspect.Webhook
	Policies    []inspect.AdmissionPolicy
	Endpoints   []inspect.ServiceEndpoints
	Certs       []inspect.CertificateSecret
	Cloud       *inspect.CloudCredential
	Guards      map[string][]inspect.GuardPod
	Force       map[string]string
	Nodes       []inspect.Node
}

func viewOf(s *inspect.Snapshot) wedgeView {
	v := wedgeView{DrainPods: s.DrainPods, APIRequests: s.APIRequestCounts, Webhooks: s.Webhooks, Policies: s.AdmissionPolicies,
		Endpoints: s.ServiceEndpoints, Certs: s.Certificates, Guards: map[string][]inspect.GuardPod{}, Force: map[string]string{}}
	for _, p := range s.PodDisruptionBudgets {
		p.UID, p.Generation, p.ObservedGeneration = "", 0, 0
		v.PDBs = append(v.PDBs, p)
	}
	for _, c := range s.CertificateSigningRequests {
		if c.ParseError != "" {
			continue
		}
		c.UID, c.Created = "", time.Time{}
		v.CSRs = append(v.CSRs, c)
	}
	for _, m := range s.Machines {
		m.Created = time.Time{}
		v.Machines = append(v.Machines, m)
	}
	if g := s.AdminGates; g != nil {
		v.AdminGates = &inspect.AdminGates{Gates: g.Gates, Acks: g.Acks}
	}
	if c := s.CloudCredential; c != nil {
		v.Cloud = &inspect.CloudCredential{Mode: c.Mode, UpgradeableTo: c.UpgradeableTo}
	}
	for _, op := range s.StaticPodOperators {
		v.Guards[op.Component] = op.Guards
		v.Force[op.Component] = op.ForceRedeploymentReason
	}
	for _, n := range s.Nodes {
		n.Created = time.Time{}
		v.Nodes = append(v.Nodes, n)
	}
	return v
}

// TestWedgeFactsLive loads the wedge fixture into a real API server (nodes,
// PDBs, pods, CSRs created as their requestors, machines, admin gates, webhooks
// with their endpoint slices, Secrets with data) and inspects it live: the
// wedge facts equal the must-gather's, the second phase lists the pods of drains
// and the webhook services' EndpointSlices with one request each, and no
// Secret data reaches the snapshot.
func TestWedgeFactsLive(t *testing.T) {
	kubetest.Require(t, env)
	fresh := env.ForTest(t)
	loadMustGather(t, fresh.Config, wedgeFixture)
	offline, err := mustgather.New(wedgeFixture).Collect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cfg, count := countingConfig(fresh.Config)
	live := collect(t, cfg, Options{})
	a, _ := json.MarshalIndent(viewOf(live), "", " ")
	b, _ := json.MarshalIndent(viewOf(offline), "", " ")
	if string(a) != string(b) {
		t.Errorf("live and must-gather wedge facts differ:\nlive    %s\noffline %s", a, b)
	}
	if len(live.DrainPods) != 2 || len(live.CertificateSigningRequests) != 2 || live.Webhooks[1].ReadyEndpoints != 0 {
		t.Errorf("live: %d drain pods, %d CSRs, webhooks %+v", len(live.DrainPods), len(live.CertificateSigningRequests), live.Webhooks)
	}
	for _, name := range []string{"csr-serving-c", "csr-bootstrap-d"} {
		for _, c := range live.CertificateSigningRequests {
			if c.Name == name {
				if v := inspect.CSRVouch(c, live.Nodes, live.Machines); !v.OK {
					t.Errorf("%s not vouched for live: %+v", name, v)
				}
			}
		}
	}
	if got := count.Load(); got != 34 {
		t.Errorf("live inspect made %d requests; want 29 LISTs, the two of the second phase and the three pod LISTs of the logs phase", got)
	}
	for _, r := range live.Resources {
		switch r.Key() {
		case inspect.ResPods.Key():
			if r.Requests != 1 || !strings.Contains(r.From[0], "fieldSelector=status.phase") {
				t.Errorf("pods of drains: %+v", r)
			}
		case inspect.ResEndpointSlices.Key():
			if r.Requests != 1 || !strings.Contains(r.From[0], "labelSelector=kubernetes.io%2Fservice-name+in+%28gatekeeper-webhook-service%29") {
				t.Errorf("endpoint slices: %+v", r)
			}
		}
		if r.State != inspect.Collected {
			t.Errorf("%s: %s (%s)", r.Key(), r.State, r.Reason)
		}
	}
	assertNoSecretData(t, live)
}

func assertNoSecretData(t *testing.T, s *inspect.Snapshot) {
	t.Helper()
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"RECOVER-TEST", "UkVDT1ZFUi1URVNU", "RECOVER-LIVE", "t0ps3cret"} {
		if strings.Contains(string(data), secret) {
			t.Errorf("the snapshot holds %q", secret)
		}
	}
}

// auditedRequest is one request as the client sent it.
type auditedRequest struct {
	method, path, accept string
}

// auditTransport records every request's method, path and Accept header.
type auditTransport struct {
	next http.RoundTripper
	mu   *sync.Mutex
	log  *[]auditedRequest
}

func (a auditTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	a.mu.Lock()
	*a.log = append(*a.log, auditedRequest{r.Method, r.URL.Path, r.Header.Get("Accept")})
	a.mu.Unlock()
	return a.next.RoundTrip(r)
}

// secretProblems returns every audited request for Secrets that could carry a
// Secret's data: anything but a LIST whose Accept admits only
// PartialObjectMetadataList.
func secretProblems(log []auditedRequest) (problems []string, secrets int) {
	for _, r := range log {
		if !strings.Contains(r.path, "/secrets") {
			continue
		}
		secrets++
		ok := r.method == http.MethodGet && strings.HasSuffix(r.path, "/secrets")
		for _, part := range strings.Split(r.accept, ",") {
			if !strings.Contains(part, "as=PartialObjectMetadataList") {
				ok = false
			}
		}
		if !ok || r.accept == "" {
			problems = append(problems, r.method+" "+r.path+" Accept: "+r.accept)
		}
	}
	return problems, secrets
}

// TestSecretDataIsNeverRequested inspects, through the fault proxy, a cluster
// whose signer Secrets hold data: every request for Secrets the client sends is
// a LIST that accepts nothing but PartialObjectMetadataList (no plain JSON a
// server could answer with whole Secrets), the proxy saw exactly those, and no
// Secret data is in the snapshot. A direct Secret LIST through the same audit is
// caught, so the audit can fail.
func TestSecretDataIsNeverRequested(t *testing.T) {
	kubetest.Require(t, env)
	fresh := env.ForTest(t)
	seedClusterVersionIn(t, fresh.Config)
	kube := kubernetes.NewForConfigOrDie(fresh.Config)
	for _, ns := range openshift.SignerNamespaces {
		if _, err := kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{openshift.KubeletSigner, "plain"} {
			sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
				Annotations: map[string]string{openshift.AnnotationCertNotAfter: "2030-01-01T00:00:00Z"}},
				Data: map[string][]byte{"tls.key": []byte("RECOVER-LIVE-PRIVATE-KEY")}}
			if _, err := kube.CoreV1().Secrets(ns).Create(context.Background(), sec, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	p, err := faultproxy.Start(faultproxy.Options{Upstream: fresh.Config})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var mu sync.Mutex
	var log []auditedRequest
	cfg := p.Config()
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return auditTransport{next: rt, mu: &mu, log: &log} })
	s := collect(t, cfg, Options{PageSize: 1}) // one Secret per page: every continue is audited too
	if len(s.Certificates) != 2*len(openshift.SignerNamespaces) {
		t.Fatalf("certificates read from metadata: %+v", s.Certificates)
	}
	assertNoSecretData(t, s)
	problems, sent := secretProblems(log)
	if len(problems) > 0 {
		t.Errorf("requests that could carry Secret data: %v", problems)
	}
	seen := 0
	for _, e := range p.Log() {
		if strings.Contains(e.Path, "/secrets") {
			seen++
		}
	}
	if sent == 0 || seen != sent {
		t.Errorf("the client sent %d Secret requests, the server saw %d", sent, seen)
	}

	// The audit catches a request that would fetch Secret data.
	mu.Lock()
	log = nil
	mu.Unlock()
	if _, err := kubernetes.NewForConfigOrDie(cfg).CoreV1().Secrets(openshift.SignerNamespaces[0]).List(context.Background(), metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if problems, _ := secretProblems(log); len(problems) != 1 {
		t.Fatalf("a plain Secret LIST went unnoticed by the audit: %v", problems)
	}
}

// TestUnservedKindsAreNotFound: a cluster without the Machine API (UPI) or
// APIRequestCount (before 4.8) is inspected; those resources are recorded
// NotFound, never an error, and everything else is read.
func TestUnservedKindsAreNotFound(t *testing.T) {
	kubetest.Require(t, env)
	fresh := env.ForTest(t)
	seedClusterVersionIn(t, fresh.Config)
	ext := apiextensionsclient.NewForConfigOrDie(fresh.Config)
	ctx := context.Background()
	for _, crd := range []string{"machines.machine.openshift.io", "apirequestcounts.apiserver.openshift.io"} {
		if err := ext.ApiextensionsV1().CustomResourceDefinitions().Delete(ctx, crd, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
			_, err := ext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
		if err != nil {
			t.Fatalf("CRD %s never went away: %v", crd, err)
		}
	}
	// The API server stops serving a deleted CRD's resource a moment after.
	var s *inspect.Snapshot
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		s = collect(t, fresh.Config, Options{})
		return stateOf(s, "machines.machine.openshift.io/openshift-machine-api") == inspect.NotFound &&
			stateOf(s, inspect.ResAPIRequestCounts.Key()) == inspect.NotFound, nil
	})
	if err != nil {
		t.Fatalf("machines %s, apirequestcounts %s", stateOf(s, "machines.machine.openshift.io/openshift-machine-api"), stateOf(s, inspect.ResAPIRequestCounts.Key()))
	}
	for _, r := range s.Resources {
		unserved := r.Key() == "machines.machine.openshift.io/openshift-machine-api" || r.Key() == inspect.ResAPIRequestCounts.Key()
		if unserved != (r.State != inspect.Collected) || (unserved && r.Reason == "") {
			t.Errorf("%s: %s (%s)", r.Key(), r.State, r.Reason)
		}
	}
}

func stateOf(s *inspect.Snapshot, key string) inspect.CollectionState {
	for _, r := range s.Resources {
		if r.Key() == key {
			return r.State
		}
	}
	return ""
}
