package payload

import (
	"bytes"
	"strings"
	"testing"
)

// TestNewReport numbers the included manifests in the CVO's order, counts the
// excluded ones, lists them unless includedOnly, and renders the table.
func TestNewReport(t *testing.T) {
	cm := func(name, ann string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  namespace: ns\n  annotations:\n" + ann
	}
	included := "    include.release.openshift.io/self-managed-high-availability: \"true\"\n"
	dir := writePayload(t, map[string]string{
		"release-manifests/0000_10_b_01_first.yaml": cm("first", included+"    release.openshift.io/create-only: \"true\"\n"),
		"release-manifests/0000_50_a_01_later.yaml": cm("later", included+"    release.openshift.io/delete: \"true\"\n"),
		"release-manifests/0000_50_a_02_other.yaml": cm("hypershift-only", "    include.release.openshift.io/ibm-cloud-managed: \"true\"\n"),
	})
	p, err := LoadDir(dir, Options{Inclusion: Inclusion{Profile: "self-managed-high-availability"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, includedOnly := range []bool{false, true} {
		r := NewReport(p, includedOnly)
		if r.FormatVersion != ReportFormat || r.Version != "4.4.9" || r.Included != 2 || r.Excluded != 1 || r.Stages != len(p.Order.Stages) {
			t.Fatalf("includedOnly=%v: %+v", includedOnly, r)
		}
		want := map[string]Row{
			"first": {Step: 1, Included: true, CreateOnly: true, RunLevel: "10", Component: "b"},
			"later": {Step: 2, Included: true, Delete: true, RunLevel: "50", Component: "a"},
		}
		if !includedOnly {
			want["hypershift-only"] = Row{Step: 0, Stage: -1, Group: -1, RunLevel: "50", Component: "a"}
		}
		if len(r.Manifests) != len(want) {
			t.Fatalf("includedOnly=%v: %d rows, want %d", includedOnly, len(r.Manifests), len(want))
		}
		for _, row := range r.Manifests {
			w := want[row.Name]
			if row.Step != w.Step || row.Included != w.Included || row.CreateOnly != w.CreateOnly || row.Delete != w.Delete || row.RunLevel != w.RunLevel || row.Component != w.Component {
				t.Errorf("row %+v, want %+v", row, w)
			}
			if !row.Included && (row.Stage != -1 || row.Group != -1 || row.Reason == "") {
				t.Errorf("excluded row %+v: no place in the order, and a reason", row)
			}
		}
		var buf bytes.Buffer
		if err := r.WriteTable(&buf); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, s := range []string{"2 included in", "1 excluded", "create-only; ", "delete; "} {
			if !strings.Contains(out, s) {
				t.Errorf("table lacks %q:\n%s", s, out)
			}
		}
		if strings.Contains(out, "hypershift-only") == includedOnly {
			t.Errorf("includedOnly=%v: the excluded manifest's row is wrongly shown or hidden:\n%s", includedOnly, out)
		}
	}
}
