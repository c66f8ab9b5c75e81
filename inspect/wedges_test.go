package inspect

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
)

// sevenHeldByOnePDB is the shape of the real pdb-prohibits-draining cluster: worker
// nodes whose drains one PodDisruptionBudget holds, their pool degraded,
// machine-config Degraded because of the pool and the CVO Failing because of
// machine-config.
func sevenHeldByOnePDB(f *fixture) {
	f.pools[1].Status.MachineCount, f.pools[1].Status.UpdatedMachineCount, f.pools[1].Status.DegradedMachineCount = 8, 1, 7
	f.pools[1].Status.Conditions = []mcfgv1.MachineConfigPoolCondition{{Type: mcfgv1.MachineConfigPoolDegraded, Status: corev1.ConditionTrue}}
	setCOCondition(f.co("machine-config"), "Degraded", "True", "RequiredPoolsFailed",
		"Failed to resync 4.4.4 because: error during syncRequiredMachineConfigPools: [context deadline exceeded, error MachineConfigPool worker is not ready, retrying. Status: (pool degraded: true total: 8, ready 1, updated: 1, unavailable: 7)]")
	setCVCondition(f.cv, "Failing", "True", "ClusterOperatorDegraded", "Cluster operator machine-config is degraded")
}

func sevenNodes(s *Snapshot) {
	var pods []DrainPod
	for i := 1; i <= 7; i++ {
		n := s.testNode(fmt.Sprintf("worker-%d", i))
		drainHeld(n)
		pods = append(pods, DrainPod{Namespace: "ci", Name: fmt.Sprintf("prowjob-%d", i), Node: n.Name, Phase: "Running", Ready: true, PDBs: []string{"ci/prowjobs"}})
	}
	s.PodDisruptionBudgets = []PodDisruptionBudget{{Namespace: "ci", Name: "prowjobs", MaxUnavailable: "0", CurrentHealthy: 7, DesiredHealthy: 7, ExpectedPods: 7}}
	s.DrainPods = pods
}

func TestWedgesGroupNodesHeldByOnePDB(t *testing.T) {
	s := stuckSnapshot(sevenHeldByOnePDB, sevenNodes)
	if len(s.FindingsWithCode(CodeNodeDegraded)) != 7 {
		t.Fatalf("want 7 NodeDegraded, got %s", codes(s.Findings))
	}
	blocking := s.Blocking()
	if len(blocking) != 1 {
		t.Fatalf("one PDB holds everything: want one blocking wedge, got %+v", s.Wedges)
	}
	w := blocking[0]
	if w.Rank != 1 || w.Code != CodeDrainBlockedByPDB || w.Subjects[0] != "poddisruptionbudget/ci/prowjobs" || w.Next != "recover plan" {
		t.Errorf("wedge = %+v", w)
	}
	for _, want := range []string{"node/worker-1", "node/worker-7", "machineconfigpool/worker", "clusteroperator/machine-config", cvSubject} {
		if !containsString(w.Subjects, want) {
			t.Errorf("the wedge does not stand for %s: %v", want, w.Subjects)
		}
	}
	for _, want := range []string{"ci/prowjobs", "7 nodes", "7 NodeDegraded", "ClusterVersionFailing"} {
		if !strings.Contains(w.Summary, want) {
			t.Errorf("summary lacks %q: %s", want, w.Summary)
		}
	}
	// Without the PDBs the same cluster still makes one line: the degraded nodes.
	s = stuckSnapshot(sevenHeldByOnePDB, func(s *Snapshot) { sevenNodes(s); forget(s, keyPDBs, "") })
	blocking = s.Blocking()
	if len(blocking) != 1 || blocking[0].Code != CodeNodeDegraded || !strings.Contains(blocking[0].Summary, "(drain)") {
		t.Errorf("without PDBs: %+v", blocking)
	}
}

