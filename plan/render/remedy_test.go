package render

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/mustgather"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/internal/testing/golden"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/graph"
	"github.com/openshift-recover/recover/plan/planfile"
)

const incident2 = "../../examples/false-success-revision/must-gather"

// wedged is the second incident's snapshot (an update 4.4.3 -> 4.4.4 under way,
// kube-apiserver claimed at a revision master-2 does not run) with the findings
// inspect writes, by the details contract, for a PDB that holds worker-0's
// drain, a NotReady worker-1 whose renewal CSR waits beside a stranger's, and
// an unacknowledged admin gate.
func wedged(t *testing.T) *inspect.Snapshot {
	t.Helper()
	s, err := mustgather.New(incident2).Collect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	add := func(code, subject string, d map[string]string) {
		s.Findings = append(s.Findings, inspect.Finding{Code: code, Severity: inspect.SeverityError, Class: inspect.ClassBlocks, Subject: subject, Message: code + " on " + subject, Details: d})
	}
	for i := range s.Nodes {
		n := &s.Nodes[i]
		switch n.Name {
		case "worker-0":
			n.DesiredDrain, n.LastAppliedDrain, n.Unschedulable, n.MCDState = "drain-rendered-worker-next", "uncordon-"+n.CurrentConfig, true, inspect.MCDStateWorking
		case "worker-1":
			n.Ready, n.ReadyReason, n.ReadyMessage = "Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status."
		}
	}
	s.PodDisruptionBudgets = []inspect.PodDisruptionBudget{{Namespace: "ci", Name: "build", UID: "uid-pdb-build", MinAvailable: "2", Selector: "app=build",
		CurrentHealthy: 2, DesiredHealthy: 2, ExpectedPods: 2}}
	s.DrainPods = []inspect.DrainPod{{Namespace: "ci", Name: "build-0", Node: "worker-0", Phase: "Running", Ready: true, PDBs: []string{"ci/build"}}}
	add(inspect.CodeDrainBlockedByPDB, "poddisruptionbudget/ci/build", map[string]string{"namespace": "ci", "name": "build", "nodes": "worker-0", "pods": "ci/build-0",
		"disruptionsAllowed": "0", "currentHealthy": "2", "desiredHealthy": "2"})
	created := s.Source.CollectedAt.Add(-10 * time.Minute)
	s.CertificateSigningRequests = []inspect.CertificateSigningRequest{
		{Name: "csr-8k2lp", UID: "uid-csr-8k2lp", SignerName: openshift.SignerKubeletClient, Username: openshift.NodeUserPrefix + "worker-1", State: inspect.CSRStatePending,
			CommonName: openshift.NodeUserPrefix + "worker-1", Organizations: []string{openshift.NodesGroup}, Created: created},
		{Name: "csr-zz9q1", UID: "uid-csr-zz9q1", SignerName: openshift.SignerKubeletClient, Username: openshift.NodeBootstrapper, State: inspect.CSRStatePending,
			CommonName: openshift.NodeUserPrefix + "worker-1", Organizations: []string{openshift.NodesGroup}, Created: created},
	}
	add(inspect.CodeCSRPending, "node/worker-1", map[string]string{"node": "worker-1", "csrs": "csr-8k2lp,csr-zz9q1", "vouched": "csr-8k2lp", "unvouched": "csr-zz9q1", "signer": openshift.SignerKubeletClient})
	const key = "ack-4.4-kube-1.18-api-removals-in-4.5"
	s.AdminGates = &inspect.AdminGates{Gates: map[string]string{key: "Kubernetes 1.18 and therefore OpenShift 4.5 remove several APIs which require admin consideration."}, Acks: map[string]string{}, AcksUID: "uid-admin-acks"}
	add(inspect.CodeAdminAckRequired, "admingate/"+key, map[string]string{"gate": key, "minor": "4.4"})
	return s
}

var goldenTime = func() time.Time { return time.Date(2020, 5, 25, 9, 0, 0, 0, time.UTC) }

