package plan

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The wedge snapshots of these tests are built as Go structs from the second
// incident's must-gather (an update 4.4.3 -> 4.4.4 under way, every node Ready
// and settled): each helper adds one wedge's facts and the finding inspect
// writes for it, by the finding details contract (inspect/finding.go, the
// shared brief). The planner reads the findings; nothing here re-analyzes.

// healthyUpdating is the second incident's snapshot without its static-pod
// findings: an update under way that nothing holds.
func healthyUpdating(t testing.TB) *inspect.Snapshot {
	t.Helper()
	s := snapshot(t, incident2)
	dropFindings(s, inspect.CodeInstallerSucceededWithoutRevision, inspect.CodeStaticPodRevisionMismatch)
	for i := range s.MachineConfigPools {
		s.MachineConfigPools[i].UID = "uid-pool-" + s.MachineConfigPools[i].Name
	}
	return s
}

// dropFindings removes the findings with the given codes.
func dropFindings(s *inspect.Snapshot, codes ...string) {
	s.Findings = slices.DeleteFunc(s.Findings, func(f inspect.Finding) bool { return slices.Contains(codes, f.Code) })
	s.Wedges = slices.DeleteFunc(s.Wedges, func(w inspect.Wedge) bool { return slices.Contains(codes, w.Code) })
}

// addFinding appends a finding of class blocks-update.
func addFinding(s *inspect.Snapshot, code, subject string, details map[string]string) {
	s.Findings = append(s.Findings, inspect.Finding{Code: code, Severity: inspect.SeverityError, Class: inspect.ClassBlocks,
		Subject: subject, Message: code + " on " + subject, Details: details})
}

// nodeNamed returns the snapshot's node.
func nodeNamed(t testing.TB, s *inspect.Snapshot, name string) *inspect.Node {
	t.Helper()
	for i := range s.Nodes {
		if s.Nodes[i].Name == name {
			return &s.Nodes[i]
		}
	}
	t.Fatalf("no node %s", name)
	return nil
}

// holdDrain makes nodes drain for the next worker config, held by a
// PodDisruptionBudget at its limit whose two pods run on them.
func holdDrain(t testing.TB, s *inspect.Snapshot, ns, name string, nodes ...string) {
	t.Helper()
	s.PodDisruptionBudgets = append(s.PodDisruptionBudgets, inspect.PodDisruptionBudget{Namespace: ns, Name: name, UID: "uid-pdb-" + name,
		MinAvailable: "2", Selector: "app=" + name, CurrentHealthy: 2, DesiredHealthy: 2, DisruptionsAllowed: 0, ExpectedPods: 2})
	var pods []string
	for i, n := range nodes {
		node := nodeNamed(t, s, n)
		node.DesiredDrain, node.LastAppliedDrain = openshift.DrainPrefix+"rendered-worker-next", openshift.UncordonPrefix+node.CurrentConfig
		node.Unschedulable, node.MCDState = true, inspect.MCDStateWorking
		node.DesiredConfig = node.CurrentConfig
		pod := fmt.Sprintf("%s-%d", name, i)
		pods = append(pods, ns+"/"+pod)
		s.DrainPods = append(s.DrainPods, inspect.DrainPod{Namespace: ns, Name: pod, Node: n, Phase: "Running", Ready: true, PDBs: []string{ns + "/" + name}})
	}
	addFinding(s, inspect.CodeDrainBlockedByPDB, "poddisruptionbudget/"+ns+"/"+name, map[string]string{
		"namespace": ns, "name": name, "nodes": strings.Join(nodes, ","), "pods": strings.Join(pods, ","),
		"disruptionsAllowed": "0", "currentHealthy": "2", "desiredHealthy": "2"})
}