// TestWedgesFoldMachineConfigIntoItsPausedPool: the MCO's sync fails on a
// paused required pool; the pool is the cause, machine-config's Degraded and
// the CVO's Failing follow from it.
func TestWedgesFoldMachineConfigIntoItsPausedPool(t *testing.T) {
	s := stuckSnapshot(func(f *fixture) {
		f.pools[0].Spec.Paused = true
		f.pools[0].Status.MachineCount, f.pools[0].Status.UpdatedMachineCount = 3, 1
		setCOCondition(f.co("machine-config"), "Degraded", "True", "RequiredPoolsFailed",
			"Unable to apply 4.4.4: error required MachineConfigPool master is paused and cannot sync until it is unpaused")
		setCVCondition(f.cv, "Failing", "True", "ClusterOperatorDegraded", "Cluster operator machine-config is degraded")
	}, func(*Snapshot) {})
	blocking := s.Blocking()
	if len(blocking) == 0 || blocking[0].Code != CodePoolPaused || blocking[0].Subjects[0] != "machineconfigpool/master" {
		t.Fatalf("the paused pool is not the first cause: %+v", blocking)
	}
	if !containsString(blocking[0].Subjects, "clusteroperator/machine-config") {
		t.Errorf("machine-config's Degraded is not folded into the paused pool: %+v", blocking[0])
	}
	for _, w := range blocking[1:] {
		if w.Code == CodeOperatorDegraded {
			t.Errorf("machine-config's Degraded is a line of its own: %+v", w)
		}
	}
}

func TestWedgesRanking(t *testing.T) {
	s := stuckSnapshot(func(f *fixture) {
		requestMinor(f)
		setCVCondition(f.cv, "ReleaseAccepted", "False", "PreconditionChecks", `Preconditions failed for payload loaded version="4.5.1" image="q": Precondition "ClusterVersionUpgradeable" failed`)
		setCOCondition(f.co("etcd"), "Upgradeable", "False", "UnsupportedConfigOverrides_UnsupportedConfigOverridesSet", "x")
		f.node("worker-0").Status.Conditions[0].Status = corev1.ConditionFalse
		f.pools[1].Spec.Paused = true
	}, func(s *Snapshot) {
		s.AdminGates.Gates[gate44] = "APIs removed"
		s.Webhooks = []Webhook{gatekeeper(0, "Fail")}
	})
	var order []string
	for _, w := range s.Wedges {
		order = append(order, fmt.Sprintf("%d:%s:%s", w.Rank, w.Code, w.Class))
	}
	want := []string{
		"1:ReleaseNotAccepted:blocks-update",
		"2:WebhookUnavailable:blocks-update",
		"3:NodeNotReady:blocks-update",
		"4:UpgradeableFalse:blocks-update",
		"5:AdminAckRequired:blocks-update",
		"6:PoolPaused:informs",
	}
	if strings.Join(order, " ") != strings.Join(want, " ") {
		t.Errorf("wedges ranked\n  %s\nwant\n  %s", strings.Join(order, " "), strings.Join(want, " "))
	}
	if got := s.Wedges[4].Next; got != "recover plan --accept admin-ack:"+gate44 {
		t.Errorf("admin gate next = %q", got)
	}
}

