package inspect

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/openshift-recover/recover/internal/openshift"
)

// drainRule is the rule every drain finding measures against.
const drainRule = "an eviction is refused with 429 \"" + openshift.EvictionRefused + "\" while disruptionsAllowed is 0; " +
	"the machine-config controller drains through the Eviction API, retries every minute and the daemon reports the node Degraded after 1 hour " +
	"(kubernetes pkg/registry/core/pod/storage/eviction.go; machine-config-operator pkg/controller/drain/drain_controller.go)"

// drains finds the PodDisruptionBudgets at their limit that guard pods on nodes
// whose drain is held (DrainBlockedByPDB, GuardPDBBlocksDrain), and records which
// nodes each holds so that NodeDegraded can name its cause.
func (a *analysis) drains() {
	s := a.s
	a.drainCause = map[string][]string{}
	if !s.collectedIn(keyPDBs, "") {
		return
	}
	nodes := map[string]*Node{}
	for i := range s.Nodes {
		nodes[s.Nodes[i].Name] = &s.Nodes[i]
	}
	for _, p := range s.PodDisruptionBudgets {
		if !PDBAtLimit(p) || !s.collectedIn(keyPods, p.Namespace) {
			continue
		}
		var pods []DrainPod
		held := map[string]bool{}
		for _, d := range s.DrainPods {
			n := nodes[d.Node]
			if n == nil || !n.DrainTrouble() || !containsString(d.PDBs, p.Key()) {
				continue
			}
			pods = append(pods, d)
			held[d.Node] = true
		}
		if len(pods) == 0 {
			continue
		}
		heldNodes := sortedKeys(held)
		var podNames []string
		for _, d := range pods {
			podNames = append(podNames, d.Namespace+"/"+d.Name)
		}
		sort.Strings(podNames)
		subject := "poddisruptionbudget/" + p.Key()
		details := map[string]string{
			"namespace": p.Namespace, "name": p.Name,
			"nodes": strings.Join(heldNodes, ","), "pods": strings.Join(podNames, ","),
			"disruptionsAllowed": strconv.Itoa(int(p.DisruptionsAllowed)),
			"currentHealthy":     strconv.Itoa(int(p.CurrentHealthy)),
			"desiredHealthy":     strconv.Itoa(int(p.DesiredHealthy)),
		}
		ev := []Evidence{claim(fmt.Sprintf("disruptionsAllowed %d, currentHealthy %d, desiredHealthy %d, expectedPods %d (minAvailable %s, maxUnavailable %s)",
			p.DisruptionsAllowed, p.CurrentHealthy, p.DesiredHealthy, p.ExpectedPods, orNone(p.MinAvailable), orNone(p.MaxUnavailable)), subject+" status")}
		for _, name := range heldNodes {
			ev = append(ev, reality(drainState(nodes[name]), "node/"+name+" annotations"))
		}
		for _, d := range pods {
			ev = append(ev, reality(fmt.Sprintf("pod %s/%s on %s, ready %t, phase %s, owner %s", d.Namespace, d.Name, d.Node, d.Ready, orNone(d.Phase), orNone(d.Owner)), "pod "+d.Namespace+"/"+d.Name))
		}
		budget := fmt.Sprintf("%d healthy, %d required", p.CurrentHealthy, p.DesiredHealthy)
		if comp := GuardOf(p.Namespace, p.Name); comp != nil {
			unready, uev := a.unreadyMembers(comp)
			d := copyMap(details)
			d["component"], d["unready"] = comp.Component, strings.Join(unready, ",")
			why := "which member is not ready is unknown"
			if len(unready) > 0 {
				why = fmt.Sprintf("%s is not ready on %s", comp.Component, strings.Join(unready, ", "))
			} else if s.collectedIn(keyPods, comp.Namespace) {
				why = "no member reports not ready (one may be restarting)"
			}
			ev = append(append(ev, uev...), rule(drainRule), rule(guardRule(comp)))
			a.add(Finding{Code: CodeGuardPDBBlocksDrain, Severity: SeverityError, Class: ClassBlocks, Subject: subject,
				Message: fmt.Sprintf("The %s guard PDB %s allows no disruption (%s): %s, so the drain of %s waits. A guard PDB is never relaxed: repair the %s member first and the drain proceeds (OCPBUGS-23796, W2).",
					comp.Component, p.Key(), budget, why, countedNodes(heldNodes), comp.Component),
				Evidence: ev, Details: d})
		} else {
			ev = append(ev, rule(drainRule))
			a.add(Finding{Code: CodeDrainBlockedByPDB, Severity: SeverityError, Class: ClassBlocks, Subject: subject,
				Message: fmt.Sprintf("PodDisruptionBudget %s allows no disruption (%s) and guards %s on %s, whose drain waits until it allows one. Relax it for the drain and restore it after (runbook MachineConfigControllerDrainError, W1).",
					p.Key(), budget, podList(podNames), countedNodes(heldNodes)),
				Evidence: ev, Details: details})
		}
		for _, n := range heldNodes {
			a.drainCause[n] = append(a.drainCause[n], subject)
		}
	}
}

