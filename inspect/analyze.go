package inspect

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/openshift-recover/recover/internal/openshift"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
)

// Summary is the claim-versus-reality view of a snapshot, derived from its facts.
type Summary struct {
	// DesiredVersion and DesiredImage are ClusterVersion status.desired.
	DesiredVersion string `json:"desiredVersion,omitempty"`
	DesiredImage   string `json:"desiredImage,omitempty"`
	// HistoryState and HistoryVersion are history[0]'s state and version.
	HistoryState   string `json:"historyState,omitempty"`
	HistoryVersion string `json:"historyVersion,omitempty"`
	// CVOMode is the mode a (re)started CVO would pick.
	CVOMode CVOMode `json:"cvoMode"`
	// CVOReplicas is the CVO Deployment's replicas (nil: not collected or absent).
	CVOReplicas *int32 `json:"cvoReplicas,omitempty"`
	// Operators are every ClusterOperator's operator version, claimed and verified.
	Operators []VersionFact `json:"operators"`
	// Operands are the static-pod operands' versions, claimed and verified.
	Operands []VersionFact `json:"operands,omitempty"`
	// OperatorsByVersion groups ClusterOperators by claimed version, newest first.
	OperatorsByVersion []VersionGroup `json:"operatorsByVersion"`
	// NodesByKubelet groups nodes by kubelet version, newest first.
	NodesByKubelet []VersionGroup `json:"nodesByKubelet"`
	// OldestKubeAPIServer is the oldest running kube-apiserver, nil when unknown.
	OldestKubeAPIServer *KubeAPIServerVersion `json:"oldestKubeAPIServer,omitempty"`
	// Fingerprint is Snapshot.Fingerprint().
	Fingerprint string `json:"fingerprint"`
}

// Refresh recomputes the snapshot's Summary, Findings, Wedges and Timeline from
// its facts. Sources
// call it (through Builder.Finish); call it again after changing a snapshot.
func Refresh(s *Snapshot) {
	if s.FormatVersion == "" {
		s.FormatVersion = FormatVersion
	}
	s.Summary = summarize(s)
	s.Findings = Analyze(s)
	s.Wedges = Wedges(s)
	s.Timeline = BuildTimeline(s)
	linkWedges(s.Wedges, s.Timeline)
}

func summarize(s *Snapshot) *Summary {
	sum := &Summary{CVOMode: s.CVOMode(), Fingerprint: s.Fingerprint()}
	if cv := s.ClusterVersion; cv != nil {
		sum.DesiredVersion, sum.DesiredImage = cv.Status.Desired.Version, cv.Status.Desired.Image
		if len(cv.Status.History) > 0 {
			sum.HistoryState, sum.HistoryVersion = string(cv.Status.History[0].State), cv.Status.History[0].Version
		}
	}
	if s.CVO != nil {
		r := s.CVO.EffectiveReplicas()
		sum.CVOReplicas = &r
	}
	sum.Operators = s.Operators()
	for _, op := range s.StaticPodOperators {
		sum.Operands = append(sum.Operands, s.OperandVersion(op.Component))
	}
	sum.OperatorsByVersion = s.OperatorsByVersion()
	sum.NodesByKubelet = s.NodesByKubelet()
	if k, ok := s.OldestKubeAPIServer(); ok {
		sum.OldestKubeAPIServer = &k
	}
	return sum
}

// Analyze returns the findings of a snapshot: every contradiction between what the
// cluster claims and what runs, and every state a recovery must know about. It is
// a pure function of the snapshot; the result is sorted by severity, code and
// subject.
func Analyze(s *Snapshot) []Finding {
	a := &analysis{s: s}
	a.notCollected()
	a.clusterVersion()
	a.operators()
	a.staticPods()
	a.rolloutStuck()
	a.kubelets()
	a.drains()
	a.logDrains()
	a.pools()
	a.nodes()
	a.csrs()
	a.certificates()
	a.upgradeable()
	a.adminGates()
	a.removedAPIs()
	a.releaseAccepted()
	a.webhooks()
	a.stuckManifests()
	a.conditionalRisks()
	a.preflight()
	a.previousUpdate()
	a.poolsBehind()
	a.cvo()
	a.logs()
	a.addLogEvidence()
	sort.SliceStable(a.out, func(i, j int) bool {
		x, y := a.out[i], a.out[j]
		if severityRank(x.Severity) != severityRank(y.Severity) {
			return severityRank(x.Severity) < severityRank(y.Severity)
		}
		if x.Code != y.Code {
			return x.Code < y.Code
		}
		return x.Subject < y.Subject
	})
	if a.out == nil {
		a.out = []Finding{}
	}
	return a.out
}

