package inspect

import (
	"fmt"
	"strings"

	"github.com/openshift-recover/recover/internal/nextcmd"
	"github.com/openshift-recover/recover/internal/openshift"
)

// FindingSpec is one finding code's entry in the registry, the way
// plan.ActionSpec is an action's: everything the wedge summary knows about a
// code lives here, so adding a finding is its entry, its detector and its test.
// The wedge summary reads it (Wedges); docs/findings.md documents the codes in
// Codes' order and TestFindingRegistryCoversEveryCode walks them.
//
// The planner's remedy dispatch stays in plan (plan/remedy.go): a remedy builds
// plan steps, which inspect may not import (docs/architecture.md), so the hook
// is keyed by code on plan's side.
type FindingSpec struct {
	// Code is the finding code.
	Code string
	// Tier is the layer of the update the code holds, first first (1-9): the
	// CVO and the release it is given; the control plane's own consistency and
	// static pods; operators and admission; node readiness and certificates;
	// drains; degraded nodes and pools; the admin's promises (Upgradeable,
	// gates, APIs, overrides); risks; context.
	Tier int
	// Next is the command that comes next for the code's wedge line when it
	// does not depend on the findings ("" when next computes it, or for "oc adm
	// upgrade status").
	Next string
	// Condition is the ClusterOperator condition type an operator finding
	// reads ("" for the others).
	Condition string

	// group returns the key of the wedge group a finding belongs to (nil:
	// "<code>|<subject>").
	group func(w *wedger, f Finding) string
	// parent returns the key of the group that explains g, "" when none does;
	// kind and arg are g's key split at its first "|".
	parent func(w *wedger, g *wedgeGroup, kind, arg string) string
	// summary is the one sentence of a group whose first finding has the code
	// (nil: the first finding's first sentence and the others' names).
	summary func(w *wedger, ms []Finding) string
	// logEvidence returns the log lines that say what the finding says
	// (nil: none are looked for).
	logEvidence func(l *LogEvidence, a *analysis, f *Finding) []LogLine
	// next computes the next command from the group's findings (nil: Next).
	next func(w *wedger, ms []Finding) string
}

const (
	nextPlan   = "recover plan"
	nextStatus = "oc adm upgrade status"
)