// guardHolds makes the etcd guard PDB hold the drain of held because the member
// on unready is not ready.
func guardHolds(t testing.TB, s *inspect.Snapshot, held, unready string) {
	t.Helper()
	ns, name := "openshift-etcd", openshift.GuardPDBName("etcd")
	s.PodDisruptionBudgets = append(s.PodDisruptionBudgets, inspect.PodDisruptionBudget{Namespace: ns, Name: name, UID: "uid-guard",
		MinAvailable: "2", Selector: "app=guard", CurrentHealthy: 2, DesiredHealthy: 2, DisruptionsAllowed: 0, ExpectedPods: 3})
	n := nodeNamed(t, s, held)
	n.DesiredDrain, n.LastAppliedDrain, n.Unschedulable = openshift.DrainPrefix+"rendered-master-next", openshift.UncordonPrefix+n.CurrentConfig, true
	addFinding(s, inspect.CodeGuardPDBBlocksDrain, "poddisruptionbudget/"+ns+"/"+name, map[string]string{
		"namespace": ns, "name": name, "nodes": held, "pods": ns + "/etcd-guard-" + held, "component": "etcd", "unready": unready,
		"disruptionsAllowed": "0", "currentHealthy": "2", "desiredHealthy": "2"})
}

// csrs adds pending CSRs for a node and the finding. A new node's client CSR is
// vouched for by a Machine without a nodeRef; a renewal by an existing node;
// "stranger" is a bootstrap request nothing vouches for.
type csrSpec struct {
	name, node string
	kind       string // "new", "renew", "stranger"
}

func pendingCSRs(t testing.TB, s *inspect.Snapshot, node string, specs ...csrSpec) {
	t.Helper()
	created := s.Source.CollectedAt.Add(-10 * time.Minute)
	var names, vouched, unvouched []string
	for _, c := range specs {
		csr := inspect.CertificateSigningRequest{Name: c.name, UID: "uid-" + c.name, SignerName: openshift.SignerKubeletClient, State: inspect.CSRStatePending,
			CommonName: openshift.NodeUserPrefix + c.node, Organizations: []string{openshift.NodesGroup}, Created: created}
		switch c.kind {
		case "new":
			csr.Username = openshift.NodeBootstrapper
			if !slices.ContainsFunc(s.Machines, func(m inspect.Machine) bool { return m.Name == c.node }) {
				s.Machines = append(s.Machines, inspect.Machine{Namespace: openshift.MachineAPINamespace, Name: c.node, Phase: "Provisioned",
					Addresses: []inspect.Address{{Type: "InternalDNS", Address: c.node}}, Created: created.Add(-5 * time.Minute)})
			}
			vouched = append(vouched, c.name)
		case "renew":
			csr.Username = openshift.NodeUserPrefix + c.node
			vouched = append(vouched, c.name)
		default:
			csr.Username = openshift.NodeBootstrapper
			unvouched = append(unvouched, c.name)
		}
		s.CertificateSigningRequests = append(s.CertificateSigningRequests, csr)
		names = append(names, c.name)
	}
	slices.SortFunc(s.CertificateSigningRequests, func(a, b inspect.CertificateSigningRequest) int { return strings.Compare(a.Name, b.Name) })
	addFinding(s, inspect.CodeCSRPending, "node/"+node, map[string]string{"node": node, "csrs": strings.Join(names, ","),
		"vouched": strings.Join(vouched, ","), "unvouched": strings.Join(unvouched, ","), "signer": openshift.SignerKubeletClient})
}

// notReady makes a node NotReady.
func notReady(t testing.TB, s *inspect.Snapshot, name string) {
	t.Helper()
	n := nodeNamed(t, s, name)
	n.Ready, n.ReadyReason, n.ReadyMessage = "Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status."
}

// pausePool pauses a pool with one machine behind; blocks says whether the
// finding says the pause holds the update.
func pausePool(t testing.TB, s *inspect.Snapshot, pool string, blocks bool) {
	t.Helper()
	for i := range s.MachineConfigPools {
		if p := &s.MachineConfigPools[i]; p.Name == pool {
			p.Paused = true
			p.UpdatedMachineCount = p.MachineCount - 1
		}
	}
	d := map[string]string{"pool": pool}
	if blocks {
		d["blocks"] = "true"
	}
	addFinding(s, inspect.CodePoolPaused, "machineconfigpool/"+pool, d)
	if !blocks {
		s.Findings[len(s.Findings)-1].Class = inspect.ClassInforms
	}
}

