package inspect_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/dump"
	"github.com/openshift-recover/recover/internal/testing/golden"
	"github.com/openshift-recover/recover/internal/testing/shareddata"
)

// ocExample reads one of oc's `oc adm upgrade status` example clusters (4.14 to
// 4.20, ../shared/realdata/oc-upgrade-status-examples) from its `oc get -o yaml`
// dumps. The data stays outside the repository; the test skips without it.
func ocExample(t *testing.T, name string) *inspect.Snapshot {
	t.Helper()
	dir := shareddata.RealData(t, "oc-upgrade-status-examples")
	var files []string
	for _, kind := range []string{"co", "cv", "mcp", "node", "mc"} {
		if p := filepath.Join(dir, name+"-"+kind+".yaml"); fileExists(p) {
			files = append(files, p)
		}
	}
	if len(files) == 0 {
		t.Skipf("oc example %s: no dumps in %s", name, dir)
	}
	s, err := dump.New(files...).Collect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// modernExamples are oc's example clusters from 4.14 to 4.20, each with the
// wedge its summary must name first.
var modernExamples = []struct{ name, first string }{
	{"4.14.1-degraded", ""},
	{"4.14.1-paused-worker-pool", ""},
	{"4.14.1-workers-started-updating-multiple-pools", ""},
	{"4.15.0-ec2-b02-cos-not-annotated", ""},
	{"4.15.0-ec2-early", ""},
	{"4.15.0-ec2-unavailable-mco-20m", ""},
	{"4.16.0-compact", ""},
	{"4.16.0-ec2-control-plane-updated-pdb-prohibits-draining", ""},
	{"4.16.0-single-node", ""},
	{"ocpbugs-60768", inspect.CodeNodeDegraded + " node/ci-op-pw3ghqzh-bb5c4-pdhfc-master-1"},
	{"no-version-upgrading", ""},
	{"not-upgrading", ""},
	{"to-multi-arch", ""},
}

// TestModernExampleWedges pins the wedge summary recover gives each of oc's
// modern example clusters (testdata/modern-wedges/<example>.golden: rank,
// class, cause, subjects, summary, next), causes before effects.
func TestModernExampleWedges(t *testing.T) {
	for _, ex := range modernExamples {
		t.Run(ex.name, func(t *testing.T) {
			s := ocExample(t, ex.name)
			ws := s.WhyStuck()
			var b strings.Builder
			for _, w := range ws {
				fmt.Fprintf(&b, "%d. %s %s %s\n   %s\n   next: %s\n", w.Rank, w.Class, w.Code, strings.Join(w.Subjects, ","), w.Summary, w.Next)
			}
			golden.Assert(t, filepath.Join("testdata", "modern-wedges", ex.name+".golden"), []byte(b.String()))
			if ex.first != "" && (len(ws) == 0 || ws[0].Code+" "+ws[0].Subjects[0] != ex.first) {
				t.Errorf("first wedge: got %+v, want %s", ws, ex.first)
			}
		})
	}
}

// TestNodeOutranksTheOperatorsItDegrades: on oc's real 4.20 cluster
// ocpbugs-60768 a master cordoned for its update cannot pull the OS image;
// authentication and openshift-apiserver are each one of three instances short
// (library-go's workload controller). The node is the cause: one blocking line,
// the node's, that explains both operators.
func TestNodeOutranksTheOperatorsItDegrades(t *testing.T) {
	s := ocExample(t, "ocpbugs-60768")
	b := s.Blocking()
	if len(b) != 1 || b[0].Code != inspect.CodeNodeDegraded {
		t.Fatalf("blocking wedges: %+v, want one NodeDegraded line", b)
	}
	for _, co := range []string{"clusteroperator/authentication", "clusteroperator/openshift-apiserver", "clusteroperator/machine-config"} {
		if !contains(b[0].Subjects, co) {
			t.Errorf("the node's line does not explain %s: %+v", co, b[0])
		}
	}
}