func guardRule(c *StaticPodComponent) string {
	r := "a guard PDB counts the ready guard pods of the control-plane members and keeps all but one of them (minAvailable = nodes - 1; library-go pkg/operator/staticpod/controller/guard)"
	if c.Component == "etcd" {
		return r + "; etcd's keeps unhealthyPodEvictionPolicy IfHealthyBudget on purpose, so an unready member blocks every other master's drain (cluster-etcd-operator starter.go)"
	}
	return r + "; from 4.15 its unhealthyPodEvictionPolicy is AlwaysAllow, so only the healthy members' guards are held"
}

// unreadyMembers returns the control-plane nodes whose guard pod or static pod of
// the component is not ready (or whose node is not Ready), with the evidence. It
// says nothing when the operand namespace's pods were not collected.
func (a *analysis) unreadyMembers(c *StaticPodComponent) ([]string, []Evidence) {
	s := a.s
	set := map[string]bool{}
	var ev []Evidence
	if op := s.StaticPodOperator(c.Component); op != nil && s.collectedIn(ResPods.Key(), c.Namespace) {
		for _, g := range op.Guards {
			if !g.Ready {
				set[g.Node] = true
				ev = append(ev, reality(fmt.Sprintf("guard pod %s on %s is not ready", g.Name, g.Node), "pod "+c.Namespace+"/"+g.Name))
			}
		}
		for _, m := range op.MirrorPods {
			if !m.Ready || m.Phase != string(corev1.PodRunning) {
				set[m.Node] = true
				ev = append(ev, reality(fmt.Sprintf("%s on %s is not ready (phase %s, revision %d)", m.Name, m.Node, orNone(m.Phase), m.Revision), "pod "+c.Namespace+"/"+m.Name))
			}
		}
	}
	for i := range s.Nodes {
		n := &s.Nodes[i]
		if n.IsControlPlane() && n.Ready != "" && n.Ready != string(corev1.ConditionTrue) {
			set[n.Name] = true
			ev = append(ev, reality(fmt.Sprintf("node %s is Ready=%s", n.Name, n.Ready), "node/"+n.Name+" status.conditions"))
		}
	}
	return sortedKeys(set), ev
}

// drainState describes a node's drain: the request, what the drain controller
// applied, the cordon and the daemon's state.
func drainState(n *Node) string {
	text := fmt.Sprintf("%s: desiredDrain %s, lastAppliedDrain %s, unschedulable %t, machine-config daemon %s", n.Name, orNone(n.DesiredDrain), orNone(n.LastAppliedDrain), n.Unschedulable, orNone(n.MCDState))
	if n.MCDReason != "" {
		text += ": " + truncate(oneLine(n.MCDReason), 200)
	}
	return text
}

