package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/mustgather"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The second incident's must-gather: an update 4.4.3 -> 4.4.4 under way whose
// kube-apiserver operator claims a revision master-2 does not run. No new release
// is needed; the remedy is a forced redeployment, an admin's promise.
const incident2MG = "../../examples/false-success-revision/must-gather"

// TestPlanRemediationOnlyFromMustGather: without --graph and --payload the plan is
// remediation only, says so on stderr, and needs --accept for the promise (exit 3
// with the exact command line to run).
func TestPlanRemediationOnlyFromMustGather(t *testing.T) {
	args := []string{"plan", "--must-gather", incident2MG}
	code, out, errOut := runRecover(t, args...)
	if code != ExitRisksNotAccepted {
		t.Fatalf("exit %d, want %d: %s", code, ExitRisksNotAccepted, errOut)
	}
	for _, want := range []string{"REFUSED (what holds the cluster", "force-redeployment node/master-2", "allow it with: --accept force-redeployment:kube-apiserver",
		"recover plan --must-gather " + incident2MG + " --accept force-redeployment:kube-apiserver"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "planning the remediation only") || !strings.HasPrefix(lines[1], "error: what holds the cluster needs the admin's promise") {
		t.Fatalf("stderr %q", errOut)
	}
	code, out, _ = runRecover(t, append(args, "-o", "json")...)
	var r planfile.RemedyRefusedReport
	if code != ExitRisksNotAccepted || json.Unmarshal([]byte(out), &r) != nil || r.ExitCode != 3 || r.FormatVersion != planfile.FormatVersion ||
		len(r.Accept) != 1 || r.Accept[0] != "force-redeployment:kube-apiserver" || len(r.Refused) == 0 {
		t.Fatalf("json: exit %d %s", code, out)
	}

	code, out, errOut = runRecover(t, append(args, "--accept", "force-redeployment:kube-apiserver", "-o", "json")...)
	var p planfile.Plan
	if code != ExitOK || json.Unmarshal([]byte(out), &p) != nil {
		t.Fatalf("accepted: exit %d %s", code, errOut)
	}
	// The CVO is updating to 4.4.4 and keeps the wheel: no disable/restore bracket.
	if p.Mode != planfile.ModeRemediation || p.Target.Version != "" || len(p.Steps) != 1 || p.Steps[0].Action != planfile.ActionForceRedeployment ||
		p.Inputs.Accepted[0] != "force-redeployment:kube-apiserver" {
		t.Fatalf("plan mode %s target %q steps %d", p.Mode, p.Target.Version, len(p.Steps))
	}
	code, out, _ = runRecover(t, append(args, "--accept", "force-redeployment:kube-apiserver")...)
	if code != ExitOK || !strings.Contains(out, "Plan: remediation only (no new release)") || !strings.Contains(out, "TARGET none (remediation only)") ||
		!strings.Contains(out, "001-force-redeployment-kube-apiserver") || !strings.Contains(out, "the CVO keeps running") {
		t.Fatalf("table: exit %d\n%s", code, out)
	}
	// apply reads the remediation plan (identity, format, step IDs); whether it
	// runs the new actions is apply's contract.
	path := filepath.Join(t.TempDir(), "plan.json")
	data, _ := json.Marshal(p)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := planfile.Load(path); err != nil && !strings.Contains(err.Error(), "force-redeployment") && !strings.Contains(err.Error(), "remediation") {
		t.Fatalf("apply.LoadPlan: %v", err)
	}
}

// TestPlanNeedsATargetSaysWhy: the first incident without --graph needs a new
// release: plan says why on stderr and asks the cluster's update service (here a
// local one that serves the example graph).
func TestPlanNeedsATargetSaysWhy(t *testing.T) {
	s, err := mustgather.New(exampleDir + "/must-gather").Collect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	asked := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case asked <- r.URL.Query().Get("channel"):
		default:
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	s.ClusterVersion.Spec.Upstream = configv1.URL(srv.URL + "/graph")
	snap := writeSnapshotFile(t, s)
	code, _, errOut := runRecover(t, "plan", "--snapshot", snap, "--channel", "stable-4.4")
	if code == ExitOK || !strings.Contains(errOut, "recover plan: a new release is needed (outcome replace-cvo, rule cvo-would-reconcile-mixed)") || !strings.Contains(errOut, "asking the cluster's update service") {
		t.Fatalf("exit %d stderr %q", code, errOut)
	}
	select {
	case ch := <-asked:
		if ch != "stable-4.4" {
			t.Fatalf("the update service was asked for channel %q", ch)
		}
	default:
		t.Fatal("the cluster's update service was not asked")
	}
}

