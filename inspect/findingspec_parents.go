package inspect

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/openshift-recover/recover/internal/openshift"
)

// The parent rules of the finding registry: which group explains a group
// (docs/findings.md "The wedge summary"). Each is FindingSpec.parent of the
// codes it serves; kind and arg are the group key split at its first "|".

// parentNodeDegraded: nodes a PodDisruptionBudget holds are explained by it.
func parentNodeDegraded(w *wedger, _ *wedgeGroup, kind, arg string) string {
	if kind != "nodes-held-by" {
		return ""
	}
	if k := w.groupWith(CodeDrainBlockedByPDB, arg); k != "" {
		return k
	}
	if k := w.groupWith(CodeDrainBlockedByUnseenPDB, arg); k != "" {
		return k
	}
	return w.groupWith(CodeGuardPDBBlocksDrain, arg)
}

// parentClaimedCompleteButMixed: the abandoned update the CVO's log proves is
// why history says Completed.
func parentClaimedCompleteButMixed(w *wedger, _ *wedgeGroup, _, _ string) string {
	return w.blockingGroupWith(CodeCVOAbandonedUpdate)
}

// parentInstallerInterrupted: the installer's own log proves the phase (and so
// the claimed revision) wrong.
func parentInstallerInterrupted(w *wedger, _ *wedgeGroup, _, arg string) string {
	if k := w.exists(CodeInstallerInterrupted + "|" + arg); k != "" && w.hasClass(k, ClassBlocks) {
		return k
	}
	return ""
}