func renderAll(t *testing.T, name string, p *planfile.Plan) {
	t.Helper()
	var js bytes.Buffer
	enc := json.NewEncoder(&js)
	enc.SetIndent("", "  ")
	if err := enc.Encode(p); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "testdata/"+name+".plan.json.golden", js.Bytes())
	var md, tb bytes.Buffer
	if err := Markdown(&md, p); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "testdata/"+name+".plan.md.golden", md.Bytes())
	if err := Table(&tb, p); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "testdata/"+name+".table.golden", tb.Bytes())
}

// TestGoldenRemediationPlan: no graph, no payload: the remedies and the CVO
// hand-back.
func TestGoldenRemediationPlan(t *testing.T) {
	p, err := plan.Make(context.Background(), plan.Options{Snapshot: wedged(t), Now: goldenTime, Generator: "recover (golden)",
		Accept: []string{"force-redeployment:kube-apiserver", "admin-ack:ack-4.4-kube-1.18-api-removals-in-4.5"}})
	if err != nil {
		t.Fatal(err)
	}
	renderAll(t, "remediation", p)
	var md bytes.Buffer
	if err := Markdown(&md, p); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# Recovery plan: remediation of 4.4.3 + 4.4.4 (no new release)",
		"- Mode: **remediation only**",
		"## Remediations",
		"relaxes PodDisruptionBudget ci/build (restored by step 006)",
		"keeps running: it is updating",
		"before `{\"spec\":{\"maxUnavailable\":null,\"minAvailable\":2}}` -> patch `{\"spec\":{\"maxUnavailable\":null,\"minAvailable\":0}}`",
		"By hand: `oc adm certificate approve csr-8k2lp`",
		"## Refused remedies",
		"never taken by recover",
		"Gate `nodes-settled`",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("runbook lacks %q", want)
		}
	}
}

// TestGoldenRefusalReport: a guard PDB and an unacknowledged admin gate hold
// the cluster: no plan, the report of what is refused and why.
func TestGoldenRefusalReport(t *testing.T) {
	s := wedged(t)
	s.PodDisruptionBudgets = append(s.PodDisruptionBudgets, inspect.PodDisruptionBudget{Namespace: "openshift-etcd", Name: "etcd-guard-pdb", MinAvailable: "2",
		CurrentHealthy: 2, DesiredHealthy: 2})
	s.Findings = append(s.Findings, inspect.Finding{Code: inspect.CodeGuardPDBBlocksDrain, Severity: inspect.SeverityError, Class: inspect.ClassBlocks,
		Subject: "poddisruptionbudget/openshift-etcd/etcd-guard-pdb", Details: map[string]string{"namespace": "openshift-etcd", "name": "etcd-guard-pdb",
			"nodes": "master-0", "component": "etcd", "unready": "master-1"}})
	_, err := plan.Make(context.Background(), plan.Options{Snapshot: s, Now: goldenTime})
	var re *planfile.RemedyRefusedError
	if !errors.As(err, &re) || re.ExitCode() != 12 {
		t.Fatalf("%v", err)
	}
	var b bytes.Buffer
	if err := Refusals(&b, re.Refused, re.All); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "testdata/"+"refusal.report.golden", b.Bytes())
}

// TestGoldenUpdatePlanWithRemedies: the same wedges with the example graph and
// the 4.4.4 payload: the remedies first, the manifests, the acknowledgement
// before set-desired-update, its wait after restore-cvo.
func TestGoldenUpdatePlanWithRemedies(t *testing.T) {
	ctx := context.Background()
	g, err := graph.Load(ctx, graph.Options{Graph: example + "/graph.json", GraphData: example + "/graph-data", Channel: "stable-4.4"})
	if err != nil {
		t.Fatal(err)
	}
	s := wedged(t)
	accept := []string{"admin-ack:ack-4.4-kube-1.18-api-removals-in-4.5"}
	p, err := plan.Make(ctx, plan.Options{Snapshot: s, Graph: g, Payload: plan.PayloadDir{Dir: example + "/releases/4.4.4"}, Now: goldenTime, Generator: "recover (golden)",
		Accept: accept, TakeOver: pushAsked(s, accept)})
	if err != nil {
		t.Fatal(err)
	}
	var md, tb bytes.Buffer
	if err := Markdown(&md, p); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "testdata/"+"update-remedies.plan.md.golden", md.Bytes())
	if err := Table(&tb, p); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "testdata/"+"update-remedies.table.golden", tb.Bytes())
}
