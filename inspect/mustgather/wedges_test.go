package mustgather

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
)

// wedges is a must-gather of a 4.15 -> 4.16 update held by drains: worker-a and
// master-0 drain (the shop/web and etcd guard PDBs allow no disruption),
// worker-c is NotReady with a pending serving CSR, a new machine's bootstrap CSR
// waits, an admin gate is unacknowledged, a webhook has no ready endpoint, and the
// signer Secrets hold data that must never reach a snapshot.
const wedges = "testdata/wedges"

func TestWedgeFactsFromMustGather(t *testing.T) {
	s := collect(t, New(wedges))
	states := map[string]inspect.ResourceStatus{}
	for _, r := range s.Resources {
		states[r.Key()] = r
	}
	for _, w := range inspect.WedgeResources() {
		if r := states[w.Key()]; r.State != inspect.Collected || strings.HasPrefix(r.Reason, inspect.ReasonNotNeeded) {
			t.Errorf("%s: %s (%s), want read", w.Key(), r.State, r.Reason)
		}
	}
	wantDrain := []inspect.DrainPod{
		{Namespace: "openshift-etcd", Name: "etcd-guard-master-0", Node: "master-0", Phase: "Running", PDBs: []string{"openshift-etcd/etcd-guard-pdb"}},
		{Namespace: "shop", Name: "web-1", Node: "worker-a", Phase: "Running", Ready: true, PDBs: []string{"shop/web"}, Owner: "ReplicaSet/web-5d8f7c"},
	}
	if !reflect.DeepEqual(s.DrainPods, wantDrain) {
		t.Errorf("drain pods:\n got %+v\nwant %+v", s.DrainPods, wantDrain)
	}
	if len(s.PodDisruptionBudgets) != 2 || !inspect.PDBAtLimit(s.PodDisruptionBudgets[0]) || s.PodDisruptionBudgets[1].MaxUnavailable != "0" || s.PodDisruptionBudgets[1].UID != "shop-web-pdb-uid" {
		t.Errorf("PDBs: %+v", s.PodDisruptionBudgets)
	}
	for _, op := range s.StaticPodOperators {
		if op.Component == "etcd" && (len(op.Guards) != 3 || op.ForceRedeploymentReason != "recovery-2024-02-27" || len(op.MirrorPods) != 1) {
			t.Errorf("etcd: guards %+v, forceRedeploymentReason %q, mirror pods %d", op.Guards, op.ForceRedeploymentReason, len(op.MirrorPods))
		}
	}

	csrs := map[string]inspect.CertificateSigningRequest{}
	for _, c := range s.CertificateSigningRequests {
		csrs[c.Name] = c
	}
	if len(csrs) != 3 || csrs["csr-issued"].Name != "" || csrs["csr-unreadable"].ParseError == "" {
		t.Errorf("CSRs: %+v", s.CertificateSigningRequests)
	}
	if c := csrs["csr-serving-c"]; c.CommonName != "system:node:worker-c" || !reflect.DeepEqual(c.IPAddresses, []string{"10.0.0.13"}) || !reflect.DeepEqual(c.DNSNames, []string{"worker-c"}) {
		t.Errorf("serving CSR: %+v", c)
	}
	for name, by := range map[string]string{"csr-serving-c": "machine openshift-machine-api/ci-worker-c", "csr-bootstrap-d": "machine openshift-machine-api/ci-worker-d"} {
		if v := inspect.CSRVouch(csrs[name], s.Nodes, s.Machines); !v.OK || !strings.HasPrefix(v.By, by) {
			t.Errorf("%s: vouch %+v, want by %s", name, v, by)
		}
	}
	if len(s.Machines) != 2 || s.Machines[0].NodeRef != "worker-c" || s.Machines[1].NodeRef != "" {
		t.Errorf("machines: %+v", s.Machines)
	}

	if g := s.AdminGates; g == nil || len(g.Gates) != 1 || g.Acks["ack-4.15-kube-1.29-api-removals-in-4.16"] != "true" || g.AcksUID != "admin-acks-uid" {
		t.Errorf("admin gates: %+v", s.AdminGates)
	}
	if len(s.APIRequestCounts) != 1 || s.APIRequestCounts[0] != (inspect.APIRequestCount{Name: "flowschemas.v1beta3.flowcontrol.apiserver.k8s.io", RemovedInRelease: "1.32", RequestCount: 1534, CurrentHour: 61}) {
		t.Errorf("API request counts: %+v", s.APIRequestCounts)
	}
	if len(s.Webhooks) != 2 || s.Webhooks[0].Kind != inspect.WebhookMutating || s.Webhooks[0].URL != "vault-injector.example.com:8443" || s.Webhooks[0].ReadyEndpoints != -1 ||
		s.Webhooks[1].Service != "gatekeeper-system/gatekeeper-webhook-service" || s.Webhooks[1].ReadyEndpoints != 0 || s.Webhooks[1].FailurePolicy != "Fail" {
		t.Errorf("webhooks: %+v", s.Webhooks)
	}
	if !reflect.DeepEqual(s.ServiceEndpoints, []inspect.ServiceEndpoints{{Namespace: "gatekeeper-system", Name: "gatekeeper-webhook-service", Ready: 0}}) {
		t.Errorf("service endpoints: %+v", s.ServiceEndpoints)
	}
	if len(s.AdmissionPolicies) != 1 || !reflect.DeepEqual(s.AdmissionPolicies[0].Bindings, []string{"require-team-label-binding: Deny"}) {
		t.Errorf("admission policies: %+v", s.AdmissionPolicies)
	}
	if len(s.Certificates) != 2 || s.Certificates[0].Name != openshift.KubeletSigner || s.Certificates[1].Name != "csr-signer" {
		t.Errorf("certificates: %+v", s.Certificates)
	}
	if c := s.CloudCredential; c == nil || c.Mode != openshift.CredentialsModeManual || c.UID != "cloudcredential-uid" {
		t.Errorf("cloud credential: %+v", s.CloudCredential)
	}
	var worker *inspect.MachineConfigPool
	for i := range s.MachineConfigPools {
		worker = &s.MachineConfigPools[i]
	}
	if worker == nil || worker.UID != "pool-worker-uid" || worker.Generation != 4 || worker.ObservedGeneration != 4 {
		t.Errorf("pool: %+v", worker)
	}
	assertNoSecretData(t, s)
}