// findingTable is the registry's data, in no particular order; FindingSpecs
// indexes it.
var findingTable = []FindingSpec{
	// 1: the CVO and the release it is given.
	{Code: CodeReleaseNotAccepted, logEvidence: evidenceReleaseNotAccepted, Tier: 1, parent: parentReleaseNotAccepted, next: nextReleaseNotAccepted},
	{Code: CodeCVOStuckOnManifest, logEvidence: evidenceStuckManifest, Tier: 1, next: nextCVOStuckOnManifest},
	{Code: CodeCVODisabled, Tier: 1, Next: nextcmd.ScaleCVO(1)},
	{Code: CodeClusterVersionFailing, Tier: 1, Next: nextStatus, parent: parentClusterVersionFailing},
	{Code: CodeCVOAbandonedUpdate, Tier: 1, Next: nextPlan},
	{Code: CodeCVORetryingManifest, Tier: 1, next: func(_ *wedger, ms []Finding) string { return getCommand(ms[0].Subject) }},
	// 2: the control plane's own consistency and static pods.
	{Code: CodeUpdateClaimedCompleteButMixed, logEvidence: evidenceAbandonedUpdate, Tier: 2, Next: nextPlan, parent: parentClaimedCompleteButMixed},
	{Code: CodeKubeletNewerThanAPIServer, Tier: 2, Next: nextPlan, group: groupByCode},
	{Code: CodeKubeletSkewTooLarge, Tier: 2, Next: nextPlan, group: groupByCode},
	{Code: CodeStaticPodRevisionMismatch, Tier: 2, group: groupByComponent, parent: parentInstallerInterrupted, summary: summaryPerNode, next: nextForceRedeployment},
	{Code: CodeInstallerSucceededWithoutRevision, logEvidence: evidenceInstallerEnd, Tier: 2, group: groupByComponent, parent: parentInstallerInterrupted, summary: summaryPerNode, next: nextForceRedeployment},
	{Code: CodeStaticPodRolloutStuck, Tier: 2, group: groupByComponent, summary: summaryStaticPodRolloutStuck, next: nextForceRedeployment},
	{Code: CodeStaticPodMissing, Tier: 2, group: groupByComponent, summary: summaryPerNode, next: nextForceRedeployment},
	{Code: CodeInstallerInterrupted, Tier: 2, group: groupByComponent, next: nextForceRedeployment},
	// 3: operators and admission.
	{Code: CodeOperatorUnavailable, Tier: 3, Condition: "Available", group: groupOperator, parent: parentOperator, next: nextDescribeOperator},
	{Code: CodeOperatorDegraded, Tier: 3, Condition: "Degraded", group: groupOperator, parent: parentOperator, next: nextDescribeOperator},
	{Code: CodeOperatorProgressingStuck, Tier: 3, Condition: "Progressing", group: groupOperator, parent: parentOperator, next: nextDescribeOperator},
	{Code: CodeOperatorVersionUnverified, Tier: 3, Next: nextPlan, group: groupOperator, parent: parentOperator},
	{Code: CodeWebhookUnavailable, Tier: 3, parent: parentWebhookUnavailable, next: nextWebhookUnavailable},
	{Code: CodeMixedOperatorVersions, Tier: 3, Next: nextPlan, parent: parentMixedOperatorVersions},
	// 4: node readiness and certificates.
	{Code: CodeNodeNotReady, Tier: 4, group: groupNodeNotReady, summary: summaryNodeNotReady, next: nextDescribeNode},
	{Code: CodeCSRPending, logEvidence: evidenceCSRPending, Tier: 4, group: groupCSR, summary: func(_ *wedger, ms []Finding) string { return firstSentence(ms[0].Message) }, next: nextCSRPending},
	{Code: CodeCertificateExpiry, Tier: 4, group: func(_ *wedger, f Finding) string { return "certificates|" + f.Severity }, summary: summaryCertificateExpiry, next: nextCertificateExpiry},
	{Code: CodeCSRNotAuthorizedInLog, Tier: 4, next: func(_ *wedger, ms []Finding) string { return "oc describe csr " + subjectName(ms[0]) }},
	// 5: drains.
	{Code: CodeGuardPDBBlocksDrain, Tier: 5, summary: summaryGuardPDB, next: nextGuardPDB},
	{Code: CodeDrainBlockedByPDB, logEvidence: evidenceDrainBlockedByPDB, Tier: 5, Next: nextPlan, summary: summaryDrainBlockedByPDB},
	{Code: CodeDrainBlockedByUnseenPDB, Tier: 5, next: nextDrainBlockedByUnseenPDB},
	// 6: degraded nodes and pools.
	{Code: CodeNodeDegraded, logEvidence: evidenceNodeDegraded, Tier: 6, group: groupNodeDegraded, parent: parentNodeDegraded, summary: summaryNodeDegraded, next: nextNodeDegraded},
	{Code: CodePoolDegraded, Tier: 6, group: groupPool, parent: parentPool, next: nextPool},
	{Code: CodePoolPaused, Tier: 6, group: groupPool, parent: parentPool, next: nextPoolPaused},
	{Code: CodeCompletedWithPoolsBehind, Tier: 6, group: groupPool, parent: parentPool, next: nextPool},
	{Code: CodePoolUpdating, Tier: 6, group: groupPool, parent: parentPool, next: nextPool},
	{Code: CodeNodeDegradedInLog, Tier: 6, next: nextDescribeNode},
	// 7: the admin's promises.
	{Code: CodeUpgradeableFalse, Tier: 7, group: func(_ *wedger, f Finding) string { return "upgradeable|" + f.Details["class"] }, parent: parentUpgradeable, summary: summaryUpgradeableFalse, next: nextUpgradeableFalse},
	{Code: CodeAdminAckRequired, Tier: 7, group: func(*wedger, Finding) string { return "admin-ack" }, summary: summaryAdminAck, next: nextAdminAck},
	{Code: CodeRemovedAPIInUse, Tier: 7, group: func(_ *wedger, f Finding) string { return "removed-api|" + f.Class },
		parent: func(w *wedger, _ *wedgeGroup, _, _ string) string { return w.exists("admin-ack") },
		next: func(_ *wedger, ms []Finding) string {
			return "oc get apirequestcounts " + subjectName(ms[0]) + " -o yaml"
		}},
	{Code: CodeUnmanagedOverrides, Tier: 7, Next: nextcmd.PlanAccepting(nextcmd.AcceptRemoveOverrides)},
	// 8: risks.
	{Code: CodeConditionalRiskOnTarget, Tier: 8, Next: nextPlan},
	{Code: CodeForcedUpdate, Tier: 8, Next: nextStatus},
	{Code: CodeUnverifiedUpdate, Tier: 8, Next: nextStatus},
	{Code: CodePreviousUpdateIncomplete, Tier: 8, Next: nextStatus},
	{Code: CodeUpdatePreflight, Tier: 8, next: nextUpdatePreflight},
	// 9: context.
	{Code: CodeUpdateInProgress, Tier: 9, Next: nextStatus},
	{Code: CodeNotCollected, Tier: 9, group: func(*wedger, Finding) string { return "not-collected" }, summary: summaryNotCollected, next: nextNotCollected},
}