type analysis struct {
	s   *Snapshot
	out []Finding
	// drainCause maps a node to the subjects of the PDB findings holding its drain.
	drainCause map[string][]string
}

func (a *analysis) add(f Finding) { a.out = append(a.out, f) }

func claim(text, source string) Evidence {
	return Evidence{Kind: EvidenceClaim, Text: text, Source: source}
}
func reality(text, source string) Evidence {
	return Evidence{Kind: EvidenceReality, Text: text, Source: source}
}
func rule(text string) Evidence { return Evidence{Kind: EvidenceRule, Text: text} }

// stateIn returns the collection state of a resource in a namespace: the record
// for that namespace when there is one, else the cluster-wide record ("" when the
// resource was never recorded).
func (s *Snapshot) stateIn(key, namespace string) CollectionState {
	var wide CollectionState
	for _, r := range s.Resources {
		if r.Resource != key {
			continue
		}
		if r.Namespace == namespace {
			return r.State
		}
		if r.Namespace == "" {
			wide = r.State
		}
	}
	return wide
}

// collectedIn reports whether a resource was collected for a namespace (or
// cluster-wide, which covers every namespace without a record of its own).
func (s *Snapshot) collectedIn(key, namespace string) bool {
	return s.stateIn(key, namespace) == Collected
}

func (a *analysis) notCollected() {
	// A source that holds none of the wedge facts (a must-gather, archive or
	// saved snapshot from before recover read them) says nothing of its wedges:
	// one line of context, not a warning per resource. A source that holds some
	// of them has gaps worth a warning each.
	predates := true
	for _, r := range a.s.Resources {
		if isWedgeResource(r) && r.State != Absent && !strings.HasPrefix(r.Reason, ReasonNotNeeded) {
			predates = false
		}
	}
	var absentWedge []ResourceStatus
	for _, r := range a.s.Resources {
		if r.State == Collected {
			continue
		}
		if predates && isWedgeResource(r) {
			absentWedge = append(absentWedge, r)
			continue
		}
		sev := SeverityWarning
		if r.Resource == ResClusterVersions.Key() {
			sev = SeverityError
		}
		why := string(r.State)
		if r.Reason != "" {
			why += ": " + r.Reason
		}
		f := Finding{
			Code: CodeNotCollected, Severity: sev, Class: ClassInforms, Subject: "resource/" + r.Key(),
			Message: fmt.Sprintf("%s could not be read (%s); what depends on it is unknown, not empty.", r.Key(), why),
			Details: map[string]string{"resource": r.Resource, "state": string(r.State)},
		}
		if r.Namespace != "" {
			f.Details["namespace"] = r.Namespace
		}
		f.Evidence = append(f.Evidence, reality(fmt.Sprintf("%s: %s", r.State, firstNonEmpty(r.Reason, "no reason recorded")), "resource/"+r.Key()))
		for _, from := range r.From {
			f.Evidence = append(f.Evidence, reality("looked in "+from, ""))
		}
		a.add(f)
	}
	if len(absentWedge) == 0 {
		return
	}
	var keys []string
	f := Finding{Code: CodeNotCollected, Severity: SeverityInfo, Class: ClassInforms, Subject: "resources/wedge-facts",
		Details: map[string]string{"state": string(Absent)}}
	for _, r := range absentWedge {
		keys = append(keys, r.Key())
		f.Evidence = append(f.Evidence, reality(fmt.Sprintf("%s: %s", r.Key(), firstNonEmpty(r.Reason, "absent")), "resource/"+r.Key()))
	}
	f.Details["resources"] = strings.Join(keys, ",")
	f.Message = fmt.Sprintf("This source holds none of the %d resource types the wedge diagnosis reads (it predates them: %s); those checks stay silent.", len(keys), nodeList(keys))
	a.add(f)
}

const cvSubject = "clusterversion/version"