// assertNoSecretData fails when any of the fixture Secrets' data (base64 or
// decoded) or a webhook URL's credentials appear in the snapshot.
func assertNoSecretData(t *testing.T, s *inspect.Snapshot) {
	t.Helper()
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"RECOVER-TEST", "UkVDT1ZFUi1URVNU", "t0ps3cret", "token=abc", "tls.key"} {
		if strings.Contains(string(data), secret) {
			t.Errorf("the snapshot holds %q", secret)
		}
	}
}

// The archive reader keeps every file the wedge facts need: a tar.gz of the
// fixture gives the same snapshot as the directory.
func TestWedgeMustGatherArchiveMatchesDirectory(t *testing.T) {
	dir := collect(t, New(wedges))
	arch := collect(t, New(tarOf(t, wedges, true)))
	if dir.Fingerprint() != arch.Fingerprint() {
		t.Errorf("archive fingerprint %s, directory %s", arch.Fingerprint(), dir.Fingerprint())
	}
	for _, s := range []*inspect.Snapshot{dir, arch} {
		// Paths differ (the archive wraps the tree); the facts must not.
		s.Source, s.Findings = inspect.SourceInfo{}, nil
		for i := range s.Resources {
			s.Resources[i].From = nil
		}
		for i := range s.Logs.Sources {
			s.Logs.Sources[i].From = nil
		}
	}
	a, _ := json.Marshal(dir)
	b, _ := json.Marshal(arch)
	if string(a) != string(b) {
		t.Fatalf("archive and directory differ:\n%s\n%s", a, b)
	}
}

