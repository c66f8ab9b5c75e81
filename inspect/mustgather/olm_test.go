package mustgather

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// A CSV declaring olm.maxOpenShiftVersion is read into the snapshot; a copy
// OLM made in another namespace is the same operator, and a CSV without a
// maximum is not listed.
func TestCollectReadsTheOperatorsMaxOpenShiftVersion(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../examples/false-success-revision/must-gather")); err != nil {
		t.Fatal(err)
	}
	csv := func(ns, name, extra string) {
		p := filepath.Join(dir, "namespaces", ns, "operators.coreos.com", "clusterserviceversions", name+".yaml")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		body := "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: " + name + "\n  namespace: " + ns + "\n" + extra
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	props := "  annotations:\n    olm.properties: '[{\"type\":\"olm.maxOpenShiftVersion\",\"value\":\"4.5\"}]'\n"
	csv("openshift-logging", "elasticsearch-operator.4.4.0", props)
	csv("openshift-monitoring", "elasticsearch-operator.4.4.0", "  labels:\n    olm.copiedFrom: openshift-logging\n"+props)
	csv("openshift-logging", "cluster-logging.4.4.0", "  annotations:\n    olm.properties: '[{\"type\":\"olm.package\",\"value\":{\"packageName\":\"x\"}}]'\n")
	s, err := New(dir).Collect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.OLMOperators) != 1 || s.OLMOperators[0].Name != "elasticsearch-operator.4.4.0" || s.OLMOperators[0].MaxOpenShiftVersion != "4.5" {
		t.Fatalf("olm operators: %+v", s.OLMOperators)
	}
}