func (a *analysis) clusterVersion() {
	cv := a.s.ClusterVersion
	if cv == nil {
		return
	}
	mode := a.s.CVOMode()
	desired := cv.Status.Desired
	hist := cv.Status.History
	if len(hist) > 0 && hist[0].State == configv1.CompletedUpdate && (hist[0].Image == desired.Image || hist[0].Version == desired.Version) {
		if mixed, parts := a.mixedAgainst(desired.Version); len(mixed) > 0 {
			ev := []Evidence{claim(fmt.Sprintf("history[0] %s %s (started %s)", hist[0].State, hist[0].Version, hist[0].StartedTime.UTC().Format(time.RFC3339)), cvSubject+" status.history")}
			if c := cvCondition(cv, configv1.OperatorProgressing); c != nil && c.Status == configv1.ConditionFalse {
				ev = append(ev, claim("Progressing=False: "+c.Message, cvSubject+" status.conditions"))
			}
			ev = append(ev, mixed...)
			ev = append(ev, rule(fmt.Sprintf("a (re)started CVO picks %s mode: history[0] is Completed for the desired image (cluster-version-operator pkg/cvo/cvo.go)", mode)))
			msg := fmt.Sprintf("ClusterVersion says %s is Completed, but the cluster is not at it: %s.", desired.Version, strings.Join(parts, "; "))
			if mode == ModeReconciling {
				msg += fmt.Sprintf(" A (re)started CVO would run in Reconciling mode and apply %s's manifests flat and shuffled over this mixed state; do not re-enable or restart it before the control plane is consistent.", desired.Version)
			} else {
				msg += fmt.Sprintf(" A (re)started CVO would run in %s mode.", mode)
			}
			a.add(Finding{
				Code: CodeUpdateClaimedCompleteButMixed, Severity: SeverityError, Class: ClassBlocks, Subject: cvSubject, Message: msg, Evidence: ev,
				Details: map[string]string{"cvoMode": string(mode), "desiredVersion": desired.Version},
			})
		}
	}
	if len(hist) > 0 && hist[0].State == configv1.PartialUpdate {
		from := ""
		for _, h := range hist[1:] {
			if h.State == configv1.CompletedUpdate {
				from = h.Version
				break
			}
		}
		msg := fmt.Sprintf("An update to %s is in progress (history[0] Partial since %s)", hist[0].Version, hist[0].StartedTime.UTC().Format(time.RFC3339))
		if from != "" {
			msg += fmt.Sprintf("; the last completed release is %s", from)
		}
		msg += fmt.Sprintf(". A (re)started CVO would run in %s mode.", mode)
		ev := []Evidence{claim(fmt.Sprintf("history[0] Partial %s %s", hist[0].Version, hist[0].Image), cvSubject+" status.history")}
		if c := cvCondition(cv, configv1.OperatorProgressing); c != nil {
			ev = append(ev, claim(fmt.Sprintf("Progressing=%s: %s", c.Status, c.Message), cvSubject+" status.conditions"))
		}
		a.add(Finding{Code: CodeUpdateInProgress, Severity: SeverityInfo, Class: ClassInforms, Subject: cvSubject, Message: msg, Evidence: ev,
			Details: map[string]string{"cvoMode": string(mode), "target": hist[0].Version, "from": from}})
	}
	if c := cvCondition(cv, openshift.ConditionFailing); c != nil && c.Status == configv1.ConditionTrue {
		a.add(Finding{Code: CodeClusterVersionFailing, Severity: SeverityError, Class: ClassBlocks, Subject: cvSubject,
			Message:  fmt.Sprintf("ClusterVersion is Failing (%s): %s", c.Reason, oneLine(c.Message)),
			Evidence: []Evidence{claim(fmt.Sprintf("Failing=True reason %s since %s", c.Reason, c.LastTransitionTime.UTC().Format(time.RFC3339)), cvSubject+" status.conditions")},
			Details:  map[string]string{"reason": c.Reason}})
	}
	var overrides []Evidence
	for _, o := range cv.Spec.Overrides {
		if o.Unmanaged {
			id := o.Kind + " " + o.Name
			if o.Namespace != "" {
				id = o.Kind + " " + o.Namespace + "/" + o.Name
			}
			if o.Group != "" {
				id += " (" + o.Group + ")"
			}
			overrides = append(overrides, claim("unmanaged: "+id, cvSubject+" spec.overrides"))
		}
	}
	if len(overrides) > 0 {
		class := ClassInforms
		if a.minorStep() {
			class = ClassBlocks
		}
		a.add(Finding{Code: CodeUnmanagedOverrides, Severity: SeverityWarning, Class: class, Subject: cvSubject,
			Message:  fmt.Sprintf("%d component(s) are excluded from CVO management by spec.overrides; the CVO neither applies nor waits on them, and minor updates are blocked until they are removed.", len(overrides)),
			Evidence: append(overrides, rule("overrides make the CVO refuse minor and major updates (precondition ClusterVersionOverridesSet, pkg/payload/precondition/clusterversion/upgradeable.go)"))})
	}
	if u := cv.Spec.DesiredUpdate; u != nil && u.Force {
		a.add(Finding{Code: CodeForcedUpdate, Severity: SeverityWarning, Class: ClassInforms, Subject: cvSubject,
			Message:  fmt.Sprintf("spec.desiredUpdate to %s is forced: signature verification and the update preconditions (Upgradeable, rollback, giant-hop) were waived.", firstNonEmpty(u.Version, u.Image)),
			Evidence: []Evidence{claim(fmt.Sprintf("desiredUpdate version %q image %q force true", u.Version, u.Image), cvSubject+" spec.desiredUpdate")}})
	}
	var unverified []Evidence
	for i, h := range hist {
		if i == len(hist)-1 {
			break // the install: never signature-verified
		}
		if !h.Verified {
			unverified = append(unverified, claim(fmt.Sprintf("%s %s (%s) verified=false", h.State, h.Version, h.Image), fmt.Sprintf("%s status.history[%d]", cvSubject, i)))
		}
	}
	if len(unverified) > 0 {
		a.add(Finding{Code: CodeUnverifiedUpdate, Severity: SeverityWarning, Class: ClassInforms, Subject: cvSubject,
			Message:  fmt.Sprintf("%d update(s) in history were applied without a verified release signature (forced, or signatures unreachable as in restricted networks).", len(unverified)),
			Evidence: unverified})
	}
}

