package inspect

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/openshift-recover/recover/internal/nextcmd"
	"github.com/openshift-recover/recover/internal/openshift"
)

// The wedge summary answers "why is this cluster stuck" in a few lines: the
// findings are grouped by cause (seven nodes whose drains one PodDisruptionBudget
// holds are one line), the groups a deeper cause explains are folded into it (the
// pool those nodes are in, machine-config Degraded because of that pool, the CVO
// Failing because of machine-config), and what is left is ranked by the layer of
// the update it holds first. docs/findings.md documents the order.

// wedgeTier is the layer of the update a finding code holds, first first: the
// CVO and the release it is given; the control plane's own consistency and static
// pods; operators and admission; node readiness and certificates; drains; degraded
// nodes and pools; the admin's promises (Upgradeable, gates, APIs, overrides);
// risks; context.
var wedgeTier = map[string]int{
	CodeReleaseNotAccepted: 1, CodeCVOStuckOnManifest: 1, CodeCVODisabled: 1, CodeClusterVersionFailing: 1,
	CodeUpdateClaimedCompleteButMixed: 2, CodeKubeletNewerThanAPIServer: 2, CodeKubeletSkewTooLarge: 2,
	CodeStaticPodRevisionMismatch: 2, CodeInstallerSucceededWithoutRevision: 2, CodeStaticPodRolloutStuck: 2, CodeStaticPodMissing: 2,
	CodeOperatorUnavailable: 3, CodeOperatorDegraded: 3, CodeWebhookUnavailable: 3, CodeOperatorProgressingStuck: 3,
	CodeOperatorVersionUnverified: 3, CodeMixedOperatorVersions: 3,
	CodeNodeNotReady: 4, CodeCSRPending: 4, CodeCertificateExpiry: 4,
	CodeGuardPDBBlocksDrain: 5, CodeDrainBlockedByPDB: 5,
	CodeNodeDegraded: 6, CodePoolDegraded: 6, CodePoolPaused: 6, CodeCompletedWithPoolsBehind: 6, CodePoolUpdating: 6,
	CodeUpgradeableFalse: 7, CodeAdminAckRequired: 7, CodeRemovedAPIInUse: 7, CodeUnmanagedOverrides: 7,
	CodeConditionalRiskOnTarget: 8, CodeForcedUpdate: 8, CodeUnverifiedUpdate: 8, CodePreviousUpdateIncomplete: 8,
	CodeUpdateInProgress: 9, CodeNotCollected: 9,
	CodeCVOAbandonedUpdate: 1, CodeCVORetryingManifest: 1, CodeInstallerInterrupted: 2, CodeCSRNotAuthorizedInLog: 4,
	CodeDrainBlockedByUnseenPDB: 5, CodeNodeDegradedInLog: 6,
}

func tierOf(code string) int {
	if t, ok := wedgeTier[code]; ok {
		return t
	}
	return 9
}

func codeOrder(code string) int {
	for i, c := range Codes {
		if c == code {
			return i
		}
	}
	return len(Codes)
}

// less orders findings within a group: the most blocking layer, then severity,
// then documentation order and subject.
func wedgeLess(x, y Finding) bool {
	if (x.Class == ClassBlocks) != (y.Class == ClassBlocks) {
		return x.Class == ClassBlocks
	}
	if tierOf(x.Code) != tierOf(y.Code) {
		return tierOf(x.Code) < tierOf(y.Code)
	}
	if severityRank(x.Severity) != severityRank(y.Severity) {
		return severityRank(x.Severity) < severityRank(y.Severity)
	}
	if codeOrder(x.Code) != codeOrder(y.Code) {
		return codeOrder(x.Code) < codeOrder(y.Code)
	}
	return x.Subject < y.Subject
}

// wedgeGroup is one set of findings that share a cause.
type wedgeGroup struct {
	key     string
	members []Finding
	parent  string // the key of the group that explains this one, "" for a root
}

