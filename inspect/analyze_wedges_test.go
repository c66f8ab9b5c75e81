package inspect

import (
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/internal/openshift"
)

// stuckSnapshot builds the healthy fixture (mutated as API objects first), records
// every wedge fact as collected, applies edit to the snapshot's facts and
// recomputes it, as a source's Finish does.
func stuckSnapshot(mutate func(*fixture), edit func(*Snapshot)) *Snapshot {
	f := healthy()
	if mutate != nil {
		mutate(f)
	}
	s := f.snapshot()
	for _, r := range WedgeResources() {
		s.Resources = append(s.Resources, ResourceStatus{Resource: r.Resource.Key(), Namespace: r.Namespace, State: Collected, CollectedAt: f.now})
	}
	s.AdminGates = &AdminGates{Gates: map[string]string{}, Acks: map[string]string{}}
	if edit != nil {
		edit(s)
	}
	Refresh(s)
	return s
}

func (s *Snapshot) testNode(name string) *Node {
	for i := range s.Nodes {
		if s.Nodes[i].Name == name {
			return &s.Nodes[i]
		}
	}
	s.Nodes = append(s.Nodes, Node{Name: name, Roles: []string{"worker"}, KubeletVersion: "v1.17.1", Ready: "True",
		CurrentConfig: "rendered-worker-new", DesiredConfig: "rendered-worker-new", MCDState: MCDStateDone})
	return &s.Nodes[len(s.Nodes)-1]
}

func forget(s *Snapshot, key, ns string) {
	for i := range s.Resources {
		if s.Resources[i].Resource == key && s.Resources[i].Namespace == ns {
			s.Resources[i].State, s.Resources[i].Reason = Forbidden, "forbidden by the test"
		}
	}
}

// drainHeld makes a node's drain wait: requested, not applied, cordoned, and the
// daemon Degraded with its drain timeout.
func drainHeld(n *Node) {
	n.DesiredDrain, n.LastAppliedDrain, n.Unschedulable = "drain-rendered-worker-new", "uncordon-rendered-worker-old", true
	n.MCDState, n.MCDReason = MCDStateDegraded, "failed to drain node: "+n.Name+" after 1 hour. Please see machine-config-controller logs for more information"
}

func webPDB(allowed int32) PodDisruptionBudget {
	return PodDisruptionBudget{Namespace: "shop", Name: "web", MinAvailable: "2", Selector: "app=web",
		CurrentHealthy: 2, DesiredHealthy: 2, ExpectedPods: 2, DisruptionsAllowed: allowed}
}

func pdbHoldsWorker(allowed int32) func(*Snapshot) {
	return func(s *Snapshot) {
		drainHeld(s.testNode("worker-0"))
		s.PodDisruptionBudgets = []PodDisruptionBudget{webPDB(allowed)}
		s.DrainPods = []DrainPod{{Namespace: "shop", Name: "web-1", Node: "worker-0", Phase: "Running", Ready: true, PDBs: []string{"shop/web"}, Owner: "ReplicaSet/web-5d8"}}
	}
}

func kasGuard(allowed int32) func(*Snapshot) {
	return func(s *Snapshot) {
		n := s.testNode("master-0")
		n.DesiredDrain, n.LastAppliedDrain, n.Unschedulable = "drain-rendered-master-new", "uncordon-rendered-master-old", true
		s.PodDisruptionBudgets = []PodDisruptionBudget{{Namespace: "openshift-kube-apiserver", Name: "kube-apiserver-guard-pdb", MinAvailable: "2",
			CurrentHealthy: 2, DesiredHealthy: 2, ExpectedPods: 3, DisruptionsAllowed: allowed}}
		s.DrainPods = []DrainPod{{Namespace: "openshift-kube-apiserver", Name: "kube-apiserver-guard-master-0", Node: "master-0", Phase: "Running", Ready: true,
			PDBs: []string{"openshift-kube-apiserver/kube-apiserver-guard-pdb"}}}
		op := s.StaticPodOperator("kube-apiserver")
		op.Guards = []GuardPod{{Name: "kube-apiserver-guard-master-0", Node: "master-0", Ready: true},
			{Name: "kube-apiserver-guard-master-1", Node: "master-1", Ready: true}, {Name: "kube-apiserver-guard-master-2", Node: "master-2"}}
	}
}

func csr(name, signer, user, cn string, created time.Time) CertificateSigningRequest {
	c := CertificateSigningRequest{Name: name, SignerName: signer, Username: user, CommonName: cn, Organizations: []string{openshift.NodesGroup},
		State: CSRStatePending, Created: created}
	if signer == openshift.SignerKubeletServing {
		c.Groups = []string{openshift.NodesGroup, "system:authenticated"}
		c.DNSNames = []string{strings.TrimPrefix(cn, openshift.NodeUserPrefix)}
	}
	return c
}

func cert(name string, life, remaining time.Duration) CertificateSecret {
	return CertificateSecret{Namespace: "openshift-kube-apiserver-operator", Name: name,
		NotBefore: fixtureNow.Add(remaining - life), NotAfter: fixtureNow.Add(remaining)}
}