func cvCondition(cv *ClusterVersion, t configv1.ClusterStatusConditionType) *configv1.ClusterOperatorStatusCondition {
	for i := range cv.Status.Conditions {
		if cv.Status.Conditions[i].Type == t {
			return &cv.Status.Conditions[i]
		}
	}
	return nil
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// mixedAgainst lists the components that are not at version: ClusterOperators
// (by their verified version when known), static-pod operands whose mirror pods do
// not run their operator's image or not the claimed revision, and control-plane
// nodes and pools not rolled out. Worker pools are left out: they do not gate the
// CVO's completion. It returns the evidence and a short summary of each kind.
func (a *analysis) mixedAgainst(version string) ([]Evidence, []string) {
	s := a.s
	var ev []Evidence
	var parts []string
	var behind []string
	for _, co := range s.ClusterOperators {
		f := s.OperatorVersion(co.Name)
		switch {
		case f.Claimed != "" && f.Claimed != version:
			at := co.Name + "@" + f.Claimed
			if f.Verified != "" && f.Verified != f.Claimed {
				at += " (operator runs " + f.Verified + ")"
			}
			behind = append(behind, at)
		case f.Verified != "" && f.Verified != version:
			behind = append(behind, fmt.Sprintf("%s@%s (claims %s)", co.Name, f.Verified, f.Claimed))
		}
	}
	if len(behind) > 0 {
		ev = append(ev, reality(fmt.Sprintf("%d clusteroperator(s) not at %s: %s", len(behind), version, strings.Join(behind, ", ")), "clusteroperators status.versions / operator Deployments"))
		parts = append(parts, fmt.Sprintf("%d of %d ClusterOperators run another version", len(behind), len(s.ClusterOperators)))
	}
	staticStart := len(ev)
	for _, op := range s.StaticPodOperators {
		for _, t := range op.Truth() {
			if t.RevisionMismatch() {
				ev = append(ev, reality(fmt.Sprintf("%s on %s runs revision %d, claimed %d", op.Component, t.Node, t.Running, t.Claimed), "pod "+op.Namespace+"/"+t.Mirror.Name))
			}
		}
		ins := s.OperandInstances(op.Component)
		var off []string
		verified := 0
		for _, in := range ins {
			if in.Verified {
				verified++
			} else {
				off = append(off, in.Node)
			}
		}
		if verified > 0 && len(off) > 0 {
			ev = append(ev, reality(fmt.Sprintf("%s on %s does not run the image its operator carries", op.Component, strings.Join(off, ", ")), "pods in "+op.Namespace))
		}
	}
	if n := len(ev) - staticStart; n > 0 {
		parts = append(parts, fmt.Sprintf("%d static-pod instance(s) differ from their claims or operator image", n))
	}
	for _, p := range s.MachineConfigPools {
		if !p.GatesUpdate() {
			continue
		}
		if p.Rolling() {
			ev = append(ev, reality(fmt.Sprintf("machineconfigpool/%s: %d of %d machines on %s", p.Name, p.UpdatedMachineCount, p.MachineCount, p.Configuration), "machineconfigpool/"+p.Name+" status"))
			parts = append(parts, fmt.Sprintf("pool %s has %d of %d machines updated", p.Name, p.UpdatedMachineCount, p.MachineCount))
		}
	}
	oldNodes := 0
	kubelets := map[string]string{}
	for i := range s.Nodes {
		n := &s.Nodes[i]
		if !n.IsControlPlane() {
			continue
		}
		kubelets[n.Name] = n.KubeletVersion
		if mc := s.MachineConfig(n.CurrentConfig); mc != nil && mc.ReleaseImageVersion != "" && mc.ReleaseImageVersion != version {
			ev = append(ev, reality(fmt.Sprintf("node/%s runs %s, rendered for %s", n.Name, n.CurrentConfig, mc.ReleaseImageVersion), "node/"+n.Name+" "+annCurrentConfig))
			oldNodes++
		}
	}
	if oldNodes > 0 {
		parts = append(parts, fmt.Sprintf("%d control-plane node(s) run a configuration of another release", oldNodes))
	}
	if groups := groupVersions(kubelets); len(groups) > 1 {
		var kparts []string
		for _, g := range groups {
			kparts = append(kparts, fmt.Sprintf("%s on %s", g.Version, strings.Join(g.Names, ", ")))
		}
		ev = append(ev, reality("control-plane kubelets differ: "+strings.Join(kparts, "; "), "nodes status.nodeInfo.kubeletVersion"))
		parts = append(parts, fmt.Sprintf("control-plane kubelets run %d different versions", len(groups)))
	}
	return ev, parts
}

func (a *analysis) operators() {
	s := a.s
	var groups []VersionGroup
	for _, g := range s.OperatorsByVersion() {
		if g.Version != "" {
			groups = append(groups, g)
		}
	}
	if len(groups) > 1 {
		// During an update mixed versions are its progress; after one claimed
		// complete they are what keeps it from being so.
		sev, class := SeverityInfo, ClassInforms
		if cv := s.ClusterVersion; cv != nil && len(cv.Status.History) > 0 && cv.Status.History[0].State == configv1.CompletedUpdate {
			sev, class = SeverityWarning, ClassBlocks
		}
		var ev []Evidence
		var versions []string
		for _, g := range groups {
			versions = append(versions, g.Version)
			ev = append(ev, claim(fmt.Sprintf("%s (%d): %s", g.Version, len(g.Names), strings.Join(g.Names, ", ")), "clusteroperators status.versions operator"))
		}
		a.add(Finding{Code: CodeMixedOperatorVersions, Severity: sev, Class: class, Subject: "clusteroperators",
			Message:  fmt.Sprintf("ClusterOperators report %d different release versions: %s.", len(groups), strings.Join(versions, ", ")),
			Evidence: ev, Details: map[string]string{"versions": strings.Join(versions, ",")}})
	}
	now := s.Source.CollectedAt
	for i := range s.ClusterOperators {
		co := &s.ClusterOperators[i]
		subject := "clusteroperator/" + co.Name
		src := subject + " status.conditions"
		if c := co.Condition(configv1.OperatorAvailable); c != nil && c.Status != configv1.ConditionTrue {
			a.add(Finding{Code: CodeOperatorUnavailable, Severity: SeverityError, Class: ClassBlocks, Subject: subject,
				Message:  fmt.Sprintf("%s is not Available (%s): %s", co.Name, firstNonEmpty(c.Reason, string(c.Status)), oneLine(c.Message)),
				Evidence: []Evidence{claim(fmt.Sprintf("Available=%s reason %s since %s", c.Status, c.Reason, c.LastTransitionTime.UTC().Format(time.RFC3339)), src)}})
		}
		if c := co.Condition(configv1.OperatorDegraded); c != nil && c.Status == configv1.ConditionTrue {
			a.add(Finding{Code: CodeOperatorDegraded, Severity: SeverityError, Class: ClassBlocks, Subject: subject,
				Message:  fmt.Sprintf("%s is Degraded (%s): %s", co.Name, c.Reason, oneLine(c.Message)),
				Evidence: []Evidence{claim(fmt.Sprintf("Degraded=True reason %s since %s", c.Reason, c.LastTransitionTime.UTC().Format(time.RFC3339)), src)}})
		}
		if c := co.Condition(configv1.OperatorProgressing); c != nil && c.Status == configv1.ConditionTrue && !now.IsZero() && !c.LastTransitionTime.IsZero() {
			limit := 20 * time.Minute
			if co.Name == openshift.MachineConfigOperator {
				limit = 90 * time.Minute
			}
			if since := now.Sub(c.LastTransitionTime.Time); since > limit {
				a.add(Finding{Code: CodeOperatorProgressingStuck, Severity: SeverityWarning, Class: ClassBlocks, Subject: subject,
					Message: fmt.Sprintf("%s has been Progressing for %s, longer than the %s the API allows a version change (%s): %s",
						co.Name, since.Round(time.Minute), limit, c.Reason, oneLine(c.Message)),
					Evidence: []Evidence{
						claim(fmt.Sprintf("Progressing=True reason %s since %s", c.Reason, c.LastTransitionTime.UTC().Format(time.RFC3339)), src),
						rule(fmt.Sprintf("Progressing may last 20 minutes per version change, 90 for machine-config (openshift/api ClusterOperator godoc); measured at %s (%s)", now.Format(time.RFC3339), s.Source.CollectedAtFrom)),
					}})
			}
		}
		if f := s.OperatorVersion(co.Name); f.Contradicted() {
			sev, class, msg := SeverityInfo, ClassInforms, fmt.Sprintf("%s's operator Deployment already runs %s while the ClusterOperator still reports %s (it reports the new version once its operands have rolled out).", co.Name, f.Verified, f.Claimed)
			if CompareVersions(f.Claimed, f.Verified) > 0 {
				sev, class, msg = SeverityWarning, ClassBlocks, fmt.Sprintf("%s claims %s but its running operator Deployment carries %s: the claim is ahead of what runs.", co.Name, f.Claimed, f.Verified)
			}
			a.add(Finding{Code: CodeOperatorVersionUnverified, Severity: sev, Class: class, Subject: subject, Message: msg,
				Evidence: []Evidence{claim("operator "+f.Claimed, subject+" status.versions"), reality(f.Method, "")},
				Details:  map[string]string{"claimed": f.Claimed, "verified": f.Verified}})
		}
	}
}

func (a *analysis) staticPods() {
	s := a.s
	for i := range s.StaticPodOperators {
		op := &s.StaticPodOperators[i]
		podsKnown := s.MirrorPodsCollected(op)
		crSubject := strings.ToLower(kindOf(op.Resource)) + "/cluster"
		for _, t := range op.Truth() {
			nodeSubject := "node/" + t.Node
			details := map[string]string{"component": op.Component, "node": t.Node}
			if t.MissingMirror(podsKnown) {
				a.add(Finding{Code: CodeStaticPodMissing, Severity: SeverityWarning, Class: ClassBlocks, Subject: nodeSubject,
					Message:  fmt.Sprintf("%s: %s lists node %s at revision %d, but no mirror pod %s-%s exists in %s.", op.Component, crSubject, t.Node, t.Claimed, StaticPodComponentFor(op.Resource).PodPrefix, t.Node, op.Namespace),
					Evidence: []Evidence{claim(fmt.Sprintf("nodeStatuses %s currentRevision %d", t.Node, t.Claimed), crSubject+" status.nodeStatuses"), reality("no mirror pod on "+t.Node, "pods in "+op.Namespace)},
					Details:  details})
			}
			if t.RevisionMismatch() {
				d := copyMap(details)
				d["claimed"], d["running"] = strconv.Itoa(int(t.Claimed)), strconv.Itoa(int(t.Running))
				a.add(Finding{Code: CodeStaticPodRevisionMismatch, Severity: SeverityError, Class: ClassBlocks, Subject: nodeSubject,
					Message: fmt.Sprintf("%s: %s claims node %s is at revision %d, but its mirror pod %s runs revision %d.",
						op.Component, crSubject, t.Node, t.Claimed, t.Mirror.Name, t.Running),
					Evidence: []Evidence{
						claim(fmt.Sprintf("nodeStatuses %s currentRevision %d (latestAvailableRevision %d)", t.Node, t.Claimed, op.LatestAvailableRevision), crSubject+" status.nodeStatuses"),
						reality(fmt.Sprintf("mirror pod %s label revision=%d, image %s, ready=%t", t.Mirror.Name, t.Running, t.Mirror.Image, t.Mirror.Ready), "pod "+op.Namespace+"/"+t.Mirror.Name),
					},
					Details: d})
			}
			if !podsKnown {
				continue
			}
			for _, ip := range t.Installers {
				if ip.Phase != string(corev1.PodSucceeded) || (t.Mirror != nil && t.Running >= ip.Revision) {
					continue
				}
				running := "no mirror pod"
				if t.Mirror != nil {
					running = fmt.Sprintf("mirror pod %s label revision=%d", t.Mirror.Name, t.Running)
				}
				ev := []Evidence{claim(fmt.Sprintf("%s phase Succeeded", ip.Name), "pod "+op.Namespace+"/"+ip.Name)}
				for _, c := range ip.Containers {
					if c.Terminated {
						ev = append(ev, claim(fmt.Sprintf("container %s terminated: exit code %d, reason %q", c.Name, c.ExitCode, c.Reason), "pod "+op.Namespace+"/"+ip.Name+" status.containerStatuses"))
					} else {
						ev = append(ev, reality(fmt.Sprintf("container %s never reported a terminated state", c.Name), "pod "+op.Namespace+"/"+ip.Name+" status.containerStatuses"))
					}
				}
				ev = append(ev, reality(running, "pods in "+op.Namespace))
				d := copyMap(details)
				d["installer"], d["revision"], d["running"] = ip.Name, strconv.Itoa(int(ip.Revision)), strconv.Itoa(int(t.Running))
				a.add(Finding{Code: CodeInstallerSucceededWithoutRevision, Severity: SeverityError, Class: ClassBlocks, Subject: nodeSubject,
					Message: fmt.Sprintf("%s: installer pod %s reports Succeeded, but node %s never ran revision %d (%s); the phase is a claim the kubelet may have got wrong.",
						op.Component, ip.Name, t.Node, ip.Revision, running),
					Evidence: ev, Details: d})
			}
		}
	}
}

func kindOf(resource string) string {
	for _, r := range ClusterResources {
		if r.Resource == resource {
			return r.Kind
		}
	}
	return resource
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m)+3)
	for k, v := range m {
		out[k] = v
	}
	return out
}