// Wedges computes the wedge summary of a snapshot from its findings: one line per
// cause, most blocking first (docs/findings.md "The wedge summary"). It is pure;
// Refresh stores it in Snapshot.Wedges.
func Wedges(s *Snapshot) []Wedge {
	w := &wedger{s: s, groups: map[string]*wedgeGroup{}}
	for _, f := range s.Findings {
		k := w.keyOf(f)
		g := w.groups[k]
		if g == nil {
			g = &wedgeGroup{key: k}
			w.groups[k] = g
			w.order = append(w.order, k)
		}
		g.members = append(g.members, f)
	}
	for _, k := range w.order {
		w.groups[k].parent = w.parentOf(w.groups[k])
	}
	// Resolve every group to its root; a cycle (none is expected) stops at the
	// group where it closes.
	root := func(k string) string {
		seen := map[string]bool{}
		for w.groups[k].parent != "" && !seen[k] {
			seen[k] = true
			k = w.groups[k].parent
		}
		return k
	}
	folded := map[string][]Finding{}
	var roots []string
	for _, k := range w.order {
		r := root(k)
		if r == k {
			roots = append(roots, k)
			continue
		}
		folded[r] = append(folded[r], w.groups[k].members...)
	}
	out := make([]Wedge, 0, len(roots))
	type ranked struct {
		wedge Wedge
		best  Finding // the member that ranks the line
	}
	var lines []ranked
	for _, k := range roots {
		g := w.groups[k]
		sort.SliceStable(g.members, func(i, j int) bool { return wedgeLess(g.members[i], g.members[j]) })
		cause := g.members[0]
		follows := folded[k]
		sort.SliceStable(follows, func(i, j int) bool { return wedgeLess(follows[i], follows[j]) })
		best := cause
		class := ClassInforms
		for _, f := range append(append([]Finding(nil), g.members...), follows...) {
			if f.Class == ClassBlocks {
				class = ClassBlocks
			}
			if wedgeLess(f, best) {
				best = f
			}
		}
		var subjects []string
		seen := map[string]bool{}
		for _, f := range append(append([]Finding(nil), g.members...), follows...) {
			if !seen[f.Subject] {
				seen[f.Subject] = true
				subjects = append(subjects, f.Subject)
			}
		}
		summary := w.summary(g.members)
		if len(follows) > 0 {
			summary += " It explains " + followText(follows) + "."
		}
		var keys []string
		for _, f := range append(append([]Finding(nil), g.members...), follows...) {
			keys = append(keys, f.Code+" "+f.Subject)
		}
		lines = append(lines, ranked{Wedge{Code: cause.Code, Class: class, Summary: summary, Subjects: subjects, Next: w.next(g.members), findings: keys}, best})
	}
	sort.SliceStable(lines, func(i, j int) bool {
		x, y := lines[i], lines[j]
		if (x.wedge.Class == ClassBlocks) != (y.wedge.Class == ClassBlocks) {
			return x.wedge.Class == ClassBlocks
		}
		return wedgeLess(x.best, y.best)
	})
	for i, l := range lines {
		l.wedge.Rank = i + 1
		out = append(out, l.wedge)
	}
	return out
}

type wedger struct {
	s      *Snapshot
	groups map[string]*wedgeGroup
	order  []string
}

// keyOf returns the group a finding belongs to.
func (w *wedger) keyOf(f Finding) string {
	d := f.Details
	switch f.Code {
	case CodeNodeDegraded:
		if c := d["cause"]; c != "" {
			return "nodes-held-by|" + strings.Split(c, ",")[0]
		}
		return "nodes-degraded|" + d["class"]
	case CodeNodeNotReady:
		if w.has(CodeCSRPending, f.Subject) {
			return "csr|" + f.Subject
		}
		return "nodes-not-ready"
	case CodeCSRPending:
		return "csr|" + f.Subject
	case CodePoolDegraded, CodePoolPaused, CodePoolUpdating, CodeCompletedWithPoolsBehind:
		return "pool|" + d["pool"]
	case CodeOperatorDegraded, CodeOperatorUnavailable, CodeOperatorProgressingStuck, CodeOperatorVersionUnverified:
		return "operator|" + f.Subject
	case CodeUpgradeableFalse:
		return "upgradeable|" + d["class"]
	case CodeAdminAckRequired:
		return "admin-ack"
	case CodeRemovedAPIInUse:
		return "removed-api|" + f.Class
	case CodeNotCollected:
		return "not-collected"
	case CodeCertificateExpiry:
		return "certificates|" + f.Severity
	case CodeStaticPodRolloutStuck, CodeStaticPodRevisionMismatch, CodeInstallerSucceededWithoutRevision, CodeStaticPodMissing, CodeInstallerInterrupted:
		return f.Code + "|" + d["component"]
	case CodeKubeletNewerThanAPIServer, CodeKubeletSkewTooLarge:
		return f.Code
	}
	return f.Code + "|" + f.Subject
}