// findingSpecs indexes findingTable by code (built in init: the rules read it).
var findingSpecs map[string]*FindingSpec

func init() {
	findingSpecs = make(map[string]*FindingSpec, len(findingTable))
	for i := range findingTable {
		s := &findingTable[i]
		if findingSpecs[s.Code] != nil {
			panic("inspect: finding " + s.Code + " registered twice")
		}
		findingSpecs[s.Code] = s
	}
}

// FindingSpecOf returns the registry entry of a code (nil for an unknown code).
func FindingSpecOf(code string) *FindingSpec { return findingSpecs[code] }

// FindingSpecs returns the registry's entries in Codes' order.
func FindingSpecs() []*FindingSpec {
	out := make([]*FindingSpec, 0, len(Codes))
	for _, c := range Codes {
		if s := findingSpecs[c]; s != nil {
			out = append(out, s)
		}
	}
	return out
}

// subjectName is the last element of a finding's subject ("node/a" -> "a").
func subjectName(f Finding) string { return f.Subject[strings.LastIndex(f.Subject, "/")+1:] }

// Group rules.

func groupByCode(_ *wedger, f Finding) string      { return f.Code }
func groupByComponent(_ *wedger, f Finding) string { return f.Code + "|" + f.Details["component"] }
func groupOperator(_ *wedger, f Finding) string    { return "operator|" + f.Subject }
func groupPool(_ *wedger, f Finding) string        { return "pool|" + f.Details["pool"] }
func groupCSR(_ *wedger, f Finding) string         { return "csr|" + f.Subject }

func groupNodeDegraded(_ *wedger, f Finding) string {
	if c := f.Details["cause"]; c != "" {
		return "nodes-held-by|" + strings.Split(c, ",")[0]
	}
	return "nodes-degraded|" + f.Details["class"]
}

func groupNodeNotReady(w *wedger, f Finding) string {
	if w.has(CodeCSRPending, f.Subject) {
		return "csr|" + f.Subject
	}
	return "nodes-not-ready"
}

// Summary rules.

func summaryDrainBlockedByPDB(_ *wedger, ms []Finding) string {
	d := ms[0].Details
	nodes := strings.Split(d["nodes"], ",")
	return fmt.Sprintf("PodDisruptionBudget %s/%s allows no disruption (%s healthy, %s required) and holds the drain of %s.", d["namespace"], d["name"], d["currentHealthy"], d["desiredHealthy"], countedNodes(nodes))
}

func summaryGuardPDB(_ *wedger, ms []Finding) string {
	d := ms[0].Details
	why := "a member is not ready"
	if d["unready"] != "" {
		why = fmt.Sprintf("%s is not ready on %s", d["component"], strings.ReplaceAll(d["unready"], ",", ", "))
	}
	return fmt.Sprintf("The %s guard PDB holds the drain of %s because %s; repair that member (a guard PDB is never relaxed).", d["component"], countedNodes(strings.Split(d["nodes"], ",")), why)
}

func summaryNodeDegraded(_ *wedger, ms []Finding) string {
	d := ms[0].Details
	nd := withCode(ms, CodeNodeDegraded)
	return fmt.Sprintf("The machine-config daemon is Degraded (%s) on %s: %s.", d["class"], countedNodes(names(nd)), nodeClassWhy[d["class"]])
}

func summaryNodeNotReady(_ *wedger, ms []Finding) string {
	if len(ms) == 1 {
		return ms[0].Message
	}
	return fmt.Sprintf("%s are not Ready; %s", countedNodes(names(ms)), ms[0].Message)
}

func summaryUpgradeableFalse(_ *wedger, ms []Finding) string {
	c := ms[0]
	var who []string
	for _, m := range withCode(ms, CodeUpgradeableFalse) {
		if m.Subject == cvSubject {
			who = append(who, "ClusterVersion")
		} else {
			who = append(who, strings.TrimPrefix(m.Subject, "clusteroperator/"))
		}
	}
	return fmt.Sprintf("Upgradeable=False (%s) on %s: %s; to resolve: %s.", c.Details["class"], strings.Join(who, ", "), strings.TrimSuffix(upgradeEffect(c), "."), upgradeableRemedy[c.Details["class"]])
}