func (a *analysis) kubelets() {
	s := a.s
	kas, ok := s.OldestKubeAPIServer()
	if !ok {
		return
	}
	type group struct {
		verdict SkewVerdict
		nodes   []string
	}
	newer := map[string]*group{}
	tooOld := map[string]*group{}
	for _, n := range s.Nodes {
		if n.KubeletVersion == "" {
			continue
		}
		v, err := CheckKubeletSkew(n.KubeletVersion, kas.Version, 0)
		if err != nil {
			continue
		}
		target := map[string]*group(nil)
		switch {
		case v.Newer:
			target = newer
		case v.TooOldOpenShift || v.TooOldUpstream:
			target = tooOld
		default:
			continue
		}
		g := target[n.KubeletVersion]
		if g == nil {
			g = &group{verdict: v}
			target[n.KubeletVersion] = g
		}
		g.nodes = append(g.nodes, n.Name)
	}
	kasEv := reality(fmt.Sprintf("oldest running kube-apiserver %s (%s)", kas.Version, kas.Source), "pods in openshift-kube-apiserver")
	if len(kas.Nodes) > 0 {
		kasEv.Text = fmt.Sprintf("oldest running kube-apiserver %s on %s (%s)", kas.Version, strings.Join(kas.Nodes, ", "), kas.Source)
	}
	emit := func(code, kubelet string, g *group, msg string, r Evidence) {
		sort.Strings(g.nodes)
		subject := "node/" + g.nodes[0]
		if len(g.nodes) > 1 {
			subject = fmt.Sprintf("nodes/%d-with-kubelet-%s", len(g.nodes), kubelet)
		}
		a.add(Finding{Code: code, Severity: SeverityError, Class: ClassBlocks, Subject: subject, Message: msg,
			Evidence: []Evidence{reality(fmt.Sprintf("kubelet %s on %s", kubelet, nodeList(g.nodes)), "nodes status.nodeInfo.kubeletVersion"), kasEv, r},
			Details:  map[string]string{"kubelet": kubelet, "kubeAPIServer": kas.Version, "nodes": strings.Join(g.nodes, ","), "skew": strconv.Itoa(g.verdict.Skew)}})
	}
	for _, k := range sortedKeys(newer) {
		g := newer[k]
		emit(CodeKubeletNewerThanAPIServer, k, g,
			fmt.Sprintf("The kubelet on %s (%s) is newer than the oldest running kube-apiserver (%s): unsupported; the API server must be updated first (or the node rolled back).", nodeList(g.nodes), k, kas.Version),
			rule("a kubelet must not be newer than any kube-apiserver it talks to (kubernetes.io version-skew policy)"))
	}
	for _, k := range sortedKeys(tooOld) {
		g := tooOld[k]
		var which []string
		if g.verdict.TooOldOpenShift {
			which = append(which, fmt.Sprintf("OpenShift allows %d minor(s) behind for OpenShift 4.%d", g.verdict.OpenShiftAllowed, OpenShiftMinorForKubeVersion(kas.Version)))
		}
		if g.verdict.TooOldUpstream {
			which = append(which, fmt.Sprintf("upstream allows %d", g.verdict.UpstreamAllowed))
		}
		emit(CodeKubeletSkewTooLarge, k, g,
			fmt.Sprintf("The kubelet on %s (%s) is %d minor(s) behind the oldest running kube-apiserver (%s): %s.", nodeList(g.nodes), k, -g.verdict.Skew, kas.Version, strings.Join(which, "; ")),
			rule("OpenShift: kubelets may lag kube-apiserver by 2 minors on even OpenShift minors and 1 on odd ones (cluster-kube-apiserver-operator kubelet_version_skew_controller.go); upstream: 3 minors, 2 for kubelets older than 1.25"))
	}
}

