package sim

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteMustGatherHoldsTheWedgeObjects: a must-gather written from the running
// simulator holds what the wedges need, in oc adm inspect's layout, and reads back.
func TestWriteMustGatherHoldsTheWedgeObjects(t *testing.T) {
	h := exampleHarness(t, "csr-pending")
	dir := t.TempDir()
	if err := h.sim.WriteMustGather(h.ctx, dir); err != nil {
		t.Fatal(err)
	}
	objs, err := ReadMustGather(dir)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, u := range objs {
		count[u.GetKind()]++
		if u.GetKind() == "Secret" {
			t.Errorf("the must-gather holds a secret: %s/%s", u.GetNamespace(), u.GetName())
		}
		if len(u.GetManagedFields()) > 0 {
			t.Errorf("%s %s keeps its managed fields", u.GetKind(), u.GetName())
		}
	}
	for kind, want := range map[string]int{"CertificateSigningRequest": 2, "Machine": 6, "ConfigMap": 2, "Node": 5, "MachineConfigPool": 2, "ClusterVersion": 1, "KubeAPIServer": 1} {
		if count[kind] != want {
			t.Errorf("%d %s objects, want %d (all: %v)", count[kind], kind, want, count)
		}
	}
	for _, rel := range []string{
		"cluster-scoped-resources/certificates.k8s.io/certificatesigningrequests",
		"namespaces/openshift-machine-api/machine.openshift.io/machines.yaml",
		"namespaces/openshift-config-managed/core/configmaps.yaml",
		"namespaces/openshift-machine-api/openshift-machine-api.yaml",
		"timestamp",
	} {
		if _, err := os.Stat(filepath.Join(dir, rel)); err != nil {
			t.Errorf("the must-gather lacks %s: %v", rel, err)
		}
	}
}