func TestWedgesFoldTheirExplanations(t *testing.T) {
	for _, tc := range []struct {
		name      string
		mutate    func(*fixture)
		edit      func(*Snapshot)
		code      string   // the one blocking wedge
		subjects  []string // it must stand for
		next      string
		wedgeSize int // number of wedges, blocking or not
	}{
		{name: "NotReady master degrades the control-plane operators", mutate: func(f *fixture) {
			f.node("master-1").Status.Conditions[0].Status = corev1.ConditionFalse
			for _, co := range []string{"kube-apiserver", "etcd"} {
				setCOCondition(f.co(co), "Degraded", "True", "NodeController_MasterNodesReady", `NodeControllerDegraded: The master nodes not ready: node "master-1" not ready`)
			}
			setCVCondition(f.cv, "Failing", "True", "ClusterOperatorsDegraded", "Cluster operators etcd, kube-apiserver are degraded")
		}, code: CodeNodeNotReady, subjects: []string{"node/master-1", "clusteroperator/etcd", "clusteroperator/kube-apiserver", cvSubject}, next: "oc describe node/master-1", wedgeSize: 1},
		{name: "a webhook refusing the CVO", mutate: func(f *fixture) {
			setCVCondition(f.cv, "Failing", "True", "UpdatePayloadResourceInvalid", msgCouldNotUpdate)
		}, edit: func(s *Snapshot) { s.Webhooks = []Webhook{gatekeeper(0, "Fail")} },
			code: CodeCVOStuckOnManifest, subjects: []string{"deployment/openshift-monitoring/cluster-monitoring-operator", "validatingwebhookconfiguration/" + gatekeeperConfig, cvSubject},
			next: "oc get validatingwebhookconfiguration/" + gatekeeperConfig + " -o yaml", wedgeSize: 1},
		{name: "a NotReady node with its pending CSR", mutate: func(f *fixture) {
			f.node("worker-0").Status.Conditions[0].Status = corev1.ConditionUnknown
		}, edit: func(s *Snapshot) {
			s.CertificateSigningRequests = []CertificateSigningRequest{csr("csr-r", "kubernetes.io/kube-apiserver-client-kubelet", "system:node:worker-0", "system:node:worker-0", fixtureNow)}
		}, code: CodeCSRPending, subjects: []string{"node/worker-0"}, next: "recover plan", wedgeSize: 1},
		{name: "static-pod rollout explains its operator's Degraded", mutate: func(f *fixture) {
			f.kas.LatestAvailableRevision = 6
			f.kas.NodeStatuses[2].TargetRevision, f.kas.NodeStatuses[2].LastFailedRevision, f.kas.NodeStatuses[2].LastFailedCount = 6, 6, 2
			setCOCondition(f.co("kube-apiserver"), "Degraded", "True", "NodeInstaller_InstallerPodFailed", "NodeInstallerDegraded: 1 nodes are failing on revision 6")
		}, code: CodeStaticPodRolloutStuck, subjects: []string{"node/master-2", "clusteroperator/kube-apiserver"}, next: "recover plan --accept force-redeployment:kube-apiserver", wedgeSize: 1},
		{name: "an operator degraded by the member its guard PDB names", mutate: func(f *fixture) {
			setCOCondition(f.co("kube-apiserver"), "Degraded", "True", "StaticPods_Error", "pod kube-apiserver-master-2 container kube-apiserver is not ready")
		}, edit: kasGuard(0), code: CodeGuardPDBBlocksDrain, subjects: []string{"poddisruptionbudget/openshift-kube-apiserver/kube-apiserver-guard-pdb", "clusteroperator/kube-apiserver"},
			next: "oc describe clusteroperator/kube-apiserver", wedgeSize: 1},
		{name: "a precondition failed on an admin gate", mutate: func(f *fixture) {
			requestMinor(f)
			setCVCondition(f.cv, "ReleaseAccepted", "False", "PreconditionChecks", `Preconditions failed for payload loaded version="4.5.1" image="q": Precondition "ClusterVersionUpgradeable" failed because of "AdminAckRequired": APIs removed`)
			setCVCondition(f.cv, "Upgradeable", "False", "AdminAckRequired", "APIs removed")
		}, edit: func(s *Snapshot) {
			s.AdminGates.Gates[gate44] = "APIs removed"
			s.APIRequestCounts = []APIRequestCount{{Name: "flowschemas.v1alpha1.flowcontrol.apiserver.k8s.io", RemovedInRelease: "1.18", RequestCount: 4}}
		}, code: CodeAdminAckRequired, subjects: []string{"admingate/" + gate44, cvSubject, "apirequestcount/flowschemas.v1alpha1.flowcontrol.apiserver.k8s.io"},
			next: "recover plan --accept admin-ack:" + gate44, wedgeSize: 1},
		{name: "aggregated Upgradeable=False joins its operators", mutate: func(f *fixture) {
			requestMinor(f)
			setCVCondition(f.cv, "Upgradeable", "False", "ClusterOperatorsNotUpgradeable", upgradeable47)
			setCOCondition(f.co("etcd"), "Upgradeable", "False", "UnsupportedConfigOverrides_UnsupportedConfigOverridesSet", "UnsupportedConfigOverridesUpgradeable: setting: [useUnsupportedUnsafeNonHANonProductionUnstableEtcd]")
		}, code: CodeUpgradeableFalse, subjects: []string{"clusteroperator/etcd", cvSubject},
			next: `oc patch etcd.operator.openshift.io/cluster --type=merge -p '{"spec":{"unsupportedConfigOverrides":null}}'`, wedgeSize: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := stuckSnapshot(tc.mutate, tc.edit)
			b := s.Blocking()
			if len(b) != 1 || b[0].Code != tc.code || len(s.Wedges) != tc.wedgeSize {
				t.Fatalf("want one blocking %s of %d wedges, got %+v (findings %s)", tc.code, tc.wedgeSize, s.Wedges, codes(s.Findings))
			}
			for _, want := range tc.subjects {
				if !containsString(b[0].Subjects, want) {
					t.Errorf("wedge lacks %s: %v", want, b[0].Subjects)
				}
			}
			if b[0].Next != tc.next {
				t.Errorf("next = %q, want %q", b[0].Next, tc.next)
			}
		})
	}
}