func summaryAdminAck(_ *wedger, ms []Finding) string {
	var keys []string
	for _, f := range withCode(ms, CodeAdminAckRequired) {
		keys = append(keys, f.Details["gate"])
	}
	return fmt.Sprintf("Admin gate %s for updates away from %s is not acknowledged in openshift-config/admin-acks.", strings.Join(keys, ", "), ms[0].Details["minor"])
}

func summaryNotCollected(_ *wedger, ms []Finding) string {
	return fmt.Sprintf("%d resource type(s) could not be read (%s): what depends on them is unknown, not empty.", len(ms), capNames(names(ms), 5))
}

func summaryCertificateExpiry(_ *wedger, ms []Finding) string {
	c := ms[0]
	if len(ms) == 1 {
		return firstSentence(c.Message)
	}
	return fmt.Sprintf("%d certificates (%s): %s", len(ms), capNames(names(ms), 4), firstSentence(c.Message))
}

func summaryStaticPodRolloutStuck(_ *wedger, ms []Finding) string {
	c := ms[0]
	d := c.Details
	return fmt.Sprintf("%s: revision %s keeps failing on %s (%s).", d["component"], d["lastFailed"], strings.Join(names(withCode(ms, c.Code)), ", "), orNone(d["reason"]))
}

// summaryPerNode is the first sentence, with the count of nodes that say the same.
func summaryPerNode(_ *wedger, ms []Finding) string {
	c := ms[0]
	sum := firstSentence(c.Message)
	if n := len(withCode(ms, c.Code)); n > 1 {
		sum += fmt.Sprintf(" (%d nodes)", n)
	}
	return sum
}

// summaryDefault is the first sentence of the first finding and the others' names.
func summaryDefault(_ *wedger, ms []Finding) string {
	sum := firstSentence(ms[0].Message)
	if n := len(ms); n > 1 {
		var others []string
		for _, m := range ms[1:] {
			others = append(others, m.Code+" "+m.Subject)
		}
		sum += " Also: " + capNames(others, 3) + "."
	}
	return sum
}

// Next rules: a recover plan for what recover remedies, the oc command for
// what only the admin can do.

func nextReleaseNotAccepted(_ *wedger, ms []Finding) string {
	d := ms[0].Details
	if d["class"] == ReleaseClassRetrieval {
		return "oc adm release info " + firstNonEmpty(d["image"], d["version"])
	}
	return "oc adm upgrade --clear"
}

func nextCVOStuckOnManifest(_ *wedger, ms []Finding) string {
	if b := ms[0].Details["blockers"]; b != "" {
		return "oc get " + strings.Split(b, ",")[0] + " -o yaml"
	}
	return "oc -n " + openshift.CVONamespace + " logs deployment/" + openshift.CVODeployment
}

func nextForceRedeployment(_ *wedger, ms []Finding) string {
	return nextcmd.PlanAccepting(nextcmd.AcceptForceRedeployment + ms[0].Details["component"])
}

func nextDescribeOperator(_ *wedger, ms []Finding) string {
	return "oc describe clusteroperator/" + subjectName(ms[0])
}

func nextDescribeNode(_ *wedger, ms []Finding) string {
	return "oc describe node/" + subjectName(ms[0])
}

func nextWebhookUnavailable(_ *wedger, ms []Finding) string {
	ns, svc, _ := strings.Cut(strings.Split(ms[0].Details["service"], ",")[0], "/")
	return fmt.Sprintf("oc -n %s get endpointslices -l kubernetes.io/service-name=%s", ns, svc)
}

func nextCSRPending(_ *wedger, ms []Finding) string {
	d := ms[0].Details
	if d["vouched"] != "" {
		return nextPlan
	}
	return "oc describe csr " + strings.ReplaceAll(d["csrs"], ",", " ")
}

func nextCertificateExpiry(w *wedger, ms []Finding) string {
	c := ms[0]
	name := subjectName(c)
	if p := w.pausedPool(); name == openshift.KubeletSigner && p != "" {
		return nextcmd.PausePool(p, false)
	}
	ns := strings.Split(c.Subject, "/")[1]
	return fmt.Sprintf("oc -n %s describe secret %s", ns, name)
}

func nextGuardPDB(w *wedger, ms []Finding) string {
	d := ms[0].Details
	return "oc describe clusteroperator/" + firstNonEmpty(w.operatorOf(d["component"]), d["component"])
}

// nodeClassNext is the command that shows why a node's daemon is Degraded, by
// class ("" for the daemon's own log).
var nodeClassNext = map[string]func(node string) string{
	NodeClassContentMismatch: forceFileCommand,
	NodeClassOSImageMismatch: forceFileCommand,
	NodeClassPullFailure:     hostJournalCommand,
	NodeClassOSUpdateFailure: hostJournalCommand,
	NodeClassRebootFailure:   hostJournalCommand,
	NodeClassDrain: func(string) string {
		return "oc -n " + openshift.MachineConfigDaemonNamespace + " logs deployment/machine-config-controller -c machine-config-controller"
	},
}