func (w *wedger) has(code, subject string) bool {
	for _, f := range w.s.Findings {
		if f.Code == code && f.Subject == subject {
			return true
		}
	}
	return false
}

// groupWith returns the key of the group holding a finding with code and
// subject, "" when there is none.
func (w *wedger) groupWith(code, subject string) string {
	for _, k := range w.order {
		for _, f := range w.groups[k].members {
			if f.Code == code && (subject == "" || f.Subject == subject) {
				return k
			}
		}
	}
	return ""
}

func (w *wedger) exists(key string) string {
	if _, ok := w.groups[key]; ok {
		return key
	}
	return ""
}

// preconditionReason finds the reason of a failed precondition: `Precondition %q
// failed because of %q` (cluster-version-operator pkg/payload/precondition).
var preconditionReason = regexp.MustCompile(`Precondition "[^"]+" failed because of "([^"]+)"`)

// poolInMessage finds the pool machine-config's Degraded message names:
// "MachineConfigPool %s is not ready" and "required MachineConfigPool %s is
// paused and cannot sync until it is unpaused" (machine-config-operator
// pkg/operator/sync.go, syncRequiredMachineConfigPools), or "pool %s is|has".
var poolInMessage = regexp.MustCompile(`MachineConfigPool (\S+) is (?:not ready|paused)|pool (\S+) (?:is|has) `)

// parentOf returns the group that explains g ("" when none does).
func (w *wedger) parentOf(g *wedgeGroup) string {
	s := w.s
	kind, arg, _ := strings.Cut(g.key, "|")
	switch kind {
	case "nodes-held-by":
		if k := w.groupWith(CodeDrainBlockedByPDB, arg); k != "" {
			return k
		}
		if k := w.groupWith(CodeDrainBlockedByUnseenPDB, arg); k != "" {
			return k
		}
		return w.groupWith(CodeGuardPDBBlocksDrain, arg)
	case CodeUpdateClaimedCompleteButMixed:
		// The abandoned update the CVO's log proves is why history says Completed.
		return w.blockingGroupWith(CodeCVOAbandonedUpdate)
	case CodeInstallerSucceededWithoutRevision, CodeStaticPodRevisionMismatch:
		// The installer's own log proves the phase (and so the claimed
		// revision) wrong.
		if k := w.exists(CodeInstallerInterrupted + "|" + arg); k != "" && w.hasClass(k, ClassBlocks) {
			return k
		}
	case "pool":
		// A degraded pool is explained by its degraded nodes.
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
				for _, k := range w.order {
					for _, m := range w.groups[k].members {
						if m.Code == CodeNodeDegraded && m.Subject == "node/"+n {
							return k
						}
					}
				}
			}
		}
	case "operator":
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
	case CodeClusterVersionFailing:
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
	case CodeWebhookUnavailable:
		for _, k := range w.order {
			for _, m := range w.groups[k].members {
				if m.Code == CodeCVOStuckOnManifest && containsString(strings.Split(m.Details["blockers"], ","), arg0(g)) {
					return k
				}
			}
		}
	case "upgradeable":
		if arg == UpgradeClassOther && len(g.members) == 1 {
			// ClusterVersion's aggregate of operators of different classes, alone
			// in its line: it belongs with the first of them.
			for _, f := range g.members {
				if f.Subject != cvSubject {
					continue
				}
				for _, c := range cvUpgradeableClasses(s) {
					if k := w.upgradeableTarget(c); k != "" && k != g.key {
						return k
					}
				}
			}
		}
		switch arg {
		case UpgradeClassAdminAck:
			return w.exists("admin-ack")
		case UpgradeClassOverrides:
			return w.groupWith(CodeUnmanagedOverrides, "")
		case UpgradeClassDegradedPool:
			for _, p := range s.MachineConfigPools {
				if k := w.exists("pool|" + p.Name); k != "" && w.hasCode(k, CodePoolDegraded) {
					return k
				}
			}
		}
	case "removed-api":
		return w.exists("admin-ack")
	case CodeReleaseNotAccepted:
		// A precondition that failed because of an Upgradeable=False reason is
		// that reason's line.
		f := g.members[0]
		if f.Details["class"] != ReleaseClassPreconditions {
			break
		}
		msg := ""
		if c := cvCondition(s.ClusterVersion, openshift.ConditionReleaseAccepted); c != nil {
			msg = c.Message
		}
		for _, m := range preconditionReason.FindAllStringSubmatch(msg, -1) {
			if k := w.upgradeableTarget(ClassifyUpgradeable(m[1])); k != "" {
				return k
			}
		}
	case CodeMixedOperatorVersions:
		if k := w.groupWith(CodeUpdateClaimedCompleteButMixed, ""); k != "" {
			return k
		}
		return w.groupWith(CodeUpdateInProgress, "")
	}
	return ""
}

