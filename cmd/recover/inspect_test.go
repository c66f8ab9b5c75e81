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
		{[]string{"inspect", "-o", "markdown", "--must-gather", dir}, ExitUsage, "unsupported output format"},
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