func TestReportsStartWithTheWedges(t *testing.T) {
	s := stuckSnapshot(sevenHeldByOnePDB, sevenNodes)
	var table, md bytes.Buffer
	o := ReportOptions{SourceArgs: "--must-gather ./mg"}
	if err := WriteReport(&table, s, o); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, s, o); err != nil {
		t.Fatal(err)
	}
	out := table.String()
	if i, j := strings.Index(out, "WHY THIS CLUSTER IS STUCK: 1 cause(s) block the update"), strings.Index(out, "CLAIM (ClusterVersion)"); i < 0 || j < i {
		t.Errorf("the table does not start with the wedges:\n%.600s", out)
	}
	for _, want := range []string{"1. BLOCKS  DrainBlockedByPDB  poddisruptionbudget/ci/prowjobs", "next: recover plan --must-gather ./mg", "DrainBlockedByPDB  poddisruptionbudget/ci/prowjobs  (blocks-update)"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q", want)
		}
	}
	m := md.String()
	if i, j := strings.Index(m, "## Why this cluster is stuck"), strings.Index(m, "## Claim: ClusterVersion"); i < 0 || j < i {
		t.Errorf("the Markdown report does not start with the wedges:\n%.600s", m)
	}
	for _, want := range []string{"1. **DrainBlockedByPDB** (blocks the update)", "Next: `recover plan --must-gather ./mg`", "### ERROR DrainBlockedByPDB `poddisruptionbudget/ci/prowjobs`", "`nodes=worker-1,worker-2"} {
		if !strings.Contains(m, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	var healthyOut bytes.Buffer
	if err := WriteReport(&healthyOut, stuckSnapshot(nil, nil), ReportOptions{}); err != nil || !strings.Contains(healthyOut.String(), "WHY THIS CLUSTER IS STUCK: nothing holds it") {
		t.Errorf("healthy report: %v\n%.300s", err, healthyOut.String())
	}
}

func TestNextCommandTakesTheSourceFlags(t *testing.T) {
	o := ReportOptions{SourceArgs: "--must-gather ./mg"}
	for in, want := range map[string]string{
		"recover plan":                      "recover plan --must-gather ./mg",
		"recover plan --accept admin-ack:x": "recover plan --must-gather ./mg --accept admin-ack:x",
		"oc describe clusteroperator/etcd":  "oc describe clusteroperator/etcd",
		"recover journal":                   "recover journal",
	} {
		if got := o.NextCommand(in); got != want {
			t.Errorf("NextCommand(%q) = %q, want %q", in, got, want)
		}
	}
	if got := (ReportOptions{}).NextCommand("recover plan"); got != "recover plan" {
		t.Errorf("live: %q", got)
	}
}