func setCVCondition(cv *configv1.ClusterVersion, t, status, reason, msg string) {
	for i := range cv.Status.Conditions {
		if string(cv.Status.Conditions[i].Type) == t {
			cv.Status.Conditions[i] = configv1.ClusterOperatorStatusCondition{Type: configv1.ClusterStatusConditionType(t), Status: configv1.ConditionStatus(status), Reason: reason, Message: msg}
			return
		}
	}
	cv.Status.Conditions = append(cv.Status.Conditions, configv1.ClusterOperatorStatusCondition{Type: configv1.ClusterStatusConditionType(t), Status: configv1.ConditionStatus(status), Reason: reason, Message: msg})
}

func setCOCondition(co *configv1.ClusterOperator, t, status, reason, msg string) {
	for i := range co.Status.Conditions {
		if string(co.Status.Conditions[i].Type) == t {
			co.Status.Conditions[i] = configv1.ClusterOperatorStatusCondition{Type: configv1.ClusterStatusConditionType(t), Status: configv1.ConditionStatus(status), Reason: reason, Message: msg}
			return
		}
	}
	co.Status.Conditions = append(co.Status.Conditions, configv1.ClusterOperatorStatusCondition{Type: configv1.ClusterStatusConditionType(t), Status: configv1.ConditionStatus(status), Reason: reason, Message: msg})
}

const (
	msgCouldNotUpdate = `Could not update deployment "openshift-monitoring/cluster-monitoring-operator" (412 of 812): the object is invalid, possibly due to local cluster configuration`
	gatekeeperConfig  = "gatekeeper-validating-webhook-configuration"
	gatekeeperService = "gatekeeper-system/gatekeeper-webhook-service"
	gate44            = "ack-4.4-kube-1.18-api-removals-in-4.5"
	img445            = "quay.io/openshift-release-dev/ocp-release@sha256:4450000000000000000000000000000000000000000000000000000000000445"
	upgradeable47     = "Multiple cluster operators cannot be upgraded between minor versions:\n* Cluster operator etcd cannot be upgraded between minor versions: UnsupportedConfigOverrides_UnsupportedConfigOverridesSet: UnsupportedConfigOverridesUpgradeable: setting: [useUnsupportedUnsafeNonHANonProductionUnstableEtcd]\n* Cluster operator authentication cannot be upgraded between minor versions: UnsupportedConfigOverrides_UnsupportedConfigOverridesSet: UnsupportedConfigOverridesUpgradeable: setting: [useUnsupportedUnsafeNonHANonProductionUnstableOAuthServer]"
)

func gatekeeper(ready int32, policy string) Webhook {
	return Webhook{Kind: WebhookValidating, Configuration: gatekeeperConfig, Name: "validation.gatekeeper.sh", FailurePolicy: policy,
		Service: gatekeeperService, Rules: []string{"CREATE,UPDATE */* *"}, ReadyEndpoints: ready}
}

func requestMinor(f *fixture) {
	f.cv.Spec.DesiredUpdate = &configv1.Update{Version: "4.5.1", Image: "quay.io/openshift-release-dev/ocp-release@sha256:451"}
}

func updatingTo445(f *fixture) {
	f.cv.Spec.DesiredUpdate = &configv1.Update{Version: "4.4.5", Image: img445}
	f.cv.Status.Desired = configv1.Release{Version: "4.4.5", Image: img445}
	f.cv.Status.History = append([]configv1.UpdateHistory{{State: configv1.PartialUpdate, Version: "4.4.5", Image: img445, Verified: true, StartedTime: ago(30 * time.Minute)}}, f.cv.Status.History...)
}

// risk2026 is a conditional-update risk as a 2026 CVO writes it, with its
// Applies condition ("" for none).
func risk2026(name string, applies metav1.ConditionStatus) configv1.ConditionalUpdateRisk {
	r := configv1.ConditionalUpdateRisk{Name: name, URL: "https://issues.redhat.com/browse/OCPBUGS-" + name, Message: name + " may hurt this cluster.",
		MatchingRules: []configv1.ClusterCondition{{Type: "Always"}}}
	if applies != "" {
		r.Conditions = []metav1.Condition{{Type: "Applies", Status: applies, Reason: "Match"}}
	}
	return r
}

// preflight445 asks for a preflight of 4.4.5 while the cluster stays at its
// release, and reports the risks as a 2026 CVO would: riskNames on the
// conditional update, the risks with their Applies in conditionalUpdateRisks.
func preflight445(f *fixture, risks ...configv1.ConditionalUpdateRisk) {
	f.cv.Spec.DesiredUpdate = &configv1.Update{Version: "4.4.5", Image: img445, Mode: configv1.UpdateModePreflight}
	cu := configv1.ConditionalUpdate{Release: configv1.Release{Version: "4.4.5", Image: img445},
		Conditions: []metav1.Condition{{Type: "Recommended", Status: metav1.ConditionFalse, Reason: "MultipleReasons"}}}
	for _, r := range risks {
		cu.RiskNames = append(cu.RiskNames, r.Name)
		own := r
		own.Conditions = nil
		cu.Risks = append(cu.Risks, own)
	}
	f.cv.Status.ConditionalUpdates = []configv1.ConditionalUpdate{cu}
	f.cv.Status.ConditionalUpdateRisks = risks
}