func podList(pods []string) string {
	switch {
	case len(pods) == 1:
		return "pod " + pods[0]
	case len(pods) <= 5:
		return fmt.Sprintf("%d pods (%s)", len(pods), strings.Join(pods, ", "))
	}
	return fmt.Sprintf("%d pods (%s and %d more)", len(pods), strings.Join(pods[:5], ", "), len(pods)-5)
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// nodes reports degraded machine-config daemons, with the class of their reason,
// the expert fix for it and the finding that explains it when one does, and nodes
// that are not Ready.
func (a *analysis) nodes() {
	for i := range a.s.Nodes {
		n := &a.s.Nodes[i]
		subject := "node/" + n.Name
		if n.MCDState == MCDStateDegraded || n.MCDState == MCDStateUnreconcilable {
			class := ClassifyNodeDegraded(n.MCDReason)
			d := map[string]string{"node": n.Name, "class": class}
			ev := []Evidence{claim(fmt.Sprintf("state %s, currentConfig %s, desiredConfig %s", n.MCDState, orNone(n.CurrentConfig), orNone(n.DesiredConfig)), subject+" annotations")}
			if n.MCDReason != "" {
				ev = append(ev, claim("reason: "+oneLine(n.MCDReason), subject+" annotation "+openshift.AnnotationMCDReason))
			}
			if n.DesiredDrain != "" || n.LastAppliedDrain != "" {
				ev = append(ev, reality(drainState(n), subject+" annotations"))
			}
			remedy := nodeClassRemedy[class]
			if causes := a.drainCause[n.Name]; len(causes) > 0 && (class == NodeClassDrain || class == NodeClassUnknown) {
				sort.Strings(causes)
				d["cause"] = strings.Join(causes, ",")
				remedy = fmt.Sprintf("Its drain is held by %s (see %s).", strings.Join(causes, ", "), a.causeCode(causes[0]))
			}
			ev = append(ev, rule(fmt.Sprintf("class %s from the daemon's reason text (machine-config-operator pkg/daemon; docs/wedge-sources.md §1)", class)))
			a.add(Finding{Code: CodeNodeDegraded, Severity: SeverityError, Class: ClassBlocks, Subject: subject,
				Message: fmt.Sprintf("The machine-config daemon on %s is %s (%s): %s. %s", n.Name, n.MCDState, class,
					truncate(firstNonEmpty(oneLine(n.MCDReason), "no reason given"), 240), remedy),
				Evidence: ev, Details: d})
		}
		if n.Ready != "" && n.Ready != string(corev1.ConditionTrue) {
			msg := fmt.Sprintf("Node %s is not Ready (Ready=%s", n.Name, n.Ready)
			if n.ReadyReason != "" {
				msg += ", " + n.ReadyReason
			}
			msg += ")"
			if n.ReadyMessage != "" {
				msg += ": " + truncate(oneLine(n.ReadyMessage), 200)
			}
			a.add(Finding{Code: CodeNodeNotReady, Severity: SeverityWarning, Class: ClassBlocks, Subject: subject,
				Message:  msg + ".",
				Evidence: []Evidence{claim(fmt.Sprintf("Ready=%s reason %s: %s", n.Ready, orNone(n.ReadyReason), oneLine(n.ReadyMessage)), subject+" status.conditions")},
				Details:  map[string]string{"node": n.Name, "reason": n.ReadyReason}})
		}
	}
}

// causeCode returns the code of the finding with the subject (DrainBlockedByPDB,
// GuardPDBBlocksDrain or DrainBlockedByUnseenPDB).
func (a *analysis) causeCode(subject string) string {
	for _, f := range a.out {
		if f.Subject == subject && (f.Code == CodeDrainBlockedByPDB || f.Code == CodeGuardPDBBlocksDrain || f.Code == CodeDrainBlockedByUnseenPDB) {
			return f.Code
		}
	}
	return CodeDrainBlockedByPDB
}
