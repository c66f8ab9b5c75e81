package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/plan/graph"
	"github.com/openshift-recover/recover/plan/payload"
)

const (
	exampleDir   = "../../examples/reconciled-4.3-to-4.4"
	exampleGraph = exampleDir + "/graph.json"
	exampleData  = exampleDir + "/graph-data"
)

func TestGraphCommand(t *testing.T) {
	args := []string{"graph", "--graph", exampleGraph, "--graph-data", exampleData, "--channel", "stable-4.4"}
	code, out, errOut := runRecover(t, append(args, "--from", "4.3.19")...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"5 releases; edges: 8 supported, 0 conditional, 2 blocked", "EDGES FROM 4.3.19", "4.4.3  blocked", "blocked-edges/4.4.3.yaml: Updates from 4.3 to 4.4.3", "4.4.4  supported"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runRecover(t, append(args, "--from", "4.3.19", "--to", "4.4.4", "-o", "json")...)
	var r graph.Report
	if code != ExitOK || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("json: exit %d %s", code, out)
	}
	if r.FormatVersion != "1.0" || r.Path == nil || len(r.Path.Hops) != 1 || r.Edge == nil || r.Edge.State != graph.EdgeSupported || !strings.HasPrefix(r.Digest, "sha256:") {
		t.Fatalf("report: %+v", r)
	}
	code, out, _ = runRecover(t, append(args, "--from", "4.3.19", "--to", "4.4.3", "-o", "json")...)
	r = graph.Report{}
	if code != ExitOK || json.Unmarshal([]byte(out), &r) != nil || r.Path != nil || r.Edge.State != graph.EdgeBlocked || r.Edge.BlockedBy[0].Name != "EtcdInstallerPodFailed" || !strings.Contains(r.NoPath, "no supported update path") {
		t.Fatalf("blocked: exit %d %+v", code, r)
	}
	code, out, _ = runRecover(t, append(args, "--to", "4.4.5", "-o", "yaml")...)
	if code != ExitOK || !strings.Contains(out, "edgesTo:") || !strings.Contains(out, "from: 4.4.4") {
		t.Fatalf("yaml: exit %d %s", code, out)
	}
	code, out, _ = runRecover(t, args...)
	if code != ExitOK || !strings.Contains(out, "4.3.18 4.3.19 4.4.3 4.4.4 4.4.5") {
		t.Fatalf("versions: %s", out)
	}
}

func TestPayloadCommand(t *testing.T) {
	dir := exampleDir + "/releases/4.4.4"
	code, out, errOut := runRecover(t, "payload", "--payload", dir)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"release 4.4.4 (from release-metadata), rules library-go", "91 included in 7 stages, 1 excluded", "STEP  STAGE", "Job: barrier", "excluded  \"Default\" is required"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q", want)
		}
	}
	code, out, _ = runRecover(t, "payload", "--payload", dir, "--exclude-manifests", "internal-openshift-hosted", "--capabilities", "Console", "--known-capabilities", "Console,openshift-samples", "-o", "json")
	var r payload.Report
	if code != ExitOK || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("json: exit %d %s", code, out)
	}
	byName := map[string]payload.Row{}
	for _, m := range r.Manifests {
		byName[m.Kind+"/"+m.Name] = m
	}
	if m := byName["Deployment/kube-apiserver-operator"]; m.Included || m.Rule != "exclude" || m.Step != 0 || m.Stage != -1 {
		t.Fatalf("hosted KAS deployment: %+v", m)
	}
	if m := byName["ClusterOperator/openshift-samples"]; m.Included || m.Rule != "capability" {
		t.Fatalf("samples: %+v", m)
	}
	if m := byName["ClusterOperator/openshift-apiserver"]; !m.Included || m.Step == 0 || m.RunLevel != "30" {
		t.Fatalf("openshift-apiserver: %+v", m)
	}
	// --capabilities without --known-capabilities: every capability the CVO
	// knows is known, so one left out is disabled (the CVO's and library-go's
	// "disabled capabilities: X"), never "unrecognized capability names".
	code, out, _ = runRecover(t, "payload", "--payload", dir, "--capabilities", "Console", "-o", "json")
	r = payload.Report{}
	if code != ExitOK || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("json: exit %d %s", code, out)
	}
	for _, m := range r.Manifests {
		if m.Kind == "ClusterOperator" && m.Name == "openshift-samples" {
			if m.Included || m.Rule != "capability" || m.Reason != "disabled capabilities: openshift-samples" {
				t.Fatalf("samples without --known-capabilities: %+v", m)
			}
		}
	}
	code, out, _ = runRecover(t, "payload", "--payload", dir, "--included-only", "-o", "json")
	r = payload.Report{}
	if code != ExitOK || json.Unmarshal([]byte(out), &r) != nil || len(r.Manifests) != r.Included || r.Excluded != 1 {
		t.Fatalf("included-only: %d rows, %d included", len(r.Manifests), r.Included)
	}
	for i, m := range r.Manifests {
		if m.Step != i+1 {
			t.Fatalf("row %d has step %d: rows are in apply order", i, m.Step)
		}
	}
}

// TestGraphAndPayloadBadInput: bad input is one line on stderr and exit 4; a
// missing flag is a usage error.
func TestGraphAndPayloadBadInput(t *testing.T) {
	tmp := t.TempDir()
	badGraph := filepath.Join(tmp, "graph.json")
	_ = os.WriteFile(badGraph, []byte(`{"nodes": [{"version": "4.4.3"}], "edges": [[0, 7]]}`), 0o644)
	bare := filepath.Join(tmp, "payload")
	_ = os.MkdirAll(filepath.Join(bare, "manifests"), 0o755)
	_ = os.MkdirAll(filepath.Join(bare, "release-manifests"), 0o755)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"graph", "--graph", badGraph}, ExitBadInput, "edges[0]: node index 7 is outside the 1 nodes"},
		{[]string{"graph", "--graph", filepath.Join(tmp, "nope.json")}, ExitBadInput, "cannot read graph"},
		{[]string{"graph", "--graph", exampleGraph, "--graph-data", exampleData, "--from", "4.4.99"}, ExitBadInput, "version 4.4.99 is not in the graph"},
		{[]string{"graph", "--graph", exampleGraph, "--graph-data", exampleData, "--channel", "fast-9.9"}, ExitBadInput, "channel \"fast-9.9\" has no amd64 releases"},
		{[]string{"graph"}, ExitUsage, "--graph is required"},
		{[]string{"payload", "--payload", bare}, ExitBadInput, "release-manifests/release-metadata: missing"},
		{[]string{"payload"}, ExitUsage, "--payload is required"},
		{[]string{"payload", "--payload", bare, "--rules", "whatever"}, ExitUsage, "unknown --rules"},
	} {
		code, _, errOut := runRecover(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.HasPrefix(errOut, "error: ") {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q on one line", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}