// OpenShiftMinorForKubeVersion returns the OpenShift 4 minor shipping the given
// Kubernetes version, 0 when it does not parse.
func OpenShiftMinorForKubeVersion(kube string) uint64 {
	v, err := ParseVersion(kube)
	if err != nil {
		return 0
	}
	return OpenShiftMinorForKube(v.Minor)
}

func nodeList(nodes []string) string {
	if len(nodes) <= 5 {
		return strings.Join(nodes, ", ")
	}
	return fmt.Sprintf("%s and %d more nodes", strings.Join(nodes[:5], ", "), len(nodes)-5)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (a *analysis) pools() {
	for _, p := range a.s.MachineConfigPools {
		subject := "machineconfigpool/" + p.Name
		src := subject + " status"
		degraded := poolCondition(p, mcfgv1.MachineConfigPoolDegraded)
		if (degraded != nil && degraded.Status == corev1.ConditionTrue) || p.DegradedMachineCount > 0 {
			msg := fmt.Sprintf("Pool %s is degraded: %d of %d machines degraded.", p.Name, p.DegradedMachineCount, p.MachineCount)
			ev := []Evidence{claim(fmt.Sprintf("degradedMachineCount %d", p.DegradedMachineCount), src)}
			if degraded != nil && degraded.Status == corev1.ConditionTrue {
				msg += " " + oneLine(degraded.Message)
				ev = append(ev, claim(fmt.Sprintf("Degraded=True reason %s", degraded.Reason), src+".conditions"))
			}
			a.add(Finding{Code: CodePoolDegraded, Severity: SeverityError, Class: ClassBlocks, Subject: subject, Message: msg, Evidence: ev,
				Details: map[string]string{"pool": p.Name}})
		}
		if p.Paused {
			a.add(a.pausedPool(p))
		}
		updating := poolCondition(p, mcfgv1.MachineConfigPoolUpdating)
		if p.Rolling() || (updating != nil && updating.Status == corev1.ConditionTrue) {
			a.add(Finding{Code: CodePoolUpdating, Severity: SeverityInfo, Class: ClassInforms, Subject: subject,
				Message:  fmt.Sprintf("Pool %s is rolling out %s: %d of %d machines updated, %d unavailable.", p.Name, p.Configuration, p.UpdatedMachineCount, p.MachineCount, p.UnavailableMachineCount),
				Evidence: []Evidence{claim(fmt.Sprintf("spec.configuration %s, status.configuration %s, updated %d/%d", p.Configuration, p.StatusConfiguration, p.UpdatedMachineCount, p.MachineCount), src)},
				Details:  map[string]string{"pool": p.Name}})
		}
	}
}

func poolCondition(p MachineConfigPool, t mcfgv1.MachineConfigPoolConditionType) *mcfgv1.MachineConfigPoolCondition {
	for i := range p.Conditions {
		if p.Conditions[i].Type == t {
			return &p.Conditions[i]
		}
	}
	return nil
}

func (a *analysis) cvo() {
	s := a.s
	mode := s.CVOMode()
	subject := "deployment/" + openshift.CVONamespace + "/" + openshift.CVODeployment
	switch {
	case s.CVO == nil && s.collectedIn(ResDeployments.Key(), openshift.CVONamespace):
		a.add(Finding{Code: CodeCVODisabled, Severity: SeverityWarning, Class: ClassBlocks, Subject: subject,
			Message:  "The cluster-version operator's Deployment does not exist: nothing applies or reconciles the release.",
			Evidence: []Evidence{reality("no Deployment "+openshift.CVONamespace+"/"+openshift.CVODeployment, "deployments in "+openshift.CVONamespace)},
			Details:  map[string]string{"cvoMode": string(mode)}})
	case s.CVO != nil && s.CVO.EffectiveReplicas() == 0:
		a.add(Finding{Code: CodeCVODisabled, Severity: SeverityWarning, Class: ClassBlocks, Subject: subject,
			Message:  fmt.Sprintf("The cluster-version operator is scaled to 0: nothing applies or reconciles the release, and ClusterVersion status is frozen. Scaled back up it would start in %s mode.", mode),
			Evidence: []Evidence{reality("spec.replicas 0", subject)},
			Details:  map[string]string{"cvoMode": string(mode)}})
	}
}

// KubeletSkew measures a kubelet version against the oldest running
// kube-apiserver the summary records, as the kubelet-skew findings do; ok is
// false when that API server is unknown or either version does not parse.
func (sum *Summary) KubeletSkew(kubelet string) (v SkewVerdict, ok bool) {
	if sum == nil || sum.OldestKubeAPIServer == nil || kubelet == "" {
		return SkewVerdict{}, false
	}
	v, err := CheckKubeletSkew(kubelet, sum.OldestKubeAPIServer.Version, 0)
	return v, err == nil
}

// isWedgeResource reports whether a resource record is one of the wedge facts
// (snapshot 1.1) rather than the claims and reality of the two incidents.
func isWedgeResource(r ResourceStatus) bool {
	for _, w := range WedgeResources() {
		if w.Resource.Key() == r.Resource && w.Namespace == r.Namespace {
			return true
		}
	}
	return false
}