// TestWedgeFindings checks, per wedge code, states where it fires (with the
// subject, class and details the finding details contract names) and states
// where it must stay silent, including facts that were not collected.
func TestWedgeFindings(t *testing.T) {
	for _, tc := range wedgeFindingCases() {
		t.Run(tc.name, func(t *testing.T) {
			s := stuckSnapshot(tc.mutate, tc.edit)
			g := assertFinding(t, s, tc.code, tc.subject)
			if g == nil {
				return
			}
			if tc.class != "" && g.Class != tc.class {
				t.Errorf("class %s, want %s", g.Class, tc.class)
			}
			for k, v := range tc.details {
				if g.Details[k] != v {
					t.Errorf("details[%s] = %q, want %q (all: %v)", k, g.Details[k], v, g.Details)
				}
			}
		})
	}
}

// assertClasses checks the contract that every finding has a class.
func assertClasses(t *testing.T, s *Snapshot) {
	t.Helper()
	for _, f := range s.Findings {
		if f.Class != ClassBlocks && f.Class != ClassInforms {
			t.Errorf("%s on %s has class %q", f.Code, f.Subject, f.Class)
		}
	}
}

func TestHealthyClusterWithWedgeFactsHasNoFindings(t *testing.T) {
	s := stuckSnapshot(nil, func(s *Snapshot) {
		s.PodDisruptionBudgets = []PodDisruptionBudget{webPDB(1)}
		s.Certificates = []CertificateSecret{cert(openshift.KubeletSigner, 365*24*time.Hour, 200*24*time.Hour)}
		s.Webhooks = []Webhook{gatekeeper(2, "Fail")}
	})
	if len(s.Findings) != 0 || len(s.Wedges) != 0 {
		t.Fatalf("a healthy cluster must have no findings and no wedges, got %s / %+v", codes(s.Findings), s.Wedges)
	}
}

// wedgeFindingCase is one row of TestWedgeFindings: a mutation of the stuck
// fixture and the subject the code must fire on ("" means: must not fire).
type wedgeFindingCase struct {
	name    string
	code    string
	subject string // "" means: must not fire at all
	mutate  func(*fixture)
	edit    func(*Snapshot)
	class   string            // the class it must have ("" = not checked)
	details map[string]string // details it must carry
}