func arg0(g *wedgeGroup) string { return g.members[0].Subject }

// hasClass reports whether a group has a finding of the class.
func (w *wedger) hasClass(key, class string) bool {
	for _, m := range w.groups[key].members {
		if m.Class == class {
			return true
		}
	}
	return false
}

// blockingGroupWith returns the key of the group holding a finding with code
// that blocks the update, "" when there is none.
func (w *wedger) blockingGroupWith(code string) string {
	for _, k := range w.order {
		for _, f := range w.groups[k].members {
			if f.Code == code && f.Class == ClassBlocks {
				return k
			}
		}
	}
	return ""
}

// upgradeableTarget returns the group an Upgradeable=False class belongs to: its
// own line, or the admin gate or the overrides it reports.
func (w *wedger) upgradeableTarget(class string) string {
	switch class {
	case UpgradeClassAdminAck:
		if k := w.exists("admin-ack"); k != "" {
			return k
		}
	case UpgradeClassOverrides:
		if k := w.groupWith(CodeUnmanagedOverrides, ""); k != "" {
			return k
		}
	}
	return w.exists("upgradeable|" + class)
}

// cvUpgradeableClasses returns the classes of the reasons ClusterVersion's
// Upgradeable=False aggregates (its operators' lines and a MultipleReasons list),
// in the message's order.
func cvUpgradeableClasses(s *Snapshot) []string {
	c := cvCondition(s.ClusterVersion, "Upgradeable")
	if c == nil {
		return nil
	}
	var out []string
	if rest, ok := strings.CutPrefix(c.Message, "Cluster should not be upgraded between minor or major versions for multiple reasons: "); ok {
		line, _, _ := strings.Cut(rest, "\n")
		for _, r := range strings.Split(line, ",") {
			if r = strings.TrimSpace(r); r != "" && r != openshift.ReasonClusterOperatorsNotUpgradable {
				out = append(out, ClassifyUpgradeable(r))
			}
		}
	}
	for _, it := range parseUpgradeableItems(c.Message) {
		out = append(out, ClassifyUpgradeable(it.Reason))
	}
	return out
}

func (w *wedger) hasCode(key, code string) bool {
	for _, m := range w.groups[key].members {
		if m.Code == code {
			return true
		}
	}
	return false
}

// conditionOfCode returns the ClusterOperator condition type an operator finding
// reads (Degraded for OperatorDegraded, Available for OperatorUnavailable).
func conditionOfCode(code string) string {
	switch code {
	case CodeOperatorDegraded:
		return "Degraded"
	case CodeOperatorUnavailable:
		return "Available"
	case CodeOperatorProgressingStuck:
		return "Progressing"
	}
	return ""
}

// operandOf returns the static-pod operand a ClusterOperator
// reports ("" when it reports none).
func operandOf(co string) string {
	for _, c := range StaticPodComponents {
		if c.ClusterOperator == co {
			return c.Component
		}
	}
	return ""
}

// followText lists the findings a wedge explains: "7 NodeDegraded,
// PoolDegraded machineconfigpool/worker, ClusterVersionFailing".
func followText(fs []Finding) string {
	var codes []string
	by := map[string][]string{}
	for _, f := range fs {
		if _, ok := by[f.Code]; !ok {
			codes = append(codes, f.Code)
		}
		by[f.Code] = append(by[f.Code], f.Subject)
	}
	var parts []string
	for _, c := range codes {
		subs := by[c]
		switch {
		case len(subs) > 1:
			parts = append(parts, fmt.Sprintf("%d %s", len(subs), c))
		case subs[0] == cvSubject:
			parts = append(parts, c)
		default:
			parts = append(parts, c+" "+subs[0])
		}
	}
	return strings.Join(parts, ", ")
}

// names returns the last path element of each subject ("node/a" -> "a").
func names(fs []Finding) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range fs {
		n := f.Subject
		if i := strings.LastIndex(n, "/"); i >= 0 {
			n = n[i+1:]
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func withCode(fs []Finding, code string) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Code == code {
			out = append(out, f)
		}
	}
	return out
}

