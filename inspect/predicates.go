package inspect

import (
	"fmt"
	"sort"
	"strings"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/openshift-recover/recover/internal/openshift"
)

// The predicates below answer "is this component where it should be, and healthy?"
// once, for every layer: the findings (Analyze), the planner and its checker ask
// them of a snapshot; apply's gates reduce the live objects with the same
// converters (NodeFromAPI, MachineConfigPoolFromAPI, ...) and ask them again. So
// the plan, the checker and the engine never answer one question two ways.

// Verdict is a predicate's answer: OK, or what is still missing (one item each,
// in a stable order).
type Verdict struct {
	OK      bool     `json:"ok"`
	Pending []string `json:"pending,omitempty"`
}

// verdict builds a Verdict from the pending items.
func verdict(pending []string) Verdict { return Verdict{OK: len(pending) == 0, Pending: pending} }

// String joins the pending items ("" when OK).
func (v Verdict) String() string { return strings.Join(v.Pending, "; ") }

// OperatorAt reports whether the CVO would be done waiting on a ClusterOperator
// whose manifest declares want: OperatorWaitFor's verdict, whatever the time
// waited. A nil operator is not there yet. The planner's skip rule
// (plan.OperatorAtTarget) and the cluster-operator gate both answer through
// here.
func OperatorAt(co *ClusterOperator, want []configv1.OperandVersion) Verdict {
	return OperatorWaitFor(co, "", want, 0).Verdict
}

func coConditionStatus(c *configv1.ClusterOperatorStatusCondition) string {
	if c == nil {
		return "missing"
	}
	s := string(c.Status)
	if c.Reason != "" {
		s += " (" + c.Reason + ")"
	}
	return s
}

// GatesUpdate reports whether the machine-config operator waits for this pool
// before it reports its new version, so that an update cannot complete while the
// pool lags: the master pool and any pool labelled
// operator.machineconfiguration.openshift.io/required-for-upgrade
// (machine-config-operator pkg/operator/sync.go syncRequiredMachineConfigPools).
// Other pools do not hold ClusterVersion's Completed.
func (p MachineConfigPool) GatesUpdate() bool {
	return p.RequiredForUpgrade || p.Name == openshift.PoolMaster
}

// Rolling reports whether the pool has machines not yet on its
// spec.configuration: fewer updated machines than machines, or a
// status.configuration that is not the spec's yet. A pool that is not Rolling
// may still be unhealthy (degraded machines, an unobserved spec); PoolRolledOut
// answers whether it is done, and is never OK for a Rolling pool.
func (p MachineConfigPool) Rolling() bool {
	return p.UpdatedMachineCount < p.MachineCount || p.statusBehindSpec()
}

// statusBehindSpec: status.configuration is reported and is not yet the spec's.
func (p MachineConfigPool) statusBehindSpec() bool {
	return p.StatusConfiguration != "" && p.StatusConfiguration != p.Configuration
}

// PoolRolledOut reports whether a MachineConfigPool has rolled out its
// configuration: status observed the spec, every machine updated and on the
// spec's configuration (not Rolling), none degraded, and Updated (when reported)
// True.
func PoolRolledOut(p MachineConfigPool) Verdict {
	var pending []string
	if p.ObservedGeneration < p.Generation {
		pending = append(pending, fmt.Sprintf("status not observed yet (generation %d, observed %d)", p.Generation, p.ObservedGeneration))
	}
	if p.UpdatedMachineCount != p.MachineCount {
		pending = append(pending, fmt.Sprintf("%d of %d machines updated", p.UpdatedMachineCount, p.MachineCount))
	}
	if p.statusBehindSpec() {
		pending = append(pending, fmt.Sprintf("status.configuration %s, not yet %s", p.StatusConfiguration, p.Configuration))
	}
	if p.DegradedMachineCount > 0 {
		pending = append(pending, fmt.Sprintf("%d machines degraded", p.DegradedMachineCount))
	}
	for _, c := range p.Conditions {
		if c.Type == mcfgv1.MachineConfigPoolUpdated && c.Status != corev1.ConditionTrue {
			pending = append(pending, "Updated="+string(c.Status))
		}
	}
	return verdict(pending)
}

