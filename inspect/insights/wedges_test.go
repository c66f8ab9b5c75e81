package insights

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/internal/testing/shareddata"
)

func states(s *inspect.Snapshot) map[string]inspect.ResourceStatus {
	out := map[string]inspect.ResourceStatus{}
	for _, r := range s.Resources {
		out[r.Key()] = r
	}
	return out
}

// TestWedgeFactsFromInsightsArchive reads a fixture in the insights-operator
// layout: PDBs (policy/v1 and v1beta1), an anonymized pending CSR, a Machine, a
// webhook written without kind, admin-acks as one file per key, the
// CloudCredential; what an archive never holds is Absent.
func TestWedgeFactsFromInsightsArchive(t *testing.T) {
	for _, p := range []string{"testdata/wedges", tarGz(t, "testdata/wedges", "insights-operator/")} {
		s, err := New(p).Collect(t.Context())
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		st := states(s)
		for key, want := range map[string]inspect.CollectionState{
			"poddisruptionbudgets.policy":                                  inspect.Collected,
			"certificatesigningrequests.certificates.k8s.io":               inspect.Collected,
			"machines.machine.openshift.io/openshift-machine-api":          inspect.Collected,
			"validatingwebhookconfigurations.admissionregistration.k8s.io": inspect.Collected,
			"mutatingwebhookconfigurations.admissionregistration.k8s.io":   inspect.Absent,
			"configmaps/openshift-config":                                  inspect.Collected,
			"configmaps/openshift-config-managed":                          inspect.Absent,
			"cloudcredentials.operator.openshift.io":                       inspect.Collected,
			"apirequestcounts.apiserver.openshift.io":                      inspect.Absent,
			"validatingadmissionpolicies.admissionregistration.k8s.io":     inspect.Absent,
			"secrets/" + openshift.SignerNamespaces[0]:                     inspect.Absent,
			"pods":                            inspect.Absent, // worker-0 drains and PDBs exist
			"endpointslices.discovery.k8s.io": inspect.Absent, // the webhook calls a service
			"validatingadmissionpolicybindings.admissionregistration.k8s.io": inspect.Absent,
		} {
			if got := st[key]; got.State != want || (want != inspect.Collected && got.Reason == "") {
				t.Errorf("%s: %s %q, want %s", key, got.State, got.Reason, want)
			}
		}
		if len(s.PodDisruptionBudgets) != 2 || s.PodDisruptionBudgets[0].Name != "etcd-quorum-guard" || s.PodDisruptionBudgets[0].Selector != "" ||
			s.PodDisruptionBudgets[1].MaxUnavailable != "50%" || !inspect.PDBAtLimit(s.PodDisruptionBudgets[1]) {
			t.Errorf("%s: PDBs %+v", p, s.PodDisruptionBudgets)
		}
		if len(s.CertificateSigningRequests) != 1 {
			t.Fatalf("%s: CSRs %+v", p, s.CertificateSigningRequests)
		}
		c := s.CertificateSigningRequests[0]
		if c.Name != "csr-8vt2q" || c.State != inspect.CSRStatePending || c.Username != openshift.NodeBootstrapper || c.CommonName != "" || c.ParseError == "" || c.Created.IsZero() {
			t.Errorf("%s: anonymized CSR %+v", p, c)
		}
		if v := inspect.CSRVouch(c, s.Nodes, s.Machines); v.OK {
			t.Errorf("%s: an anonymized CSR was vouched for: %+v", p, v)
		}
		if len(s.Machines) != 1 || len(s.Webhooks) != 1 || s.Webhooks[0].Service != "policy-system/policy-webhook" || s.Webhooks[0].ReadyEndpoints != -1 {
			t.Errorf("%s: machines %+v webhooks %+v", p, s.Machines, s.Webhooks)
		}
		if g := s.AdminGates; g == nil || g.Gates != nil || g.Acks["ack-4.13-kube-1.27-api-removals-in-4.14"] != "true" {
			t.Errorf("%s: admin gates %+v", p, s.AdminGates)
		}
		if cc := s.CloudCredential; cc == nil || cc.Mode != "Manual" || cc.UpgradeableTo != "4.15" {
			t.Errorf("%s: cloud credential %+v", p, s.CloudCredential)
		}
		if len(s.DrainPods) != 0 {
			t.Errorf("%s: drain pods from an archive without pods: %+v", p, s.DrainPods)
		}
	}
}

// The real 4.7 archive holds the old etcd quorum guard PDB (policy/v1beta1) and
// the CloudCredential; it predates the CSR, Machine and webhook gatherers' files.
func TestRealInsightsArchiveWedgeFacts(t *testing.T) {
	root := shareddata.RealData(t, "")
	s, err := New(filepath.Join(root, "insights-archive-sample-4.7")).Collect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.PodDisruptionBudgets) != 1 {
		t.Fatalf("PDBs %+v", s.PodDisruptionBudgets)
	}
	p := s.PodDisruptionBudgets[0]
	if p.Key() != "openshift-machine-config-operator/"+openshift.EtcdQuorumGuard || p.Selector != "k8s-app=etcd-quorum-guard" || p.MaxUnavailable != "1" ||
		p.DisruptionsAllowed != 1 || p.CurrentHealthy != 3 || inspect.PDBAtLimit(p) {
		t.Errorf("etcd quorum guard: %+v", p)
	}
	if s.CloudCredential == nil || s.CloudCredential.Mode != "" {
		t.Errorf("cloud credential %+v", s.CloudCredential)
	}
	st := states(s)
	for _, key := range []string{"certificatesigningrequests.certificates.k8s.io", "machines.machine.openshift.io/openshift-machine-api", "validatingwebhookconfigurations.admissionregistration.k8s.io"} {
		if st[key].State != inspect.Absent {
			t.Errorf("%s: %s", key, st[key].State)
		}
	}
	// Nothing drains on this settled cluster: no pods were needed.
	if r := st["pods"]; r.State != inspect.Collected || !strings.HasPrefix(r.Reason, inspect.ReasonNotNeeded) {
		t.Errorf("pods of drains: %+v", r)
	}
}