// firstSentence returns the message up to its first sentence end.
func firstSentence(msg string) string {
	if i := strings.Index(msg, ". "); i > 0 {
		return msg[:i+1]
	}
	return msg
}

// summary is the one sentence of a group.
func (w *wedger) summary(ms []Finding) string {
	c := ms[0]
	d := c.Details
	switch c.Code {
	case CodeDrainBlockedByPDB:
		nodes := strings.Split(d["nodes"], ",")
		return fmt.Sprintf("PodDisruptionBudget %s/%s allows no disruption (%s healthy, %s required) and holds the drain of %s.", d["namespace"], d["name"], d["currentHealthy"], d["desiredHealthy"], countedNodes(nodes))
	case CodeGuardPDBBlocksDrain:
		why := "a member is not ready"
		if d["unready"] != "" {
			why = fmt.Sprintf("%s is not ready on %s", d["component"], strings.ReplaceAll(d["unready"], ",", ", "))
		}
		return fmt.Sprintf("The %s guard PDB holds the drain of %s because %s; repair that member (a guard PDB is never relaxed).", d["component"], countedNodes(strings.Split(d["nodes"], ",")), why)
	case CodeNodeDegraded:
		nd := withCode(ms, CodeNodeDegraded)
		return fmt.Sprintf("The machine-config daemon is Degraded (%s) on %s: %s.", d["class"], countedNodes(names(nd)), nodeClassWhy[d["class"]])
	case CodeNodeNotReady:
		if len(ms) == 1 {
			return c.Message
		}
		return fmt.Sprintf("%s are not Ready; %s", countedNodes(names(ms)), c.Message)
	case CodeCSRPending:
		return firstSentence(c.Message)
	case CodeUpgradeableFalse:
		var who []string
		for _, m := range withCode(ms, CodeUpgradeableFalse) {
			if m.Subject == cvSubject {
				who = append(who, "ClusterVersion")
			} else {
				who = append(who, strings.TrimPrefix(m.Subject, "clusteroperator/"))
			}
		}
		return fmt.Sprintf("Upgradeable=False (%s) on %s: %s; to resolve: %s.", d["class"], strings.Join(who, ", "), strings.TrimSuffix(upgradeEffect(c), "."), upgradeableRemedy[d["class"]])
	case CodeAdminAckRequired:
		var keys []string
		for _, f := range withCode(ms, CodeAdminAckRequired) {
			keys = append(keys, f.Details["gate"])
		}
		return fmt.Sprintf("Admin gate %s for updates away from %s is not acknowledged in openshift-config/admin-acks.", strings.Join(keys, ", "), d["minor"])
	case CodeNotCollected:
		return fmt.Sprintf("%d resource type(s) could not be read (%s): what depends on them is unknown, not empty.", len(ms), capNames(names(ms), 5))
	case CodeCertificateExpiry:
		if len(ms) == 1 {
			return firstSentence(c.Message)
		}
		return fmt.Sprintf("%d certificates (%s): %s", len(ms), capNames(names(ms), 4), firstSentence(c.Message))
	case CodeStaticPodRolloutStuck:
		return fmt.Sprintf("%s: revision %s keeps failing on %s (%s).", d["component"], d["lastFailed"], strings.Join(names(withCode(ms, c.Code)), ", "), orNone(d["reason"]))
	case CodeStaticPodRevisionMismatch, CodeInstallerSucceededWithoutRevision, CodeStaticPodMissing:
		sum := firstSentence(c.Message)
		if n := len(withCode(ms, c.Code)); n > 1 {
			sum += fmt.Sprintf(" (%d nodes)", n)
		}
		return sum
	}
	sum := firstSentence(c.Message)
	if n := len(ms); n > 1 {
		var others []string
		for _, m := range ms[1:] {
			others = append(others, m.Code+" "+m.Subject)
		}
		sum += " Also: " + capNames(others, 3) + "."
	}
	return sum
}

// upgradeEffect says what an Upgradeable-like finding does now.
func upgradeEffect(f Finding) string {
	if f.Class == ClassBlocks {
		return "the minor update requested is blocked."
	}
	return "the next minor update will be blocked; z-streams are not."
}