// StaticPodsAt reports whether every node in nodes runs the operand's mirror pod
// at the operator's latest available revision (and at least minRevision, when it
// is not 0: a rollout recover asked for must have produced a new revision),
// Running and Ready, with the operator's nodeStatuses claiming that revision too.
// A node whose mirror pod disagrees with its claim is named: the claim is wrong
// (the second incident).
func StaticPodsAt(op *StaticPodOperator, nodes []string, minRevision int32) Verdict {
	if op == nil || !op.Present {
		return verdict([]string{"the static-pod operator does not exist"})
	}
	latest := op.LatestAvailableRevision
	if latest == 0 {
		return verdict([]string{"no latestAvailableRevision yet"})
	}
	if minRevision > 0 && latest < minRevision {
		return verdict([]string{fmt.Sprintf("latest revision is %d, waiting for revision %d", latest, minRevision)})
	}
	if len(nodes) == 0 {
		return verdict([]string{"no node to run it"})
	}
	claimed := map[string]int32{}
	for _, ns := range op.NodeStatuses {
		claimed[ns.NodeName] = ns.CurrentRevision
	}
	mirrors := map[string]*StaticPod{}
	for i := range op.MirrorPods {
		mirrors[op.MirrorPods[i].Node] = &op.MirrorPods[i]
	}
	sorted := append([]string(nil), nodes...)
	sort.Strings(sorted)
	var pending []string
	for _, node := range sorted {
		p := mirrors[node]
		claim, hasClaim := claimed[node]
		switch {
		case p == nil:
			pending = append(pending, fmt.Sprintf("%s: no mirror pod", node))
			continue
		case p.Revision != latest:
			msg := fmt.Sprintf("%s: mirror pod %s runs revision %s, latest is %d", node, p.Name, revisionText(p.Revision), latest)
			if hasClaim && claim == latest {
				msg += fmt.Sprintf(" (the operator claims currentRevision %d: the claim is wrong)", claim)
			}
			pending = append(pending, msg)
			continue
		case p.Phase != string(corev1.PodRunning) || !p.Ready:
			pending = append(pending, fmt.Sprintf("%s: mirror pod %s at revision %d is not running and ready (phase %s)", node, p.Name, latest, orNone(p.Phase)))
			continue
		}
		if !hasClaim || claim != latest {
			pending = append(pending, fmt.Sprintf("%s: mirror pod runs revision %d but the operator's nodeStatuses say currentRevision %d", node, latest, claim))
		}
	}
	return verdict(pending)
}