func writeSnapshotFile(t *testing.T, s *inspect.Snapshot) string {
	t.Helper()
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "snapshot.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPlanUnsafeRemedyExit12 runs the pipeline through the binary on a saved
// snapshot whose facts hold a drain with the etcd guard PDB while the member on
// another master is not ready (and a CSR nobody vouches for): inspect's analysis
// finds the wedges, plan refuses, exit 12. It needs inspect's wedge findings
// (GuardPDBBlocksDrain, CSRPending); without them it is skipped.
func TestPlanUnsafeRemedyExit12(t *testing.T) {
	s, err := mustgather.New(incident2MG).Collect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	const ns = "openshift-etcd"
	for i := range s.Nodes {
		if n := &s.Nodes[i]; n.Name == "master-0" {
			n.DesiredDrain, n.LastAppliedDrain, n.Unschedulable, n.MCDState = openshift.DrainPrefix+"rendered-master-next", openshift.UncordonPrefix+n.CurrentConfig, true, inspect.MCDStateWorking
		}
	}
	s.PodDisruptionBudgets = []inspect.PodDisruptionBudget{{Namespace: ns, Name: openshift.GuardPDBName("etcd"), UID: "uid-guard", MinAvailable: "2", Selector: "app=guard",
		CurrentHealthy: 2, DesiredHealthy: 2, ExpectedPods: 3, Generation: 1, ObservedGeneration: 1}}
	s.DrainPods = []inspect.DrainPod{{Namespace: ns, Name: openshift.GuardPodName("etcd", "master-0"), Node: "master-0", Phase: "Running", Ready: true, PDBs: []string{ns + "/" + openshift.GuardPDBName("etcd")}}}
	for i := range s.StaticPodOperators {
		if op := &s.StaticPodOperators[i]; op.Component == "etcd" {
			op.Guards = []inspect.GuardPod{{Name: openshift.GuardPodName("etcd", "master-0"), Node: "master-0", Ready: true},
				{Name: openshift.GuardPodName("etcd", "master-1"), Node: "master-1", Ready: false}, {Name: openshift.GuardPodName("etcd", "master-2"), Node: "master-2", Ready: true}}
		}
	}
	s.CertificateSigningRequests = []inspect.CertificateSigningRequest{{Name: "csr-x", SignerName: openshift.SignerKubeletClient, Username: openshift.NodeBootstrapper,
		State: inspect.CSRStatePending, CommonName: openshift.NodeUserPrefix + "intruder", Organizations: []string{openshift.NodesGroup}, Created: s.Source.CollectedAt.Add(-time.Minute)}}
	inspect.Refresh(s)
	if len(s.FindingsWithCode(inspect.CodeGuardPDBBlocksDrain)) == 0 {
		t.Skip("inspect does not report GuardPDBBlocksDrain for these facts yet (the analysis of issue 13); the refusal itself is tested in plan with the findings as structs")
	}
	snap := writeSnapshotFile(t, s)
	code, out, errOut := runRecover(t, "plan", "--snapshot", snap, "--accept", "force-redeployment:kube-apiserver")
	if code != ExitRemedyRefused || !strings.Contains(out, "guard-pdb poddisruptionbudget/openshift-etcd/etcd-guard-pdb") || !strings.Contains(errOut, "error: what holds the cluster has no remedy recover may take") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	code, out, _ = runRecover(t, "plan", "--snapshot", snap, "--accept", "force-redeployment:kube-apiserver", "-o", "json")
	var r planfile.RemedyRefusedReport
	if code != ExitRemedyRefused || json.Unmarshal([]byte(out), &r) != nil || r.ExitCode != ExitRemedyRefused {
		t.Fatalf("json: exit %d %s", code, out)
	}
}

func TestPlanAcceptUsageErrors(t *testing.T) {
	for _, a := range []string{"force-redeployment:dns", "admin-ack:yes", "upgradeable-to:latest", "remove-overrides:all", "force-redeploy:etcd"} {
		code, _, errOut := runRecover(t, "plan", "--must-gather", incident2MG, "--accept", a)
		if code != ExitUsage || !strings.HasPrefix(errOut, "error: --accept "+a) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("--accept %s: exit %d %q", a, code, errOut)
		}
	}
}

// TestPlanRemedyExitCodesMatch keeps the refusal's exit codes in step with the CLI's.
func TestPlanRemedyExitCodesMatch(t *testing.T) {
	unsafe := &planfile.RemedyRefusedError{Refused: []planfile.RefusedRemedy{{Remedy: planfile.RemedyGuardPDB, Reason: "x"}}}
	promise := &planfile.RemedyRefusedError{Refused: []planfile.RefusedRemedy{{Remedy: planfile.RemedyAdminAck, Reason: "x", Accept: "admin-ack:ack-4.4-x"}}}
	if exitCodeFor(unsafe) != ExitRemedyRefused || exitCodeFor(promise) != ExitRisksNotAccepted || exitCodeFor(&plan.AcceptError{Name: "x"}) != ExitUsage {
		t.Fatal("plan remedy error exit codes differ from cmd/recover/exitcodes.go")
	}
}

// TestRefusalLinePrintsTheCommandAsGiven: the line to run after review is the
// command with its flags and one --accept; on a live cluster (no flags) it is
// `recover plan --accept ...`, one space apart.
func TestRefusalLinePrintsTheCommandAsGiven(t *testing.T) {
	e := &planfile.RemedyRefusedError{Refused: []planfile.RefusedRemedy{{Remedy: planfile.RemedyForceRedeployment, Subject: "node/master-1", Reason: "r", Accept: "force-redeployment:kube-apiserver"}}}
	for _, tc := range []struct {
		args   []string
		accept []string
		want   string
	}{
		{nil, nil, "\n  recover plan --accept force-redeployment:kube-apiserver\n"},
		{[]string{"--kubeconfig", "kc"}, nil, "\n  recover plan --kubeconfig kc --accept force-redeployment:kube-apiserver\n"},
		{[]string{"--accept", "remove-overrides"}, []string{"remove-overrides"}, "\n  recover plan --accept remove-overrides,force-redeployment:kube-apiserver\n"},
	} {
		o := &planOptions{args: tc.args, accept: tc.accept, output: &outputFlag{format: outputTable}}
		var buf strings.Builder
		if err := o.printRefusals(&buf, e); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(buf.String(), tc.want) {
			t.Errorf("args %v: printed\n%s\nwant it to end with %q", tc.args, buf.String(), tc.want)
		}
	}
}
