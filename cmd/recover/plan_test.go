package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift-recover/recover/inspect/mustgather"
	"github.com/openshift-recover/recover/internal/testing/cachetest"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/planfile"
)

// quickstart is the README's first command, as written there.
var quickstart = []string{"plan",
	"--must-gather", exampleDir + "/must-gather",
	"--graph", exampleGraph,
	"--graph-data", exampleData, "--channel", "stable-4.4",
	"--payload", exampleDir + "/releases/4.4.4"}

func TestPlanQuickstart(t *testing.T) {
	code, out, errOut := runRecover(t, quickstart...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"Plan: 4.3.19 + 4.4.3 -> 4.4.4, 102 steps",
		"claims:    4.4.3 Completed; a restarted CVO would run in Reconciling mode",
		"TARGET 4.4.4  quay.io/openshift-release-dev/ocp-release@sha256:baa687f29b0ac155d8f4c6914056d36d68f343feb9c1e82b46eef95819d00be5",
		"4.4.3    rejected  6 (6 minor, 18 patch)   blocked-edge",
		"002-pause-pool-master",
		"035-wait-static-pods-kube-apiserver",
		"102-restore-cvo",
		"-o json > plan.json",
		"recover apply --plan plan.json --dry-run",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if errOut != "" {
		t.Errorf("stderr: %q", errOut)
	}
}

func TestPlanJSONIsWhatApplyExecutes(t *testing.T) {
	code, out, errOut := runRecover(t, append(quickstart, "-o", "json")...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	path := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(path, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	p, digest, err := planfile.Load(path)
	if err != nil {
		t.Fatalf("apply refuses recover plan -o json: %v", err)
	}
	if p.FormatVersion != planfile.FormatVersion || p.Target.Version != "4.4.4" || !strings.HasPrefix(digest, "sha256:") || len(p.Alternatives) != 4 {
		t.Fatalf("plan %s %s, %d alternatives", p.FormatVersion, p.Target.Version, len(p.Alternatives))
	}
	if !strings.HasPrefix(p.Generator, "recover ") || p.Inputs.Snapshot.Source != "must-gather:"+exampleDir+"/must-gather" {
		t.Fatalf("generator %q inputs %+v", p.Generator, p.Inputs.Snapshot)
	}
}

func TestPlanYAMLAndMarkdown(t *testing.T) {
	code, out, _ := runRecover(t, append(quickstart, "-o", "yaml")...)
	if code != ExitOK || !strings.Contains(out, "kind: RecoveryPlan") || !strings.Contains(out, `formatVersion: "`+planfile.FormatVersion+`"`) {
		t.Fatalf("yaml: exit %d\n%.300s", code, out)
	}
	code, out, _ = runRecover(t, append(quickstart, "-o", "markdown")...)
	if code != ExitOK || !strings.HasPrefix(out, "# Recovery plan: 4.3.19 + 4.4.3 to 4.4.4") || !strings.Contains(out, "## Roll back the CVO state") {
		t.Fatalf("markdown: exit %d\n%.300s", code, out)
	}
}

// writeGraph writes an update-service graph: 4.3.19 -> 4.4.4 conditional on
// EtcdSlow, 4.4.3 -> 4.4.4 supported.
func writeGraph(t *testing.T) string {
	t.Helper()
	doc := `{"version":1,"nodes":[
 {"version":"4.3.19","payload":"quay.io/openshift-release-dev/ocp-release@sha256:28c451bfb531e5af71332a933073a2d97673ed157150bacb014a4358501f05ad","metadata":{"io.openshift.upgrades.graph.release.channels":"stable-4.4"}},
 {"version":"4.4.3","payload":"quay.io/openshift-release-dev/ocp-release@sha256:039a4ef7c128a049ccf916a1d68ce93e8f5494b44d5a75df60c85e9e7191dacc","metadata":{"io.openshift.upgrades.graph.release.channels":"stable-4.4"}},
 {"version":"4.4.4","payload":"quay.io/openshift-release-dev/ocp-release@sha256:baa687f29b0ac155d8f4c6914056d36d68f343feb9c1e82b46eef95819d00be5","metadata":{"io.openshift.upgrades.graph.release.channels":"stable-4.4"}}],
 "edges":[[1,2]],
 "conditionalEdges":[{"edges":[{"from":"4.3.19","to":"4.4.4"}],"risks":[{"name":"EtcdSlow","url":"https://issues.example/1","message":"etcd may be slow.","matchingRules":[{"type":"Always"}]}]}]}`
	path := filepath.Join(t.TempDir(), "graph.json")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestPlanUnacceptedRisksExit3(t *testing.T) {
	args := []string{"plan", "--must-gather", exampleDir + "/must-gather", "--graph", writeGraph(t), "--channel", "stable-4.4", "--payload", exampleDir + "/releases/4.4.4"}
	code, out, errOut := runRecover(t, args...)
	if code != ExitRisksNotAccepted {
		t.Fatalf("exit %d, want %d: %s", code, ExitRisksNotAccepted, errOut)
	}
	for _, want := range []string{"CANDIDATES", "4.4.4    demoted", "unaccepted-risk", "RISKS (name them with --accept once reviewed)", "EtcdSlow: etcd may be slow.", "--accept EtcdSlow"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if !strings.HasPrefix(errOut, "error: no safe target without accepting risks: 4.4.4 qualifies only with --accept EtcdSlow") || strings.Count(errOut, "\n") != 1 {
		t.Fatalf("stderr %q", errOut)
	}
	code, out, _ = runRecover(t, append(args, "-o", "json")...)
	var r plan.NoTargetReport
	if code != ExitRisksNotAccepted || json.Unmarshal([]byte(out), &r) != nil || r.ExitCode != 3 || len(r.Candidates) != 3 || r.Risks[0] != "EtcdSlow" {
		t.Fatalf("json: exit %d %s", code, out)
	}
	code, out, errOut = runRecover(t, append(args, "--accept", "EtcdSlow", "-o", "json")...)
	var p planfile.Plan
	if code != ExitOK || json.Unmarshal([]byte(out), &p) != nil || len(p.Target.AcceptedRisks) != 1 || p.Inputs.Accepted[0] != "EtcdSlow" {
		t.Fatalf("accepted: exit %d %s %s", code, errOut, out)
	}
}

func writePolicy(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(path, []byte("apiVersion: recover.openshift.io/v1alpha1\nkind: TransitionPolicy\n"+body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestPlanNoSafeTargetExit6(t *testing.T) {
	pol := writePolicy(t, "maxMinorHop: 0\n")
	code, out, errOut := runRecover(t, append(quickstart, "--policy", pol)...)
	if code != ExitNoSafeTarget {
		t.Fatalf("exit %d, want %d: %s", code, ExitNoSafeTarget, errOut)
	}
	if !strings.Contains(out, "CANDIDATES") || !strings.Contains(out, "4.4.4    rejected  11 (6 minor, 29 patch)  minor-hop-too-large") {
		t.Fatalf("stdout:\n%s", out)
	}
	if !strings.HasPrefix(errOut, "error: no release satisfies the policy; nearest 4.3.19 is rejected by no-cross-minor-downgrade") {
		t.Fatalf("stderr %q", errOut)
	}
}

func TestPlanPolicyOverrideIsRecorded(t *testing.T) {
	pol := writePolicy(t, "kubeletSkew: Upstream\n")
	code, out, errOut := runRecover(t, append(quickstart, "--policy", pol, "-o", "json")...)
	var p planfile.Plan
	if code != ExitOK || json.Unmarshal([]byte(out), &p) != nil {
		t.Fatalf("exit %d %s", code, errOut)
	}
	if p.Inputs.Policy == nil || p.Inputs.Policy.Source != pol || p.Inputs.Policy.Digest == "" || !strings.Contains(strings.Join(p.Target.Reasons, " "), "upstream limit") {
		t.Fatalf("policy input %+v reasons %v", p.Inputs.Policy, p.Target.Reasons)
	}
}

func TestPlanBadInputExit4(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"policy with an unknown field", append(append([]string(nil), quickstart...), "--policy", writePolicy(t, "maxMinorHops: 1\n")), `unknown field "maxMinorHops"`},
		{"policy file missing", append(append([]string(nil), quickstart...), "--policy", "/nonexistent/policy.yaml"), "cannot read policy"},
		{"payload of another release", []string{"plan", "--must-gather", exampleDir + "/must-gather", "--graph", exampleGraph, "--graph-data", exampleData, "--channel", "stable-4.4", "--payload", exampleDir + "/releases/4.4.3"},
			"--payload quay.io/openshift-release-dev/ocp-release@sha256:baa687f29b0ac155d8f4c6914056d36d68f343feb9c1e82b46eef95819d00be5"},
		{"graph missing", []string{"plan", "--must-gather", exampleDir + "/must-gather", "--graph", "/nonexistent/graph.json", "--channel", "stable-4.4"}, "/nonexistent/graph.json"},
		{"must-gather missing", []string{"plan", "--must-gather", "/nonexistent/mg", "--graph", exampleGraph}, "/nonexistent/mg"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runRecover(t, tc.args...)
			if code != ExitBadInput || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
				t.Fatalf("exit %d, stderr %q; want %d with %q", code, errOut, ExitBadInput, tc.want)
			}
		})
	}
}

func TestPlanUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"plan", "--must-gather", "x", "--graph-data", "d"},
		{"plan", "--must-gather", "x", "--graph", "g", "--payload-version", "4.4.4"},
		{"plan", "--must-gather", "x", "--snapshot", "y"},
		{"plan", "-o", "xml"},
	} {
		if code, _, errOut := runRecover(t, args...); code != ExitUsage {
			t.Errorf("%v: exit %d (%s), want %d", args, code, errOut, ExitUsage)
		}
	}
}

// TestPlanForceReason uses a saved snapshot (recover inspect -o json) with
// Upgradeable=False and a policy that forces minor hops through it: the plan needs
// --force-reason (exit 2 without), and records it.
func TestPlanForceReason(t *testing.T) {
	s, err := mustgather.New(exampleDir + "/must-gather").Collect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s.ClusterVersion.Status.Conditions = append(s.ClusterVersion.Status.Conditions, configv1.ClusterOperatorStatusCondition{
		Type: configv1.OperatorUpgradeable, Status: configv1.ConditionFalse, Reason: "AdminAckRequired", Message: "ack the API removals"})
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(t.TempDir(), "snapshot.json")
	if err := os.WriteFile(snap, data, 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"plan", "--snapshot", snap, "--graph", exampleGraph, "--graph-data", exampleData, "--channel", "stable-4.4",
		"--payload", exampleDir + "/releases/4.4.4", "--policy", writePolicy(t, "upgradeable: Force\n")}
	code, _, errOut := runRecover(t, args...)
	if code != ExitUsage || !strings.Contains(errOut, "--force-reason") {
		t.Fatalf("exit %d %q", code, errOut)
	}
	code, out, errOut := runRecover(t, append(args, "--force-reason", "admin-ack given in CHG-42", "-o", "json")...)
	var p planfile.Plan
	if code != ExitOK || json.Unmarshal([]byte(out), &p) != nil || !p.Target.Force || p.Target.ForceReason != "admin-ack given in CHG-42" {
		t.Fatalf("exit %d %s", code, errOut)
	}
	if err := planfile.Validate(&p); err != nil {
		t.Fatalf("apply refuses the forced plan: %v", err)
	}
}

// TestPlanExitCodesMatch keeps the plan package's exit codes in step with the CLI's.
func TestPlanExitCodesMatch(t *testing.T) {
	risks := &plan.NoTargetError{Selection: &plan.Selection{}, Risks: []string{"R"}}
	none := &plan.NoTargetError{Selection: &plan.Selection{}}
	force := &plan.ForceRequiredError{Target: "4.4.4"}
	if exitCodeFor(risks) != ExitRisksNotAccepted || exitCodeFor(none) != ExitNoSafeTarget || exitCodeFor(force) != ExitUsage ||
		exitCodeFor(&plan.PayloadMismatchError{}) != ExitBadInput {
		t.Fatal("plan error exit codes differ from cmd/recover/exitcodes.go")
	}
}

// TestPlanCaches: recover plan keeps the loaded graph in <payload-cache-dir>/graphs
// and the decoded payload in <payload-cache-dir>/decoded by default, plans the same
// from them, and --graph-cache=false and --decoded-payload-cache=false leave them
// out.
func TestPlanCaches(t *testing.T) {
	planJSON := func(extra ...string) string {
		t.Helper()
		code, out, errOut := runRecover(t, append(append(quickstart, "-o", "json"), extra...)...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", extra, code, errOut)
		}
		// Everything but the time it was made.
		var p map[string]any
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatal(err)
		}
		delete(p, "createdAt")
		b, _ := json.Marshal(p)
		return string(b)
	}
	entries := func(dir, prefix string) int {
		t.Helper()
		return len(cachetest.Entries(t, dir, prefix))
	}
	off := t.TempDir()
	want := planJSON("--payload-cache-dir", off, "--graph-cache=false", "--decoded-payload-cache=false")
	if des, _ := os.ReadDir(off); len(des) != 0 {
		t.Fatalf("%d files in the cache directory with both caches off", len(des))
	}
	cache := t.TempDir()
	for _, run := range []string{"cold", "warm"} {
		if got := planJSON("--payload-cache-dir", cache); got != want {
			t.Fatalf("the plan with the caches %s differs from the one without", run)
		}
		if g, d := entries(filepath.Join(cache, "graphs"), "graph-"), entries(filepath.Join(cache, "decoded"), "decoded-"); g != 1 || d != 1 {
			t.Fatalf("%s: %d graph entries, %d decoded-payload entries", run, g, d)
		}
	}
	only := t.TempDir()
	if got := planJSON("--payload-cache-dir", only, "--decoded-payload-cache=false"); got != want {
		t.Fatal("the plan with the graph cache alone differs")
	}
	if g, d := entries(filepath.Join(only, "graphs"), "graph-"), entries(filepath.Join(only, "decoded"), "decoded-"); g != 1 || d != 0 {
		t.Fatalf("graph cache alone: %d graph entries, %d decoded-payload entries", g, d)
	}
}