func countedNodes(nodes []string) string {
	if len(nodes) == 1 {
		return "node " + nodes[0]
	}
	return fmt.Sprintf("%d nodes (%s)", len(nodes), nodeList(nodes))
}

// next is the command that comes next for a group: a recover plan for what
// recover remedies, the oc command for what only the admin can do.
func (w *wedger) next(ms []Finding) string {
	c := ms[0]
	d := c.Details
	name := c.Subject[strings.LastIndex(c.Subject, "/")+1:]
	switch c.Code {
	case CodeReleaseNotAccepted:
		if d["class"] == ReleaseClassRetrieval {
			return "oc adm release info " + firstNonEmpty(d["image"], d["version"])
		}
		return "oc adm upgrade --clear"
	case CodeCVOStuckOnManifest:
		if b := d["blockers"]; b != "" {
			return "oc get " + strings.Split(b, ",")[0] + " -o yaml"
		}
		return "oc -n " + openshift.CVONamespace + " logs deployment/" + openshift.CVODeployment
	case CodeCVODisabled:
		return nextcmd.ScaleCVO(1)
	case CodeClusterVersionFailing, CodeUpdateInProgress, CodePreviousUpdateIncomplete, CodeForcedUpdate, CodeUnverifiedUpdate:
		return "oc adm upgrade status"
	case CodeUpdateClaimedCompleteButMixed, CodeKubeletNewerThanAPIServer, CodeKubeletSkewTooLarge, CodeOperatorVersionUnverified, CodeMixedOperatorVersions:
		return "recover plan"
	case CodeStaticPodRevisionMismatch, CodeInstallerSucceededWithoutRevision, CodeStaticPodMissing, CodeStaticPodRolloutStuck:
		return nextcmd.PlanAccepting(nextcmd.AcceptForceRedeployment + d["component"])
	case CodeOperatorDegraded, CodeOperatorUnavailable, CodeOperatorProgressingStuck:
		return "oc describe clusteroperator/" + name
	case CodeWebhookUnavailable:
		ns, svc, _ := strings.Cut(strings.Split(d["service"], ",")[0], "/")
		return fmt.Sprintf("oc -n %s get endpointslices -l kubernetes.io/service-name=%s", ns, svc)
	case CodeNodeNotReady:
		return "oc describe node/" + name
	case CodeCSRPending:
		if d["vouched"] != "" {
			return "recover plan"
		}
		return "oc describe csr " + strings.ReplaceAll(d["csrs"], ",", " ")
	case CodeCertificateExpiry:
		if p := w.pausedPool(); name == openshift.KubeletSigner && p != "" {
			return nextcmd.PausePool(p, false)
		}
		ns := strings.Split(c.Subject, "/")[1]
		return fmt.Sprintf("oc -n %s describe secret %s", ns, name)
	case CodeDrainBlockedByPDB:
		return "recover plan"
	case CodeGuardPDBBlocksDrain:
		return "oc describe clusteroperator/" + firstNonEmpty(w.operatorOf(d["component"]), d["component"])
	case CodeNodeDegraded:
		node := names(withCode(ms, CodeNodeDegraded))[0]
		switch d["class"] {
		case NodeClassContentMismatch, NodeClassOSImageMismatch:
			return "oc debug node/" + node + " -- chroot /host touch /run/machine-config-daemon-force"
		case NodeClassPullFailure, NodeClassOSUpdateFailure, NodeClassRebootFailure:
			return "oc debug node/" + node + " -- chroot /host journalctl -u machine-config-daemon-host -u rpm-ostreed --since -2h"
		case NodeClassDrain:
			return "oc -n " + openshift.MachineConfigDaemonNamespace + " logs deployment/machine-config-controller -c machine-config-controller"
		}
		return "oc -n " + openshift.MachineConfigDaemonNamespace + " logs -c machine-config-daemon -l k8s-app=machine-config-daemon --field-selector spec.nodeName=" + node
	case CodePoolPaused:
		if d["blocks"] == "true" {
			return "recover plan"
		}
		return "oc describe machineconfigpool/" + d["pool"]
	case CodePoolDegraded, CodePoolUpdating, CodeCompletedWithPoolsBehind:
		for _, m := range ms {
			if m.Code == CodePoolPaused && m.Details["blocks"] == "true" {
				return "recover plan"
			}
		}
		return "oc describe machineconfigpool/" + d["pool"]
	case CodeUpgradeableFalse:
		switch d["class"] {
		case UpgradeClassAdminAck:
			return "oc get configmap -n " + openshift.AdminGatesNamespace + " " + openshift.AdminGatesConfigMap + " -o yaml"
		case UpgradeClassOverrides:
			return nextcmd.PlanAccepting(nextcmd.AcceptRemoveOverrides)
		case UpgradeClassCloudCredential:
			return nextcmd.PlanAccepting(nextcmd.AcceptUpgradeableTo + w.s.nextMinor())
		case UpgradeClassUnsupportedConfig:
			for _, m := range ms {
				if cfg := operatorConfig[strings.TrimPrefix(m.Subject, "clusteroperator/")]; cfg != "" {
					return nextcmd.MergePatch(cfg+"/"+openshift.SingletonName, "", `{"spec":{"unsupportedConfigOverrides":null}}`)
				}
			}
		case UpgradeClassKubeletSkew:
			return "recover plan"
		case UpgradeClassOLM:
			return "oc get clusterserviceversions -A"
		case UpgradeClassDegradedPool:
			return "oc get machineconfigpools"
		case UpgradeClassNetworkSDN:
			return "oc get network.operator cluster -o jsonpath='{.spec.defaultNetwork.type}'"
		}
		return "oc adm upgrade"
	case CodeAdminAckRequired:
		var keys []string
		for _, f := range withCode(ms, CodeAdminAckRequired) {
			keys = append(keys, "--accept "+nextcmd.AcceptAdminAck+f.Details["gate"])
		}
		return "recover plan " + strings.Join(keys, " ")
	case CodeRemovedAPIInUse:
		return "oc get apirequestcounts " + name + " -o yaml"
	case CodeUnmanagedOverrides:
		return nextcmd.PlanAccepting(nextcmd.AcceptRemoveOverrides)
	case CodeConditionalRiskOnTarget:
		return "recover plan"
	case CodeCVOAbandonedUpdate:
		return "recover plan"
	case CodeInstallerInterrupted:
		return "recover plan --accept force-redeployment:" + d["component"]
	case CodeDrainBlockedByUnseenPDB:
		if d["namespace"] == "" {
			return "oc get pods -A --field-selector metadata.name=" + strings.Split(d["pods"], ",")[0]
		}
		return "oc -n " + d["namespace"] + " get poddisruptionbudgets"
	case CodeCVORetryingManifest:
		return getCommand(c.Subject)
	case CodeNodeDegradedInLog:
		return "oc describe node/" + name
	case CodeCSRNotAuthorizedInLog:
		return "oc describe csr " + name
	case CodeNotCollected:
		if w.s.Source.Kind == SourceLive {
			res := strings.TrimPrefix(c.Subject, "resource/")
			res, ns, _ := strings.Cut(res, "/")
			if ns != "" {
				return "oc auth can-i list " + res + " -n " + ns
			}
			return "oc auth can-i list " + res + " --all-namespaces"
		}
		return "oc adm must-gather"
	}
	return "oc adm upgrade status"
}