// stuckRollout makes kube-apiserver revision latest+1... fail on master-2:
// nodeStatuses say lastFailedRevision 9 three times.
func stuckRollout(t testing.TB, s *inspect.Snapshot) {
	t.Helper()
	addFinding(s, inspect.CodeStaticPodRolloutStuck, "node/master-2", map[string]string{"component": "kube-apiserver", "node": "master-2",
		"target": "9", "lastFailed": "9", "failedCount": "3", "fallbackCount": "0", "reason": "InstallerFailed"})
}

// adminGate adds an unacknowledged admin gate.
func adminGate(s *inspect.Snapshot, key string) {
	if s.AdminGates == nil {
		s.AdminGates = &inspect.AdminGates{Gates: map[string]string{}, Acks: map[string]string{}, AcksUID: "uid-admin-acks"}
	}
	s.AdminGates.Gates[key] = "Kubernetes 1.32 removes several APIs which require admin consideration."
	addFinding(s, inspect.CodeAdminAckRequired, "admingate/"+key, map[string]string{"gate": key, "minor": "4.4"})
}

// overridesSet sets ClusterVersion spec.overrides and the Upgradeable finding.
func overridesSet(s *inspect.Snapshot) {
	s.ClusterVersion.Spec.Overrides = []configv1.ComponentOverride{{Kind: "Deployment", Group: "apps", Namespace: "openshift-monitoring", Name: "cluster-monitoring-operator", Unmanaged: true}}
	addFinding(s, inspect.CodeUpgradeableFalse, "clusterversion/version", map[string]string{"reason": openshift.ReasonClusterVersionOverrides, "class": "overrides"})
}

// manualCredentials makes the cloud-credential operator say Upgradeable=False
// for want of the upgradeable-to annotation.
func manualCredentials(s *inspect.Snapshot) {
	s.CloudCredential = &inspect.CloudCredential{UID: "uid-cco", Mode: openshift.CredentialsModeManual}
	addFinding(s, inspect.CodeUpgradeableFalse, "clusteroperator/"+openshift.CloudCredentialOperator, map[string]string{"reason": openshift.ReasonMissingUpgradeableAnnotation, "class": "cloud-credential"})
}

// makeRemedies makes a remediation-only plan (no graph) at the fixed time.
func makeRemedies(t testing.TB, s *inspect.Snapshot, accept ...string) (*planfile.Plan, error) {
	t.Helper()
	return Make(context.Background(), Options{Snapshot: s, Accept: accept, Now: func() time.Time { return fixedTime }, Generator: "recover test"})
}

// stepsWith returns the plan's steps of an action.
func stepsWith(p *planfile.Plan, a planfile.Action) []*planfile.Step {
	var out []*planfile.Step
	for i := range p.Steps {
		if p.Steps[i].Action == a {
			out = append(out, &p.Steps[i])
		}
	}
	return out
}

// actions lists the plan's actions in order.
func actions(p *planfile.Plan) []planfile.Action {
	var out []planfile.Action
	for _, s := range p.Steps {
		out = append(out, s.Action)
	}
	return out
}

// reconciling makes the snapshot's CVO reconcile its desired release (history[0]
// Completed at the desired image) instead of updating to it: a remediation plan
// then stops the CVO while its remedies run (remediationStopsCVO). The findings
// are left as they are.
func reconciling(t testing.TB, s *inspect.Snapshot) {
	t.Helper()
	cv := s.ClusterVersion
	if cv == nil || len(cv.Status.History) == 0 {
		t.Fatal("the snapshot has no ClusterVersion history")
	}
	d := s.DesiredRelease()
	cv.Spec.DesiredUpdate = nil
	cv.Status.Desired = d
	h := &cv.Status.History[0]
	h.State, h.Version, h.Image = configv1.CompletedUpdate, d.Version, d.Image
	if s.CVOMode() != inspect.ModeReconciling {
		t.Fatalf("mode %s after reconciling()", s.CVOMode())
	}
}