// wedgeFindingCases are TestWedgeFindings' rows, also read by
// TestEveryCodeIsTestedAndDocumented.
func wedgeFindingCases() []wedgeFindingCase {
	return append([]wedgeFindingCase{
		{name: "PDB at its limit holds a drain", code: CodeDrainBlockedByPDB, subject: "poddisruptionbudget/shop/web", edit: pdbHoldsWorker(0), class: ClassBlocks,
			details: map[string]string{"namespace": "shop", "name": "web", "nodes": "worker-0", "pods": "shop/web-1", "disruptionsAllowed": "0", "currentHealthy": "2", "desiredHealthy": "2"}},
		{name: "PDB allowing a disruption", code: CodeDrainBlockedByPDB, edit: pdbHoldsWorker(1)},
		{name: "PDBs not collected", code: CodeDrainBlockedByPDB, edit: func(s *Snapshot) { pdbHoldsWorker(0)(s); forget(s, keyPDBs, "") }},
		{name: "PDB at its limit on a node that does not drain", code: CodeDrainBlockedByPDB, edit: func(s *Snapshot) {
			pdbHoldsWorker(0)(s)
			n := s.testNode("worker-0")
			n.DesiredDrain, n.Unschedulable, n.MCDState = n.LastAppliedDrain, false, MCDStateDone
		}},
		{name: "degraded node names the PDB holding its drain", code: CodeNodeDegraded, subject: "node/worker-0", edit: pdbHoldsWorker(0), class: ClassBlocks,
			details: map[string]string{"node": "worker-0", "class": NodeClassDrain, "cause": "poddisruptionbudget/shop/web"}},
		{name: "degraded node without the PDBs has no cause", code: CodeNodeDegraded, subject: "node/worker-0", edit: func(s *Snapshot) { pdbHoldsWorker(0)(s); forget(s, keyPDBs, "") },
			details: map[string]string{"class": NodeClassDrain, "cause": ""}},
		{name: "degraded node by a content mismatch", code: CodeNodeDegraded, subject: "node/worker-0", edit: func(s *Snapshot) {
			n := s.testNode("worker-0")
			n.MCDState, n.MCDReason = MCDStateDegraded, `unexpected on-disk state validating against rendered-worker-new: content mismatch for file "/etc/kubernetes/kubelet.conf"`
		}, details: map[string]string{"class": NodeClassContentMismatch}},

		{name: "guard PDB holds a master drain", code: CodeGuardPDBBlocksDrain, subject: "poddisruptionbudget/openshift-kube-apiserver/kube-apiserver-guard-pdb", edit: kasGuard(0), class: ClassBlocks,
			details: map[string]string{"component": "kube-apiserver", "unready": "master-2", "nodes": "master-0", "pods": "openshift-kube-apiserver/kube-apiserver-guard-master-0"}},
		{name: "guard PDB is not an ordinary PDB finding", code: CodeDrainBlockedByPDB, edit: kasGuard(0)},
		{name: "guard PDB allowing a disruption", code: CodeGuardPDBBlocksDrain, edit: kasGuard(1)},

		{name: "bootstrap CSR of a node not joined yet", code: CodeCSRPending, subject: "node/worker-1", class: ClassBlocks, edit: func(s *Snapshot) {
			s.Machines = []Machine{{Namespace: openshift.MachineAPINamespace, Name: "worker-1", Created: fixtureNow.Add(-20 * time.Minute),
				Addresses: []Address{{Type: "InternalDNS", Address: "worker-1"}}}}
			s.CertificateSigningRequests = []CertificateSigningRequest{
				csr("csr-b", openshift.SignerKubeletClient, openshift.NodeBootstrapper, "system:node:worker-1", fixtureNow.Add(-10*time.Minute)),
				csr("csr-a", openshift.SignerKubeletClient, "system:serviceaccount:default:intruder", "system:node:worker-1", fixtureNow.Add(-10*time.Minute)),
			}
		}, details: map[string]string{"node": "worker-1", "csrs": "csr-a,csr-b", "vouched": "csr-b", "unvouched": "csr-a", "signer": openshift.SignerKubeletClient}},
		{name: "bootstrap CSR of a node nobody expects informs", code: CodeCSRPending, subject: "node/worker-9", class: ClassInforms, edit: func(s *Snapshot) {
			s.Machines = []Machine{{Namespace: openshift.MachineAPINamespace, Name: "worker-1", Addresses: []Address{{Type: "InternalDNS", Address: "worker-1"}}}}
			s.CertificateSigningRequests = []CertificateSigningRequest{csr("csr-z", openshift.SignerKubeletClient, openshift.NodeBootstrapper, "system:node:worker-9", fixtureNow)}
		}, details: map[string]string{"node": "worker-9", "unvouched": "csr-z"}},
		{name: "client renewal of a NotReady node", code: CodeCSRPending, subject: "node/worker-0", class: ClassBlocks, edit: func(s *Snapshot) {
			s.testNode("worker-0").Ready = "Unknown"
			s.CertificateSigningRequests = []CertificateSigningRequest{csr("csr-r", openshift.SignerKubeletClient, "system:node:worker-0", "system:node:worker-0", fixtureNow)}
		}, details: map[string]string{"vouched": "csr-r"}},
		{name: "serving CSR of a Ready node informs", code: CodeCSRPending, subject: "node/worker-0", class: ClassInforms, edit: func(s *Snapshot) {
			s.testNode("worker-0").Addresses = []Address{{Type: "Hostname", Address: "worker-0"}}
			s.CertificateSigningRequests = []CertificateSigningRequest{csr("csr-s", openshift.SignerKubeletServing, "system:node:worker-0", "system:node:worker-0", fixtureNow)}
		}, details: map[string]string{"vouched": "csr-s", "signer": openshift.SignerKubeletServing}},
		{name: "CSRs not collected", code: CodeCSRPending, edit: func(s *Snapshot) {
			s.CertificateSigningRequests = []CertificateSigningRequest{csr("csr-b", openshift.SignerKubeletClient, openshift.NodeBootstrapper, "system:node:worker-1", fixtureNow)}
			forget(s, keyCSRs, "")
		}},
		{name: "approved CSR is not pending", code: CodeCSRPending, edit: func(s *Snapshot) {
			c := csr("csr-b", openshift.SignerKubeletClient, openshift.NodeBootstrapper, "system:node:worker-1", fixtureNow)
			c.State = CSRStateApproved
			s.CertificateSigningRequests = []CertificateSigningRequest{c}
		}},

		{name: "kubelet signer expires in 10 days", code: CodeCertificateExpiry, subject: "secret/openshift-kube-apiserver-operator/kube-apiserver-to-kubelet-signer", class: ClassBlocks,
			edit: func(s *Snapshot) {
				s.Certificates = []CertificateSecret{cert(openshift.KubeletSigner, 365*24*time.Hour, 10*24*time.Hour)}
			},
			details: map[string]string{"notAfter": "2020-06-12T11:00:00Z", "remaining": "240h0m0s"}},
		{name: "expired signer", code: CodeCertificateExpiry, subject: "secret/openshift-kube-apiserver-operator/kube-control-plane-signer", class: ClassBlocks,
			edit: func(s *Snapshot) {
				s.Certificates = []CertificateSecret{cert("kube-control-plane-signer", 60*24*time.Hour, -26*time.Hour)}
			},
			details: map[string]string{"remaining": "-26h0m0s"}},
		{name: "kubelet signer within 30 days warns", code: CodeCertificateExpiry, subject: "secret/openshift-kube-apiserver-operator/kube-apiserver-to-kubelet-signer", class: ClassInforms,
			edit: func(s *Snapshot) {
				s.Certificates = []CertificateSecret{cert(openshift.KubeletSigner, 365*24*time.Hour, 20*24*time.Hour)}
			}},
		{name: "30-day signer 20 days before expiry is healthy", code: CodeCertificateExpiry,
			edit: func(s *Snapshot) {
				s.Certificates = []CertificateSecret{cert("aggregator-client-signer", 30*24*time.Hour, 20*24*time.Hour)}
			}},
		{name: "signer far from expiry", code: CodeCertificateExpiry,
			edit: func(s *Snapshot) {
				s.Certificates = []CertificateSecret{cert(openshift.KubeletSigner, 365*24*time.Hour, 100*24*time.Hour)}
			}},

		{name: "operator with unsupportedConfigOverrides", code: CodeUpgradeableFalse, subject: "clusteroperator/etcd", class: ClassInforms, mutate: func(f *fixture) {
			setCOCondition(f.co("etcd"), "Upgradeable", "False", "UnsupportedConfigOverrides_UnsupportedConfigOverridesSet", "UnsupportedConfigOverridesUpgradeable: setting: [useUnsupportedUnsafeNonHANonProductionUnstableEtcd]")
		}, details: map[string]string{"class": UpgradeClassUnsupportedConfig, "reason": "UnsupportedConfigOverrides_UnsupportedConfigOverridesSet"}},
		{name: "Upgradeable=False blocks a minor update requested", code: CodeUpgradeableFalse, subject: "clusteroperator/kube-apiserver", class: ClassBlocks, mutate: func(f *fixture) {
			requestMinor(f)
			setCOCondition(f.co("kube-apiserver"), "Upgradeable", "False", "KubeletMinorVersion_KubeletMinorVersionUnsupportedNextUpgrade", "KubeletMinorVersionUpgradeable: Kubelet version (1.16) on node worker-0 will not be supported in the next OpenShift version upgrade.")
		}, details: map[string]string{"class": UpgradeClassKubeletSkew}},
		{name: "Upgradeable=False does not block a z-stream", code: CodeUpgradeableFalse, subject: "clusteroperator/etcd", class: ClassInforms, mutate: func(f *fixture) {
			f.cv.Spec.DesiredUpdate = &configv1.Update{Version: "4.4.5", Image: img445}
			setCOCondition(f.co("etcd"), "Upgradeable", "False", "UnsupportedConfigOverrides_UnsupportedConfigOverridesSet", "x")
		}},
		{name: "ClusterVersion's aggregated Upgradeable=False", code: CodeUpgradeableFalse, subject: "clusterversion/version", mutate: func(f *fixture) {
			setCVCondition(f.cv, "Upgradeable", "False", "ClusterOperatorsNotUpgradeable", upgradeable47)
		}, details: map[string]string{"class": UpgradeClassUnsupportedConfig, "operators": "authentication,etcd", "reason": "ClusterOperatorsNotUpgradeable"}},
		{name: "ClusterVersion overrides", code: CodeUpgradeableFalse, subject: "clusterversion/version", mutate: func(f *fixture) {
			setCVCondition(f.cv, "Upgradeable", "False", "ClusterVersionOverridesSet", "Disabling ownership via cluster version overrides prevents upgrades.")
		}, details: map[string]string{"class": UpgradeClassOverrides}},
		{name: "Upgradeable=False without ClusterVersion informs", code: CodeUpgradeableFalse, subject: "clusteroperator/etcd", class: ClassInforms, mutate: func(f *fixture) {
			f.cv = nil
			setCOCondition(f.co("etcd"), "Upgradeable", "False", "UnsupportedConfigOverrides_UnsupportedConfigOverridesSet", "x")
		}},
		{name: "Upgradeable Unknown says nothing", code: CodeUpgradeableFalse, mutate: func(f *fixture) {
			setCOCondition(f.co("etcd"), "Upgradeable", "Unknown", "NoData", "")
		}},

		{name: "admin gate of the current minor not acknowledged", code: CodeAdminAckRequired, subject: "admingate/" + gate44, class: ClassInforms, edit: func(s *Snapshot) {
			s.AdminGates.Gates[gate44] = "Kubernetes 1.18 and therefore OpenShift 4.5 remove several APIs which require admin consideration."
		}, details: map[string]string{"gate": gate44, "minor": "4.4"}},
		{name: "admin gate blocks the minor requested", code: CodeAdminAckRequired, subject: "admingate/" + gate44, class: ClassBlocks, mutate: requestMinor, edit: func(s *Snapshot) {
			s.AdminGates.Gates[gate44] = "APIs removed"
			s.AdminGates.Acks[gate44] = "yes"
		}},
		{name: "admin gate acknowledged", code: CodeAdminAckRequired, edit: func(s *Snapshot) {
			s.AdminGates.Gates[gate44] = "APIs removed"
			s.AdminGates.Acks[gate44] = "true"
		}},
		{name: "admin gate of another minor", code: CodeAdminAckRequired, edit: func(s *Snapshot) { s.AdminGates.Gates["ack-4.3-kube-1.17-api-removals-in-4.4"] = "x" }},
		{name: "admin-acks not collected", code: CodeAdminAckRequired, edit: func(s *Snapshot) {
			s.AdminGates.Gates[gate44] = "APIs removed"
			forget(s, keyConfigMaps, openshift.AdminAcksNamespace)
		}},

		{name: "removed API still called", code: CodeRemovedAPIInUse, subject: "apirequestcount/flowschemas.v1alpha1.flowcontrol.apiserver.k8s.io", class: ClassInforms, edit: func(s *Snapshot) {
			s.APIRequestCounts = []APIRequestCount{{Name: "flowschemas.v1alpha1.flowcontrol.apiserver.k8s.io", RemovedInRelease: "1.18", RequestCount: 12}}
		}, details: map[string]string{"removedInRelease": "1.18", "requests": "12"}},
		{name: "removed API blocks the minor that removes it", code: CodeRemovedAPIInUse, subject: "apirequestcount/flowschemas.v1alpha1.flowcontrol.apiserver.k8s.io", class: ClassBlocks, mutate: requestMinor, edit: func(s *Snapshot) {
			s.APIRequestCounts = []APIRequestCount{{Name: "flowschemas.v1alpha1.flowcontrol.apiserver.k8s.io", RemovedInRelease: "1.18", CurrentHour: 3}}
		}},
		{name: "removed API nobody calls", code: CodeRemovedAPIInUse, edit: func(s *Snapshot) {
			s.APIRequestCounts = []APIRequestCount{{Name: "flowschemas.v1alpha1.flowcontrol.apiserver.k8s.io", RemovedInRelease: "1.18"}}
		}},

		{name: "signature not verified", code: CodeReleaseNotAccepted, subject: cvSubject, class: ClassBlocks, mutate: func(f *fixture) {
			setCVCondition(f.cv, "ReleaseAccepted", "False", "RetrievePayload", `Retrieving payload failed version="4.4.5" image="`+img445+`" failure=The update cannot be verified: unable to verify sha256:445 against keyrings: verifier-public-key-redhat`)
		}, details: map[string]string{"class": ReleaseClassSignature, "reason": "RetrievePayload", "version": "4.4.5", "image": img445}},
		{name: "preconditions failed", code: CodeReleaseNotAccepted, subject: cvSubject, mutate: func(f *fixture) {
			setCVCondition(f.cv, "ReleaseAccepted", "False", "PreconditionChecks", `Preconditions failed for payload loaded version="4.5.1" image="quay.io/x@sha256:451": Precondition "ClusterVersionUpgradeable" failed because of "AdminAckRequired"`)
		}, details: map[string]string{"class": ReleaseClassPreconditions, "version": "4.5.1"}},
		{name: "release accepted", code: CodeReleaseNotAccepted, mutate: func(f *fixture) {
			setCVCondition(f.cv, "ReleaseAccepted", "True", "PayloadLoaded", `Payload loaded version="4.4.4"`)
		}},

		{name: "CVO stuck on a deployment a webhook refuses", code: CodeCVOStuckOnManifest, subject: "deployment/openshift-monitoring/cluster-monitoring-operator", class: ClassBlocks,
			mutate: func(f *fixture) {
				updatingTo445(f)
				setCVCondition(f.cv, "Failing", "True", "UpdatePayloadResourceInvalid", msgCouldNotUpdate)
				setCVCondition(f.cv, "Progressing", "True", "UpdatePayloadResourceInvalid", "Working towards 4.4.5: 411 of 812 done (50% complete)")
			}, edit: func(s *Snapshot) { s.Webhooks = []Webhook{gatekeeper(0, "Fail")} },
			details: map[string]string{"object": `deployment "openshift-monitoring/cluster-monitoring-operator"`, "done": "412", "total": "812", "reason": "UpdatePayloadResourceInvalid",
				"cause": "the object is invalid, possibly due to local cluster configuration", "blockers": "validatingwebhookconfiguration/" + gatekeeperConfig}},
		{name: "CVO stuck on a policy the error names", code: CodeCVOStuckOnManifest, subject: "configmap/openshift-config-managed/x", mutate: func(f *fixture) {
			setCVCondition(f.cv, "Failing", "True", "UpdatePayloadResourceForbidden", `Could not update configmap "openshift-config-managed/x" (12 of 800): ValidatingAdmissionPolicy 'deny-cm' with binding 'deny-cm-b' denied request: no`)
		}, details: map[string]string{"blockers": "validatingadmissionpolicy/deny-cm", "done": "12"}},
		{name: "CVO waiting on an operator is not stuck on a manifest", code: CodeCVOStuckOnManifest, mutate: func(f *fixture) {
			setCVCondition(f.cv, "Failing", "True", "ClusterOperatorDegraded", "Cluster operator machine-config is degraded")
		}},
		{name: "CVO not failing", code: CodeCVOStuckOnManifest, mutate: func(f *fixture) {
			setCVCondition(f.cv, "Progressing", "True", "", "Working towards 4.4.5: 411 of 812 done (50% complete)")
		}},

		{name: "webhook without endpoints", code: CodeWebhookUnavailable, subject: "validatingwebhookconfiguration/" + gatekeeperConfig, class: ClassBlocks,
			edit:    func(s *Snapshot) { s.Webhooks = []Webhook{gatekeeper(0, "Fail")} },
			details: map[string]string{"configuration": gatekeeperConfig, "webhook": "validation.gatekeeper.sh", "service": gatekeeperService, "failurePolicy": "Fail"}},
		{name: "webhook endpoints unknown", code: CodeWebhookUnavailable, edit: func(s *Snapshot) { s.Webhooks = []Webhook{gatekeeper(-1, "Fail")} }},
		{name: "webhook that ignores failures", code: CodeWebhookUnavailable, edit: func(s *Snapshot) { s.Webhooks = []Webhook{gatekeeper(0, "Ignore")} }},
		{name: "webhook with endpoints", code: CodeWebhookUnavailable, edit: func(s *Snapshot) { s.Webhooks = []Webhook{gatekeeper(2, "Fail")} }},

		{name: "risk on the in-flight target", code: CodeConditionalRiskOnTarget, subject: cvSubject, class: ClassBlocks, mutate: func(f *fixture) {
			updatingTo445(f)
			f.cv.Status.History[0].AcceptedRisks = "The target release 4.4.5 is exposed to the risks [AzureDefaultVMType] which were all explicitly accepted by the cluster administrator."
			f.cv.Status.ConditionalUpdates = []configv1.ConditionalUpdate{{Release: configv1.Release{Version: "4.4.5", Image: img445},
				Risks:      []configv1.ConditionalUpdateRisk{{Name: "AzureDefaultVMType", URL: "https://issues.redhat.com/browse/OCPBUGS-1", Message: "Azure clusters may lose their nodes."}},
				Conditions: []metav1.Condition{{Type: "Recommended", Status: metav1.ConditionFalse, Reason: "AzureDefaultVMType", Message: "Azure clusters may lose their nodes."}}}}
		}, details: map[string]string{"target": "4.4.5", "image": img445, "risks": "AzureDefaultVMType"}},
		{name: "recommended target", code: CodeConditionalRiskOnTarget, mutate: func(f *fixture) {
			updatingTo445(f)
			f.cv.Status.ConditionalUpdates = []configv1.ConditionalUpdate{{Release: configv1.Release{Version: "4.4.5", Image: img445},
				Risks:      []configv1.ConditionalUpdateRisk{{Name: "X", URL: "https://x", Message: "x"}},
				Conditions: []metav1.Condition{{Type: "Recommended", Status: metav1.ConditionTrue, Reason: "NotExposedToRisks"}}}}
		}},
		{name: "a risky update not taken", code: CodeConditionalRiskOnTarget, mutate: func(f *fixture) {
			f.cv.Status.ConditionalUpdates = []configv1.ConditionalUpdate{{Release: configv1.Release{Version: "4.4.5", Image: img445},
				Conditions: []metav1.Condition{{Type: "Recommended", Status: metav1.ConditionFalse, Reason: "X"}}}}
		}},

		// The 2026 update API: status.conditionalUpdateRisks says which risks
		// apply; one that does not is no risk on the target.
		{name: "2026 API: only the risk that applies is named", code: CodeConditionalRiskOnTarget, subject: cvSubject, class: ClassBlocks, mutate: func(f *fixture) {
			updatingTo445(f)
			f.cv.Status.ConditionalUpdates = []configv1.ConditionalUpdate{{Release: configv1.Release{Version: "4.4.5", Image: img445}, RiskNames: []string{"AWSOnly", "AzureDefaultVMType"},
				Risks:      []configv1.ConditionalUpdateRisk{risk2026("AzureDefaultVMType", ""), risk2026("AWSOnly", "")},
				Conditions: []metav1.Condition{{Type: "Recommended", Status: metav1.ConditionFalse, Reason: "AzureDefaultVMType"}}}}
			f.cv.Status.ConditionalUpdateRisks = []configv1.ConditionalUpdateRisk{risk2026("AWSOnly", metav1.ConditionFalse), risk2026("AzureDefaultVMType", metav1.ConditionTrue)}
		}, details: map[string]string{"target": "4.4.5", "risks": "AzureDefaultVMType"}},
		{name: "a preflight target is not the release the cluster updates to", code: CodeConditionalRiskOnTarget, mutate: func(f *fixture) {
			preflight445(f, risk2026("AzureDefaultVMType", metav1.ConditionTrue))
		}},

		{name: "preflight found a risk that applies", code: CodeUpdatePreflight, subject: cvSubject, class: ClassInforms, mutate: func(f *fixture) {
			preflight445(f, risk2026("AzureDefaultVMType", metav1.ConditionTrue), risk2026("AWSOnly", metav1.ConditionFalse), risk2026("PromDown", metav1.ConditionUnknown))
		}, details: map[string]string{"target": "4.4.5", "result": "exposed", "risks": "AzureDefaultVMType,PromDown", "unknown": "PromDown", "notApplying": "AWSOnly", "accepted": ""}},
		{name: "preflight risks already accepted", code: CodeUpdatePreflight, subject: cvSubject, mutate: func(f *fixture) {
			preflight445(f, risk2026("AzureDefaultVMType", metav1.ConditionTrue))
			f.cv.Spec.DesiredUpdate.AcceptRisks = []configv1.AcceptRisk{{Name: "AzureDefaultVMType"}}
		}, details: map[string]string{"result": "accepted", "risks": "", "accepted": "AzureDefaultVMType"}},
		{name: "preflight of a recommended update", code: CodeUpdatePreflight, subject: cvSubject, mutate: func(f *fixture) {
			f.cv.Spec.DesiredUpdate = &configv1.Update{Version: "4.4.5", Mode: configv1.UpdateModePreflight}
			f.cv.Status.AvailableUpdates = []configv1.Release{{Version: "4.4.5", Image: img445}}
		}, details: map[string]string{"result": "recommended"}},
		{name: "preflight with no result yet", code: CodeUpdatePreflight, subject: cvSubject, mutate: func(f *fixture) {
			f.cv.Spec.DesiredUpdate = &configv1.Update{Version: "4.4.5", Mode: configv1.UpdateModePreflight}
		}, details: map[string]string{"result": "none", "target": "4.4.5"}},
		{name: "a normal update is no preflight", code: CodeUpdatePreflight, mutate: func(f *fixture) {
			updatingTo445(f)
			f.cv.Status.ConditionalUpdates = []configv1.ConditionalUpdate{{Release: configv1.Release{Version: "4.4.5", Image: img445},
				Risks: []configv1.ConditionalUpdateRisk{risk2026("AzureDefaultVMType", metav1.ConditionTrue)}}}
		}},
		{name: "accepted risks alone are no preflight", code: CodeUpdatePreflight, mutate: func(f *fixture) {
			f.cv.Spec.DesiredUpdate = &configv1.Update{AcceptRisks: []configv1.AcceptRisk{{Name: "AzureDefaultVMType"}}}
		}},

		{name: "static-pod revision keeps failing", code: CodeStaticPodRolloutStuck, subject: "node/master-2", class: ClassBlocks, mutate: func(f *fixture) {
			f.kas.LatestAvailableRevision = 6
			f.kas.NodeStatuses[2] = operatorv1.NodeStatus{NodeName: "master-2", CurrentRevision: 5, TargetRevision: 6, LastFailedRevision: 6, LastFailedCount: 3, LastFallbackCount: 1,
				LastFailedReason: "InstallerFailed", LastFailedRevisionErrors: []string{"installer: context deadline exceeded"}}
			setCOCondition(f.co("kube-apiserver"), "Degraded", "True", "NodeInstaller_InstallerPodFailed", "NodeInstallerDegraded: 1 nodes are failing on revision 6")
		}, details: map[string]string{"component": "kube-apiserver", "node": "master-2", "target": "6", "lastFailed": "6", "failedCount": "3", "fallbackCount": "1", "reason": "InstallerFailed"}},
		{name: "an old failure the node got past", code: CodeStaticPodRolloutStuck, mutate: func(f *fixture) {
			f.kas.NodeStatuses[2] = operatorv1.NodeStatus{NodeName: "master-2", CurrentRevision: 5, LastFailedRevision: 4, LastFailedCount: 1}
		}},

		{name: "completed with a degraded worker pool", code: CodeCompletedWithPoolsBehind, subject: "machineconfigpool/worker", class: ClassBlocks, mutate: func(f *fixture) {
			f.pools[1].Status.UpdatedMachineCount, f.pools[1].Status.DegradedMachineCount = 0, 1
		}, details: map[string]string{"pool": "worker"}},
		{name: "completed with workers still rolling", code: CodeCompletedWithPoolsBehind, subject: "machineconfigpool/worker", class: ClassInforms, mutate: func(f *fixture) {
			f.pools[1].Status.UpdatedMachineCount = 0
		}},
		{name: "pools behind during an update", code: CodeCompletedWithPoolsBehind, mutate: func(f *fixture) {
			f.cv.Status.History[0].State = configv1.PartialUpdate
			f.pools[1].Status.UpdatedMachineCount = 0
		}},

		{name: "previous update never completed", code: CodePreviousUpdateIncomplete, subject: cvSubject, class: ClassInforms, mutate: func(f *fixture) {
			f.cv.Status.History[0].State = configv1.PartialUpdate
			updatingTo445(f)
		}, details: map[string]string{"previous": "4.4.4", "lastCompleted": "4.4.3", "target": "4.4.5"}},
		{name: "previous update completed", code: CodePreviousUpdateIncomplete, mutate: updatingTo445},

		{name: "paused master pool behind during an update blocks", code: CodePoolPaused, subject: "machineconfigpool/master", class: ClassBlocks, mutate: func(f *fixture) {
			f.cv.Status.History[0].State = configv1.PartialUpdate
			f.pools[0].Spec.Paused = true
			f.pools[0].Status.UpdatedMachineCount = 2
		}, details: map[string]string{"pool": "master", "blocks": "true"}},
		{name: "paused worker pool in step informs", code: CodePoolPaused, subject: "machineconfigpool/worker", class: ClassInforms, mutate: func(f *fixture) {
			f.pools[1].Spec.Paused = true
		}, details: map[string]string{"blocks": "false"}},
	}, logFindingCases()...)
}