func (w *wedger) pausedPool() string {
	for _, p := range w.s.MachineConfigPools {
		if p.Paused {
			return p.Name
		}
	}
	return ""
}

func (w *wedger) operatorOf(component string) string {
	if c := StaticPodComponentFor(component); c != nil {
		return c.ClusterOperator
	}
	return ""
}

// WhyStuck returns the wedge summary, most blocking first (Snapshot.Wedges,
// computed when it was not): the lines the report, the Markdown report and the
// TUI overview show first.
func (s *Snapshot) WhyStuck() []Wedge {
	if s.Wedges == nil && s.Findings != nil {
		s.Wedges = Wedges(s)
	}
	return s.Wedges
}

// Blocking returns the wedges that hold the update (ClassBlocks).
func (s *Snapshot) Blocking() []Wedge {
	var out []Wedge
	for _, w := range s.WhyStuck() {
		if w.Class == ClassBlocks {
			out = append(out, w)
		}
	}
	return out
}

// getCommand is the oc command that shows the object a subject
// ("<kind>/<name>" or "<kind>/<namespace>/<name>") names.
func getCommand(subject string) string {
	parts := strings.Split(subject, "/")
	switch len(parts) {
	case 2:
		return "oc get " + parts[0] + " " + parts[1] + " -o yaml"
	case 3:
		return "oc -n " + parts[1] + " get " + parts[0] + " " + parts[2] + " -o yaml"
	}
	return "oc adm upgrade status"
}