// parentPool: a degraded pool is explained by its degraded nodes.
func parentPool(w *wedger, g *wedgeGroup, _, arg string) string {
	s := w.s
	for _, f := range g.members {
		if f.Code != CodePoolDegraded && !(f.Code == CodeCompletedWithPoolsBehind && f.Class == ClassBlocks) {
			continue
		}
		var names []string
		for i := range s.Nodes {
			if n := &s.Nodes[i]; s.NodePool(n) == arg && (n.MCDState == MCDStateDegraded || n.MCDState == MCDStateUnreconcilable) {
				names = append(names, n.Name)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			if k := w.groupWith(CodeNodeDegraded, "node/"+n); k != "" {
				return k
			}
		}
	}
	return ""
}

// parentOperator: an operator degraded or unavailable because of something
// below it.
func parentOperator(w *wedger, g *wedgeGroup, _, _ string) string {
	s := w.s
	for _, f := range g.members {
		if f.Code != CodeOperatorDegraded && f.Code != CodeOperatorUnavailable {
			continue
		}
		co := s.ClusterOperator(strings.TrimPrefix(f.Subject, "clusteroperator/"))
		if co == nil {
			continue
		}
		// A control-plane operator degraded by the member its guard PDB
		// names as not ready.
		for _, k := range w.order {
			for _, m := range w.groups[k].members {
				if m.Code == CodeGuardPDBBlocksDrain && m.Details["unready"] != "" && w.operatorOf(m.Details["component"]) == co.Name {
					return k
				}
			}
		}
		for _, c := range co.Conditions {
			if string(c.Type) != string(conditionOfCode(f.Code)) {
				continue
			}
			// machine-config waits on a pool.
			for _, m := range poolInMessage.FindAllStringSubmatch(c.Message, -1) {
				if k := w.exists("pool|" + firstNonEmpty(m[1], m[2])); k != "" {
					return k
				}
			}
			// The static-pod installer failing on a node.
			if strings.Contains(c.Reason, openshift.ReasonNodeInstallerPodFailed) {
				if k := w.exists(CodeStaticPodRolloutStuck + "|" + operandOf(co.Name)); k != "" {
					return k
				}
			}
			// A control-plane operand short of instances while masters are
			// cordoned for an update they cannot take: the nodes are the cause.
			if k := w.cordonedMasterExplaining(c.Message); k != "" {
				return k
			}
			// The control-plane operators degrade while a master is NotReady.
			if strings.Contains(c.Reason, "MasterNodesReady") {
				for i := range s.Nodes {
					if n := &s.Nodes[i]; n.IsControlPlane() && !NodeReady(*n).OK {
						if k := w.groupWith(CodeNodeNotReady, "node/"+n.Name); k != "" {
							return k
						}
					}
				}
			}
		}
	}
	return ""
}

// unavailableInstances finds library-go's workload controller's Degraded and
// Available message, "%d of %d requested instances are unavailable for
// <deployment>.<namespace>" (library-go pkg/operator/apiserver/controller/
// workload/workload.go), as the authentication and openshift-apiserver
// operators report while a master is drained.
var unavailableInstances = regexp.MustCompile(`(\d+) of \d+ requested instances are unavailable`)

// cordonedMasterExplaining returns the group of a control-plane node that is
// cordoned for its update and cannot take it (its machine-config daemon is
// Degraded: the OS image does not pull, the drain is held, ...), when such
// nodes account for every instance an operator's condition message says is
// unavailable ("" otherwise). A control-plane operand runs one instance per
// master, so a master drained for an update that never lands leaves it one
// short: the node is the cause, the operator its effect (issue 32, oc's 4.20
// cluster ocpbugs-60768).
func (w *wedger) cordonedMasterExplaining(msg string) string {
	short := 0
	for _, m := range unavailableInstances.FindAllStringSubmatch(msg, -1) {
		if n, err := strconv.Atoi(m[1]); err == nil && n > short {
			short = n
		}
	}
	if short == 0 {
		return ""
	}
	var keys []string
	for i := range w.s.Nodes {
		n := &w.s.Nodes[i]
		if !n.IsControlPlane() || !(n.Unschedulable || n.Draining()) {
			continue
		}
		if k := w.groupWith(CodeNodeDegraded, "node/"+n.Name); k != "" {
			keys = append(keys, k)
		}
	}
	if len(keys) < short {
		return ""
	}
	return keys[0]
}

// parentClusterVersionFailing: the manifest the CVO is stuck on, or the
// operator its Failing message names.
func parentClusterVersionFailing(w *wedger, g *wedgeGroup, _, _ string) string {
	s := w.s
	f := g.members[0]
	if k := w.groupWith(CodeCVOStuckOnManifest, ""); k != "" {
		return k
	}
	if k := w.blockingGroupWith(CodeCVORetryingManifest); k != "" {
		return k
	}
	if cv := s.ClusterVersion; cv != nil && strings.HasPrefix(f.Details["reason"], "ClusterOperator") {
		if c := cvCondition(cv, openshift.ConditionFailing); c != nil {
			for _, name := range operatorsInFailing(c.Message) {
				if k := w.exists("operator|clusteroperator/" + name); k != "" {
					return k
				}
			}
		}
	}
	return ""
}

// parentWebhookUnavailable: the manifest the webhook refuses.
func parentWebhookUnavailable(w *wedger, g *wedgeGroup, _, _ string) string {
	for _, k := range w.order {
		for _, m := range w.groups[k].members {
			if m.Code == CodeCVOStuckOnManifest && containsString(strings.Split(m.Details["blockers"], ","), arg0(g)) {
				return k
			}
		}
	}
	return ""
}

// upgradeableParent is the group an Upgradeable=False class folds into.
var upgradeableParent = map[string]func(w *wedger) string{
	UpgradeClassAdminAck:  func(w *wedger) string { return w.exists("admin-ack") },
	UpgradeClassOverrides: func(w *wedger) string { return w.groupWith(CodeUnmanagedOverrides, "") },
	UpgradeClassDegradedPool: func(w *wedger) string {
		for _, p := range w.s.MachineConfigPools {
			if k := w.exists("pool|" + p.Name); k != "" && w.hasCode(k, CodePoolDegraded) {
				return k
			}
		}
		return ""
	},
}

// parentUpgradeable: ClusterVersion's aggregate joins the first of its
// operators' lines; a class joins the admin gate, overrides or pool it reports.
func parentUpgradeable(w *wedger, g *wedgeGroup, _, arg string) string {
	if arg == UpgradeClassOther && len(g.members) == 1 {
		// ClusterVersion's aggregate of operators of different classes, alone
		// in its line: it belongs with the first of them.
		for _, f := range g.members {
			if f.Subject != cvSubject {
				continue
			}
			for _, c := range cvUpgradeableClasses(w.s) {
				if k := w.upgradeableTarget(c); k != "" && k != g.key {
					return k
				}
			}
		}
	}
	if p := upgradeableParent[arg]; p != nil {
		return p(w)
	}
	return ""
}

// parentReleaseNotAccepted: a precondition that failed because of an
// Upgradeable=False reason is that reason's line.
func parentReleaseNotAccepted(w *wedger, g *wedgeGroup, _, _ string) string {
	f := g.members[0]
	if f.Details["class"] != ReleaseClassPreconditions {
		return ""
	}
	msg := ""
	if c := cvCondition(w.s.ClusterVersion, openshift.ConditionReleaseAccepted); c != nil {
		msg = c.Message
	}
	for _, m := range preconditionReason.FindAllStringSubmatch(msg, -1) {
		if k := w.upgradeableTarget(ClassifyUpgradeable(m[1])); k != "" {
			return k
		}
	}
	return ""
}

// parentMixedOperatorVersions: the update that left them mixed.
func parentMixedOperatorVersions(w *wedger, _ *wedgeGroup, _, _ string) string {
	if k := w.groupWith(CodeUpdateClaimedCompleteButMixed, ""); k != "" {
		return k
	}
	return w.groupWith(CodeUpdateInProgress, "")
}
