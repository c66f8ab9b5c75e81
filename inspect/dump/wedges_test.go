package dump

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/testing/shareddata"
)

// `oc get nodes,pdb,pods -A,csr,secrets -o yaml` style dumps feed the wedge facts;
// Secret data never reaches the snapshot.
func TestDumpOfWedgeKinds(t *testing.T) {
	p := filepath.Join(t.TempDir(), "wedge.yaml")
	if err := os.WriteFile(p, []byte(`apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: worker-1
    annotations:
      machineconfiguration.openshift.io/desiredDrain: drain-rendered-worker-2
      machineconfiguration.openshift.io/lastAppliedDrain: uncordon-rendered-worker-1
  spec: {unschedulable: true}
- apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata: {name: db, namespace: shop}
  spec: {minAvailable: 1, selector: {matchLabels: {app: db}}}
  status: {currentHealthy: 1, desiredHealthy: 1, disruptionsAllowed: 0, expectedPods: 1}
- apiVersion: v1
  kind: Pod
  metadata: {name: db-0, namespace: shop, labels: {app: db}}
  spec: {nodeName: worker-1}
  status: {phase: Running}
- apiVersion: certificates.k8s.io/v1
  kind: CertificateSigningRequest
  metadata: {name: csr-x}
  spec: {signerName: kubernetes.io/kubelet-serving, username: "system:node:worker-1", request: bm9wZQ==}
- apiVersion: v1
  kind: Secret
  metadata:
    name: kube-apiserver-to-kubelet-signer
    namespace: openshift-kube-apiserver-operator
    annotations: {auth.openshift.io/certificate-not-after: "2024-03-05T10:00:00Z"}
  data: {tls.key: UkVDT1ZFUi1EVU1QLVNFQ1JFVA==}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := New(p).Collect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.DrainPods) != 1 || s.DrainPods[0].Name != "db-0" || len(s.CertificateSigningRequests) != 1 || s.CertificateSigningRequests[0].ParseError == "" || len(s.Certificates) != 1 {
		t.Fatalf("drain pods %+v, CSRs %+v, certificates %+v", s.DrainPods, s.CertificateSigningRequests, s.Certificates)
	}
	st := map[string]inspect.ResourceStatus{}
	for _, r := range s.Resources {
		st[r.Key()] = r
	}
	for key, want := range map[string]inspect.CollectionState{
		"poddisruptionbudgets.policy": inspect.Collected, "pods": inspect.Collected, "certificatesigningrequests.certificates.k8s.io": inspect.Collected,
		"secrets/openshift-kube-apiserver-operator": inspect.Collected, "secrets/openshift-kube-controller-manager-operator": inspect.Absent,
		"machines.machine.openshift.io/openshift-machine-api": inspect.Absent, "endpointslices.discovery.k8s.io": inspect.Collected,
	} {
		if st[key].State != want {
			t.Errorf("%s: %s, want %s", key, st[key].State, want)
		}
	}
	data, _ := json.Marshal(s)
	if strings.Contains(string(data), "UkVDT1ZFUi1EVU1Q") || strings.Contains(string(data), "RECOVER-DUMP") {
		t.Error("the snapshot holds the Secret's data")
	}
}

// The real cluster of `oc adm upgrade status`'s pdb-prohibits-draining example:
// its nodes' drain annotations and creation times are read; 12 nodes drain (desiredDrain asks for a
// drain lastAppliedDrain does not record), as oc reports.
func TestRealPDBProhibitsDrainingNodes(t *testing.T) {
	dir := filepath.Join(shareddata.RealData(t, ""), "oc-upgrade-status-examples")
	files, err := filepath.Glob(filepath.Join(dir, "4.16.0-ec2-control-plane-updated-pdb-prohibits-draining-*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("files: %v %v", files, err)
	}
	s, err := New(files...).Collect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	draining, trouble, annotated := 0, 0, 0
	for i := range s.Nodes {
		n := &s.Nodes[i]
		if n.Created.IsZero() {
			t.Fatalf("node %s has no creation time: %+v", n.Name, n)
		}
		if n.DesiredDrain != "" && n.LastAppliedDrain != "" {
			annotated++
		}
		if n.Draining() {
			draining++
		}
		if n.DrainTrouble() {
			trouble++
		}
	}
	if draining != 12 || trouble < draining || annotated < len(s.Nodes)-2 {
		t.Errorf("%d nodes draining (oc: 12), %d with drain trouble, %d of %d with drain annotations", draining, trouble, annotated, len(s.Nodes))
	}
	// The example holds no PDBs or pods: the drain pods stay unknown, not empty.
	for _, r := range s.Resources {
		if r.Key() == "poddisruptionbudgets.policy" && r.State != inspect.Absent {
			t.Errorf("PDBs: %+v", r)
		}
	}
}