func TestKeepAdmitsTheWedgeFiles(t *testing.T) {
	for name, want := range map[string]bool{
		"mg/namespaces/shop/policy/poddisruptionbudgets.yaml":                                           true,
		"mg/namespaces/shop/policy/poddisruptionbudgets/web.yaml":                                       true,
		"mg/namespaces/shop/pods/web-1/web-1.yaml":                                                      true,
		"mg/namespaces/shop/core/pods.yaml":                                                             true,
		"mg/namespaces/shop/pods/web-1/web/web/logs/current.log":                                        false,
		"mg/namespaces/openshift-machine-api/machine.openshift.io/machines/m.yaml":                      true,
		"mg/namespaces/shop/machine.openshift.io/machines.yaml":                                         false,
		"mg/namespaces/openshift-config/core/configmaps.yaml":                                           true,
		"mg/namespaces/openshift-config/core/configmaps/admin-acks.yaml":                                true,
		"mg/namespaces/openshift-config/core/configmaps/user-ca-bundle.yaml":                            false,
		"mg/namespaces/openshift-config-managed/core/configmaps/admin-gates.yaml":                       true,
		"mg/namespaces/shop/core/configmaps.yaml":                                                       false,
		"mg/namespaces/openshift-kube-apiserver-operator/core/secrets.yaml":                             true,
		"mg/namespaces/openshift-kube-controller-manager-operator/core/secrets/csr-signer.yaml":         true,
		"mg/namespaces/shop/core/secrets.yaml":                                                          false,
		"mg/namespaces/gatekeeper-system/discovery.k8s.io/endpointslices.yaml":                          true,
		"mg/cluster-scoped-resources/certificates.k8s.io/certificatesigningrequests/csr-1.yaml":         true,
		"mg/cluster-scoped-resources/admissionregistration.k8s.io/validatingwebhookconfigurations.yaml": true,
		"mg/cluster-scoped-resources/apiserver.openshift.io/apirequestcounts/x.yaml":                    true,
		"mg/cluster-scoped-resources/operator.openshift.io/cloudcredentials/cluster.yaml":               true,
	} {
		if got := keep(name); got != want {
			t.Errorf("keep(%s) = %v, want %v", name, got, want)
		}
	}
}

// A must-gather whose PDB namespace lacks its pods says so: the pods of drains
// are not collected, and a NotCollected finding names them.
func TestDrainPodsOfAMissingNamespace(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, wedges, dir)
	removeAll(t, dir, "namespaces/shop/pods")
	s := collect(t, New(dir))
	var pods inspect.ResourceStatus
	for _, r := range s.Resources {
		if r.Key() == inspect.ResPods.Key() {
			pods = r
		}
	}
	if pods.State != inspect.Absent || !strings.Contains(pods.Reason, "shop") || !has(s, inspect.CodeNotCollected, "resource/pods") {
		t.Fatalf("pods of drains: %+v", pods)
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
}

// removeAll removes rel below the must-gather root inside dir.
func removeAll(t *testing.T, dir, rel string) {
	t.Helper()
	root, err := FindRoot(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, root, rel)); err != nil {
		t.Fatal(err)
	}
}

// The examples predate the wedge facts; their fingerprints are those the plans
// made from them record (plan/render/testdata), so those plans still apply.
func TestExampleFingerprintsAreUnchangedByTheWedgeFacts(t *testing.T) {
	for path, want := range map[string]string{
		example1: "sha256:135fc395715e5e2cfbbafc6b3b282bced28e6062ef02861170becbfa5f4b65ce",
		example2: "sha256:44821171974b5aab83c5f4039f75dbbb756cc46057a462cd2ec15a727a9cf72e",
	} {
		if got := collect(t, New(path)).Fingerprint(); got != want {
			t.Errorf("%s: fingerprint %s, was %s", path, got, want)
		}
	}
}

func TestMalformedWedgeFileNamesFileAndLine(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, wedges, dir)
	root, err := FindRoot(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	for rel, body := range map[string]string{
		"namespaces/shop/policy/poddisruptionbudgets/web.yaml":                                       "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web}\nspec:\n  selector: [app]\n",
		"cluster-scoped-resources/certificates.k8s.io/certificatesigningrequests/csr-serving-c.yaml": "kind: CertificateSigningRequest\nmetadata:\n  name: x\n spec: {\n",
	} {
		t.Run(rel, func(t *testing.T) {
			p := filepath.Join(dir, root, rel)
			orig, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			defer os.WriteFile(p, orig, 0o600)
			if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err = New(dir).Collect(t.Context())
			assertInputError(t, err, filepath.Base(rel)+":")
		})
	}
}