func forceFileCommand(node string) string {
	return "oc debug node/" + node + " -- chroot /host touch /run/machine-config-daemon-force"
}

func hostJournalCommand(node string) string {
	return "oc debug node/" + node + " -- chroot /host journalctl -u machine-config-daemon-host -u rpm-ostreed --since -2h"
}

func nextNodeDegraded(_ *wedger, ms []Finding) string {
	node := names(withCode(ms, CodeNodeDegraded))[0]
	if f := nodeClassNext[ms[0].Details["class"]]; f != nil {
		return f(node)
	}
	return "oc -n " + openshift.MachineConfigDaemonNamespace + " logs -c machine-config-daemon -l k8s-app=machine-config-daemon --field-selector spec.nodeName=" + node
}

func nextPoolPaused(_ *wedger, ms []Finding) string {
	if ms[0].Details["blocks"] == "true" {
		return nextPlan
	}
	return "oc describe machineconfigpool/" + ms[0].Details["pool"]
}

func nextPool(_ *wedger, ms []Finding) string {
	for _, m := range ms {
		if m.Code == CodePoolPaused && m.Details["blocks"] == "true" {
			return nextPlan
		}
	}
	return "oc describe machineconfigpool/" + ms[0].Details["pool"]
}

// upgradeableNext is the command that resolves an Upgradeable=False class.
var upgradeableNext = map[string]func(w *wedger, ms []Finding) string{
	UpgradeClassAdminAck: func(*wedger, []Finding) string {
		return "oc get configmap -n " + openshift.AdminGatesNamespace + " " + openshift.AdminGatesConfigMap + " -o yaml"
	},
	UpgradeClassOverrides: func(*wedger, []Finding) string { return nextcmd.PlanAccepting(nextcmd.AcceptRemoveOverrides) },
	UpgradeClassCloudCredential: func(w *wedger, _ []Finding) string {
		return nextcmd.PlanAccepting(nextcmd.AcceptUpgradeableTo + w.s.nextMinor())
	},
	UpgradeClassUnsupportedConfig: func(_ *wedger, ms []Finding) string {
		for _, m := range ms {
			if cfg := operatorConfig[strings.TrimPrefix(m.Subject, "clusteroperator/")]; cfg != "" {
				return nextcmd.MergePatch(cfg+"/"+openshift.SingletonName, "", `{"spec":{"unsupportedConfigOverrides":null}}`)
			}
		}
		return ""
	},
	UpgradeClassKubeletSkew:  func(*wedger, []Finding) string { return nextPlan },
	UpgradeClassOLM:          func(*wedger, []Finding) string { return "oc get clusterserviceversions -A" },
	UpgradeClassDegradedPool: func(*wedger, []Finding) string { return "oc get machineconfigpools" },
	UpgradeClassNetworkSDN: func(*wedger, []Finding) string {
		return "oc get network.operator cluster -o jsonpath='{.spec.defaultNetwork.type}'"
	},
}

func nextUpgradeableFalse(w *wedger, ms []Finding) string {
	if f := upgradeableNext[ms[0].Details["class"]]; f != nil {
		if n := f(w, ms); n != "" {
			return n
		}
	}
	return "oc adm upgrade"
}

func nextAdminAck(_ *wedger, ms []Finding) string {
	var keys []string
	for _, f := range withCode(ms, CodeAdminAckRequired) {
		keys = append(keys, "--accept "+nextcmd.AcceptAdminAck+f.Details["gate"])
	}
	return "recover plan " + strings.Join(keys, " ")
}

func nextDrainBlockedByUnseenPDB(_ *wedger, ms []Finding) string {
	d := ms[0].Details
	if d["namespace"] == "" {
		return "oc get pods -A --field-selector metadata.name=" + strings.Split(d["pods"], ",")[0]
	}
	return "oc -n " + d["namespace"] + " get poddisruptionbudgets"
}

func nextNotCollected(w *wedger, ms []Finding) string {
	if w.s.Source.Kind == SourceLive {
		res := strings.TrimPrefix(ms[0].Subject, "resource/")
		res, ns, _ := strings.Cut(res, "/")
		if ns != "" {
			return "oc auth can-i list " + res + " -n " + ns
		}
		return "oc auth can-i list " + res + " --all-namespaces"
	}
	return "oc adm must-gather"
}
