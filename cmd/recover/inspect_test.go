package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

const (
	exampleReconciled   = "../../examples/reconciled-4.3-to-4.4/must-gather"
	exampleFalseSuccess = "../../examples/false-success-revision/must-gather"
)

func TestInspectExampleIncidentOne(t *testing.T) {
	code, out, errOut := runRecover(t, "inspect", "--must-gather", exampleReconciled)
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{
		"UpdateClaimedCompleteButMixed", "would run in Reconciling mode",
		"MixedOperatorVersions", "KubeletNewerThanAPIServer  node/master-0",
		"4.4.3   (5)", "4.3.19  (6)", // operators grouped by version
		"v1.17.1  (1)  master-0", // nodes grouped by kubelet
		"Oldest kube-apiserver: 1.16.2 (verified",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Index(out, "ERROR") > strings.Index(out, "WARNING") {
		t.Error("findings are not ordered by severity")
	}
}

func TestInspectExampleIncidentTwo(t *testing.T) {
	code, out, errOut := runRecover(t, "inspect", "--must-gather", exampleFalseSuccess, "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var s inspect.Snapshot
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("-o json is not a snapshot: %v", err)
	}
	if s.FormatVersion != inspect.FormatVersion || s.Summary == nil || s.Summary.Fingerprint == "" {
		t.Fatalf("snapshot header: %q %+v", s.FormatVersion, s.Summary)
	}
	for _, c := range []string{inspect.CodeStaticPodRevisionMismatch, inspect.CodeInstallerSucceededWithoutRevision} {
		fs := s.FindingsWithCode(c)
		if len(fs) != 1 || fs[0].Details["node"] != "master-2" || !strings.Contains(fs[0].Message, "master-2") {
			t.Errorf("%s: %+v", c, fs)
		}
	}
}

func TestInspectYAMLAndSavedSnapshot(t *testing.T) {
	code, out, _ := runRecover(t, "inspect", "--must-gather", exampleReconciled, "-o", "yaml")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	var s inspect.Snapshot
	if err := yaml.Unmarshal([]byte(out), &s); err != nil || s.Summary == nil {
		t.Fatalf("-o yaml: %v", err)
	}
	f := s.FindingsWithCode(inspect.CodeUpdateClaimedCompleteButMixed)
	if len(f) != 1 || f[0].Details["cvoMode"] != "Reconciling" {
		t.Fatalf("UpdateClaimedCompleteButMixed: %+v", f)
	}
	path := filepath.Join(t.TempDir(), "snapshot.json")
	_, js, _ := runRecover(t, "inspect", "--must-gather", exampleReconciled, "-o", "json")
	if err := os.WriteFile(path, []byte(js), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runRecover(t, "inspect", "--snapshot", path, "-o", "json")
	var back inspect.Snapshot
	if code != ExitOK || json.Unmarshal([]byte(out), &back) != nil || back.Summary.Fingerprint != s.Summary.Fingerprint {
		t.Fatalf("--snapshot round trip: exit %d, fingerprint %v vs %s", code, back.Summary, s.Summary.Fingerprint)
	}
}

// TestInspectStartsWithWhyStuck checks that every output leads with the wedge
// summary, its recover commands carrying the source flags inspect was run with.
func TestInspectStartsWithWhyStuck(t *testing.T) {
	next := "recover plan --must-gather " + exampleReconciled
	code, table, errOut := runRecover(t, "inspect", "--must-gather", exampleReconciled)
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if i, j := strings.Index(table, "WHY THIS CLUSTER IS STUCK: 2 cause(s) block the update"), strings.Index(table, "CLAIM (ClusterVersion)"); i < 0 || j < i {
		t.Errorf("the table does not start with the wedges:\n%.800s", table)
	}
	for _, want := range []string{"1. BLOCKS  UpdateClaimedCompleteButMixed  clusterversion/version", "next: " + next, "(blocks-update)"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q", want)
		}
	}
	code, md, errOut := runRecover(t, "inspect", "--must-gather", exampleReconciled, "-o", "markdown")
	if code != ExitOK {
		t.Fatalf("-o markdown: exit %d, stderr %q", code, errOut)
	}
	if !strings.HasPrefix(md, "# recover inspect: cluster 5c2d3e0a-9b1f-4f6e-8d8a-1f2b3c4d5e6f\n") {
		t.Errorf("markdown title: %.100q", md)
	}
	for _, want := range []string{
		"## Why this cluster is stuck\n\n1. **UpdateClaimedCompleteButMixed** (blocks the update): ClusterVersion says 4.4.3 is Completed",
		"   - Next: `" + next + "`",
		"## Claim: ClusterVersion", "### Operators by version", "### ERROR KubeletNewerThanAPIServer `node/master-0`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if strings.Index(md, "## Why this cluster is stuck") > strings.Index(md, "## Claim: ClusterVersion") {
		t.Error("the wedges are not first in the markdown report")
	}
	_, js, _ := runRecover(t, "inspect", "--must-gather", exampleReconciled, "-o", "json")
	var s inspect.Snapshot
	if err := json.Unmarshal([]byte(js), &s); err != nil || len(s.Wedges) == 0 {
		t.Fatalf("-o json has no wedges: %v", err)
	}
	if w := s.Wedges[0]; w.Rank != 1 || w.Code != inspect.CodeUpdateClaimedCompleteButMixed || w.Class != inspect.ClassBlocks || w.Next != "recover plan" {
		t.Errorf("first wedge in JSON: %+v", w)
	}
	for _, f := range s.Findings {
		if f.Class == "" {
			t.Errorf("%s on %s has no class in -o json", f.Code, f.Subject)
		}
	}
}

func TestInspectErrors(t *testing.T) {
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "cluster-scoped-resources", "core", "nodes")
	if err := os.MkdirAll(corrupt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(corrupt, "m.yaml"), []byte("kind: Node\nmetadata: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"inspect", "--must-gather", filepath.Join(dir, "nope")}, ExitBadInput, "nope"},
		{[]string{"inspect", "--must-gather", dir}, ExitBadInput, "nodes/m.yaml"},
		{[]string{"inspect", "--insights-archive", dir}, ExitBadInput, "not an Insights archive"},
		{[]string{"inspect", "--snapshot", filepath.Join(dir, "cluster-scoped-resources", "core", "nodes", "m.yaml")}, ExitBadInput, "not a recover snapshot"},
		{[]string{"inspect", "--must-gather", dir, "--insights-archive", dir}, ExitUsage, "cannot be combined"},
		{[]string{"inspect", "-o", "xml", "--must-gather", dir}, ExitUsage, "unsupported output format"},
		{[]string{"inspect", "--kubeconfig", filepath.Join(dir, "no-kubeconfig")}, ExitCluster, "no cluster to inspect"},
	} {
		code, _, errOut := runRecover(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d (want %d), stderr %q (want one line with %q)", tc.args, code, tc.code, errOut, tc.want)
		}
	}
}

// TestInspectPlainKubernetesIsNotOpenShift runs inspect against a real
// kube-apiserver without the OpenShift CRDs.
func TestInspectPlainKubernetesIsNotOpenShift(t *testing.T) {
	env := apiServer(t, kubetest.Options{SkipCRDs: true})
	code, _, errOut := runRecover(t, "inspect", "--kubeconfig", env.Kubeconfig)
	if code != ExitCluster || !strings.Contains(errOut, "not an OpenShift 4 cluster") {
		t.Fatalf("exit %d, stderr %q; want %d and 'not an OpenShift 4 cluster'", code, errOut, ExitCluster)
	}
}
