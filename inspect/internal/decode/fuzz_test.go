package decode

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/testing/inputcheck"
)

// FuzzDocuments feeds arbitrary bytes to the object reader every offline source
// uses (must-gather, Insights, oc get dumps): Documents splits them, Add decodes
// each document into the snapshot builder, and Finish analyses the result. A
// failure must be a one-line bad-input error; a snapshot must render and
// round-trip through JSON (docs/reliability.md).
func FuzzDocuments(f *testing.F) {
	mg := filepath.Join("..", "..", "..", "examples", "reconciled-4.3-to-4.4", "must-gather")
	for _, rel := range []string{
		"cluster-scoped-resources/config.openshift.io/clusterversions/version.yaml",
		"cluster-scoped-resources/config.openshift.io/clusteroperators/kube-controller-manager.yaml",
		"cluster-scoped-resources/machineconfiguration.openshift.io/machineconfigpools/master.yaml",
		"cluster-scoped-resources/core/nodes/master-1.yaml",
		"namespaces/openshift-cluster-version/apps/deployments.yaml",
		"namespaces/openshift-kube-apiserver-operator/apps/deployments.yaml",
	} {
		data, err := os.ReadFile(filepath.Join(mg, rel))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(0))
	}
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n- {kind: Node, metadata: {name: a}}\n- {metadata: {name: b}}\n---\nkind: PodList\nitems: [{metadata: {name: p, namespace: openshift-etcd, labels: {revision: '3'}}, spec: {nodeName: a}}]\n"), uint8(0))
	f.Add([]byte(`{"kind":"ClusterOperatorList","items":[{"metadata":{"name":""}}]}`), uint8(3))
	f.Add([]byte(`{"kind":"KubeAPIServer","status":{"latestAvailableRevision":9,"nodeStatuses":[{"nodeName":"m","currentRevision":"x"}]}}`), uint8(0))
	f.Add([]byte("kind: Node\nmetadata: {name: a}\nstatus: {nodeInfo: {kubeletVersion: v1.17.1-rc.0+abc}}\n"), uint8(9))
	f.Add([]byte("kind: ClusterVersion\nstatus: {history: [{state: Completed, version: '4.4.3'}], desired: {version: 4.4.3}}\n"), uint8(0))
	f.Add([]byte("kind: Pod\n---\nkind: Deployment\n"), uint8(10))
	f.Add([]byte("{\"kind\": 1}"), uint8(0))
	f.Add([]byte("\t- : :\n"), uint8(0))
	// The wedge kinds (formatVersion 1.1), from the must-gather fixture.
	wedges := filepath.Join("..", "..", "mustgather", "testdata", "wedges", "must-gather.local.7", "quay-io-openshift-release-dev-must-gather")
	for _, rel := range []string{
		"namespaces/openshift-etcd/policy/poddisruptionbudgets.yaml",
		"namespaces/openshift-etcd/core/pods.yaml",
		"cluster-scoped-resources/certificates.k8s.io/certificatesigningrequests/csr-serving-c.yaml",
		"cluster-scoped-resources/admissionregistration.k8s.io/mutatingwebhookconfigurations.yaml",
		"namespaces/openshift-kube-apiserver-operator/core/secrets.yaml",
		"namespaces/gatekeeper-system/discovery.k8s.io/endpointslices.yaml",
	} {
		data, err := os.ReadFile(filepath.Join(wedges, rel))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(0))
	}
	f.Add([]byte(`{"TypeMeta":{},"ObjectMeta":{"name":"csr-1"},"Spec":{"Username":"u"},"Status":{"Conditions":[{"type":"Approved"}],"Cert":{}}}`), uint8(0))
	f.Add([]byte("kind: PodDisruptionBudget\napiVersion: policy/v1beta1\nmetadata: {name: p, namespace: n}\nspec: {selector: {}}\n"), uint8(0))
	// want is the kind a source expects at a path ("" for oc get dumps).
	kinds := []string{""}
	for _, r := range inspect.ClusterResources {
		kinds = append(kinds, r.Kind)
	}
	kinds = append(kinds, "Pod", "Deployment")
	for _, w := range inspect.WedgeResources() {
		kinds = append(kinds, w.Resource.Kind)
	}
	f.Fuzz(func(t *testing.T, data []byte, kind uint8) {
		want := kinds[int(kind)%len(kinds)]
		b := inspect.NewBuilder(inspect.SourceDump, "fuzz.yaml")
		var err error
		inputcheck.Within(t, 20*time.Second, "Documents and Add", func() {
			var docs []Doc
			if docs, err = Documents("fuzz.yaml", data); err != nil {
				return
			}
			for _, d := range docs {
				if _, _, err = Add(b, d, want); err != nil {
					return
				}
				_ = Namespace(d)
			}
		})
		if err != nil {
			if p := inputcheck.Problem(err); p != "" {
				t.Fatal(p)
			}
			return
		}
		var s *inspect.Snapshot
		inputcheck.Within(t, 20*time.Second, "Finish", func() { s = b.Finish() })
		if p := inputcheck.SnapshotProblem(s); p != "" {
			t.Fatal(p)
		}
	})
}