func revisionText(r int32) string {
	if r == 0 {
		return "none"
	}
	return fmt.Sprint(r)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// The machine-config daemon's states (machine-config-operator pkg/daemon/constants).
const (
	MCDStateDone           = "Done"
	MCDStateWorking        = "Working"
	MCDStateDegraded       = "Degraded"
	MCDStateUnreconcilable = "Unreconcilable"
)

// Draining reports whether a drain of the node was requested and has not
// completed: desiredDrain asks for a drain ("drain-...") that lastAppliedDrain
// does not record yet.
func (n *Node) Draining() bool {
	return strings.HasPrefix(n.DesiredDrain, openshift.DrainPrefix) && n.DesiredDrain != n.LastAppliedDrain
}

// DrainTrouble reports whether a drain may be held on the node: it is draining,
// cordoned, or its machine-config daemon is Degraded.
func (n *Node) DrainTrouble() bool {
	return n.Draining() || n.Unschedulable || n.MCDState == MCDStateDegraded
}

// NodeSettled reports whether the machine-config daemon is done with a node: the
// last requested drain or uncordon was applied, the daemon is Done, and the node
// runs the configuration it was asked to (what a relaxed PodDisruptionBudget
// waits for before it is restored).
func NodeSettled(n Node) Verdict {
	var pending []string
	if n.DesiredDrain != n.LastAppliedDrain {
		pending = append(pending, fmt.Sprintf("%s: drain request %s not applied (last applied %s)", n.Name, orNone(n.DesiredDrain), orNone(n.LastAppliedDrain)))
	}
	if n.MCDState != MCDStateDone {
		what := fmt.Sprintf("%s: machine-config daemon is %s", n.Name, orNone(n.MCDState))
		if n.MCDReason != "" && n.MCDState == MCDStateDegraded {
			what += ": " + oneLine(n.MCDReason)
		}
		pending = append(pending, what)
	}
	if n.DesiredConfig != "" && n.CurrentConfig != n.DesiredConfig {
		pending = append(pending, fmt.Sprintf("%s: runs %s, asked for %s", n.Name, orNone(n.CurrentConfig), n.DesiredConfig))
	}
	return verdict(pending)
}

// NodeReady reports whether the node's Ready condition is True.
func NodeReady(n Node) Verdict {
	if n.Ready == string(corev1.ConditionTrue) {
		return Verdict{OK: true}
	}
	what := fmt.Sprintf("%s: Ready=%s", n.Name, orNone(n.Ready))
	if n.ReadyMessage != "" {
		what += " (" + oneLine(n.ReadyMessage) + ")"
	}
	return verdict([]string{what})
}

// CSRIssued reports whether a certificate signing request was approved and its
// certificate issued.
func CSRIssued(c CertificateSigningRequest) Verdict {
	if c.State == CSRStateIssued {
		return Verdict{OK: true}
	}
	return verdict([]string{fmt.Sprintf("certificatesigningrequest/%s is %s", c.Name, c.State)})
}

// PDBAtLimit reports whether a PodDisruptionBudget allows no disruption while it
// guards healthy pods: a drain of any of its pods waits (the CVO's readiness check
// pdb_drain uses the same test).
func PDBAtLimit(p PodDisruptionBudget) bool {
	return p.DisruptionsAllowed == 0 && p.CurrentHealthy > 0
}

// ConditionCleared reports whether a ClusterVersion's or ClusterOperator's
// conditions no longer hold condType in its blocking state with reason: False
// (True for Degraded and Failing), with that Reason when reason is not "". A
// remedy of an Upgradeable=False or ReleaseAccepted=False waits for it; an
// absent condition is cleared.
func ConditionCleared(conds []configv1.ClusterOperatorStatusCondition, condType, reason string) Verdict {
	blocking := configv1.ConditionFalse
	if condType == string(configv1.OperatorDegraded) || condType == openshift.ConditionFailing {
		blocking = configv1.ConditionTrue
	}
	for _, c := range conds {
		if string(c.Type) != condType || c.Status != blocking || (reason != "" && c.Reason != reason) {
			continue
		}
		what := fmt.Sprintf("%s=%s", condType, c.Status)
		if c.Reason != "" {
			what += " (" + c.Reason + ")"
		}
		if c.Message != "" {
			what += ": " + oneLine(c.Message)
		}
		return verdict([]string{what})
	}
	return Verdict{OK: true}
}

// ReleaseNotAccepted returns ClusterVersion's ReleaseAccepted condition when it
// is False (the CVO could not retrieve, verify or precondition-check the
// release it was asked for), else nil. The ReleaseNotAccepted finding and the
// cvo-running gate both read it here.
func ReleaseNotAccepted(conds []configv1.ClusterOperatorStatusCondition) *configv1.ClusterOperatorStatusCondition {
	for i := range conds {
		if conds[i].Type == openshift.ConditionReleaseAccepted && conds[i].Status == configv1.ConditionFalse {
			return &conds[i]
		}
	}
	return nil
}
