package inspect

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift-recover/recover/internal/nextcmd"
	"github.com/openshift-recover/recover/internal/openshift"
)

// upgradeableRule is the rule behind every Upgradeable=False finding.
const upgradeableRule = "Upgradeable=False blocks minor and major updates, never a z-stream one; a retarget to another z of the minor already being updated to is not blocked either " +
	"(openshift/api ClusterOperator godoc; cluster-version-operator pkg/payload/precondition/clusterversion/upgradeable.go; OCPBUGS-42880)"

// CurrentVersion returns the version the CVO takes as the cluster's current one:
// the newest Completed history entry, else the oldest entry (the CVO's
// GetCurrentVersion, pkg/cvo/upgradeable.go); "" without history.
func (s *Snapshot) CurrentVersion() string {
	cv := s.ClusterVersion
	if cv == nil || len(cv.Status.History) == 0 {
		return ""
	}
	for _, h := range cv.Status.History {
		if h.State == configv1.CompletedUpdate {
			return h.Version
		}
	}
	return cv.Status.History[len(cv.Status.History)-1].Version
}

// MinorUpdateRequested reports whether the cluster is asked to go, or is going, to
// a newer minor (or major) than its current version: spec.desiredUpdate (or
// status.desired) or a Partial history[0] at a higher major.minor.
func (s *Snapshot) MinorUpdateRequested() bool {
	cur, err := ParseVersion(s.CurrentVersion())
	if err != nil || s.ClusterVersion == nil {
		return false
	}
	higher := func(v string) bool {
		t, err := ParseVersion(v)
		return err == nil && (t.Major > cur.Major || (t.Major == cur.Major && t.Minor > cur.Minor))
	}
	if higher(firstNonEmpty(s.DesiredRelease().Version, s.ClusterVersion.Status.Desired.Version)) {
		return true
	}
	h := s.ClusterVersion.Status.History
	return len(h) > 0 && h[0].State == configv1.PartialUpdate && higher(h[0].Version)
}

func (a *analysis) minorStep() bool { return a.s.MinorUpdateRequested() }

// nextMinor returns "major.(minor+1)" of the current version ("" when unknown).
func (s *Snapshot) nextMinor() string {
	v, err := ParseVersion(s.CurrentVersion())
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d.%d", v.Major, v.Minor+1)
}

// gateEffect says what an Upgradeable=False-like condition does now, and its
// class and severity: it blocks (error) when a minor update is requested or under
// way, and informs (warning) otherwise.
func (a *analysis) gateEffect() (effect, class, severity string) {
	s := a.s
	cur := minorOf(s.CurrentVersion())
	if a.minorStep() {
		target := firstNonEmpty(s.DesiredRelease().Version, s.ClusterVersion.Status.Desired.Version)
		return fmt.Sprintf("It blocks the minor update from %s to %s (a z-stream update or a retarget within %s is not blocked).", cur, minorOf(target), minorOf(target)), ClassBlocks, SeverityError
	}
	if cur == "" {
		return "It blocks minor updates, not z-stream ones.", ClassInforms, SeverityWarning
	}
	return fmt.Sprintf("It will block a minor update from %s; z-stream updates are not blocked.", cur), ClassInforms, SeverityWarning
}

// operatorConfig names, for the ClusterOperators that carry
// unsupportedConfigOverrides, the operator.openshift.io configuration that holds
// them (its singleton is "cluster").
var operatorConfig = map[string]string{
	"etcd":                          "etcd.operator.openshift.io",
	"authentication":                "authentication.operator.openshift.io",
	"kube-apiserver":                "kubeapiserver.operator.openshift.io",
	"kube-controller-manager":       "kubecontrollermanager.operator.openshift.io",
	"kube-scheduler":                "kubescheduler.operator.openshift.io",
	"openshift-apiserver":           "openshiftapiserver.operator.openshift.io",
	"openshift-controller-manager":  "openshiftcontrollermanager.operator.openshift.io",
	"network":                       "network.operator.openshift.io",
	"console":                       "console.operator.openshift.io",
	"storage":                       "storage.operator.openshift.io",
	"service-ca":                    "serviceca.operator.openshift.io",
	"kube-storage-version-migrator": "kubestorageversionmigrator.operator.openshift.io",
	"csi-snapshot-controller":       "csisnapshotcontroller.operator.openshift.io",
}

// upgradeable reports every Upgradeable=False of ClusterVersion and the
// ClusterOperators, with its reason classified and the experts' remedy.
func (a *analysis) upgradeable() {
	s := a.s
	effect, class, sev := a.gateEffect()
	for i := range s.ClusterOperators {
		co := &s.ClusterOperators[i]
		c := co.Condition(configv1.OperatorUpgradeable)
		if c == nil || c.Status != configv1.ConditionFalse {
			continue
		}
		subject := "clusteroperator/" + co.Name
		uc := ClassifyUpgradeable(c.Reason)
		remedy := upgradeableRemedy[uc]
		if cfg := operatorConfig[co.Name]; uc == UpgradeClassUnsupportedConfig && cfg != "" {
			remedy += ": `" + nextcmd.MergePatch(cfg+"/"+openshift.SingletonName, "", `{"spec":{"unsupportedConfigOverrides":null}}`) + "`"
		}
		a.add(Finding{Code: CodeUpgradeableFalse, Severity: sev, Class: class, Subject: subject,
			Message: fmt.Sprintf("%s says Upgradeable=False (%s): %s. %s To resolve: %s.", co.Name, firstNonEmpty(c.Reason, "no reason"), truncate(oneLine(c.Message), 240), effect, remedy),
			Evidence: []Evidence{
				claim(fmt.Sprintf("Upgradeable=False reason %s since %s: %s", c.Reason, c.LastTransitionTime.UTC().Format(time.RFC3339), oneLine(c.Message)), subject+" status.conditions"),
				rule(upgradeableRule),
			},
			Details: map[string]string{"reason": c.Reason, "class": uc}})
	}
	if s.ClusterVersion == nil {
		return
	}
	c := cvCondition(s.ClusterVersion, configv1.OperatorUpgradeable)
	if c == nil || c.Status != configv1.ConditionFalse {
		return
	}
	items := parseUpgradeableItems(c.Message)
	var classes []string
	var operators []string
	for _, it := range items {
		classes = append(classes, ClassifyUpgradeable(it.Reason))
		operators = append(operators, it.Operator)
	}
	if rest, ok := strings.CutPrefix(c.Message, "Cluster should not be upgraded between minor or major versions for multiple reasons: "); ok {
		line, _, _ := strings.Cut(rest, "\n")
		for _, r := range strings.Split(line, ",") {
			if r = strings.TrimSpace(r); r != "" && r != openshift.ReasonClusterOperatorsNotUpgradable {
				classes = append(classes, ClassifyUpgradeable(r))
			}
		}
	}
	uc := ClassifyUpgradeable(c.Reason)
	if c.Reason == openshift.ReasonClusterOperatorsNotUpgradable || c.Reason == "MultipleReasons" || len(items) > 0 {
		uc = commonClass(classes)
	}
	what := truncate(oneLine(c.Message), 240)
	if len(items) > 0 {
		var parts []string
		for _, it := range items {
			parts = append(parts, fmt.Sprintf("%s (%s)", it.Operator, it.Reason))
		}
		what = "because of " + strings.Join(parts, ", ")
	}
	d := map[string]string{"reason": c.Reason, "class": uc}
	if len(operators) > 0 {
		sort.Strings(operators)
		d["operators"] = strings.Join(operators, ",")
	}
	a.add(Finding{Code: CodeUpgradeableFalse, Severity: sev, Class: class, Subject: cvSubject,
		Message: fmt.Sprintf("ClusterVersion says Upgradeable=False (%s) %s. %s To resolve: %s.", firstNonEmpty(c.Reason, "no reason"), what, effect, upgradeableRemedy[uc]),
		Evidence: []Evidence{
			claim(fmt.Sprintf("Upgradeable=False reason %s since %s: %s", c.Reason, c.LastTransitionTime.UTC().Format(time.RFC3339), oneLine(c.Message)), cvSubject+" status.conditions"),
			rule(upgradeableRule),
		},
		Details: d})
}

// commonClass returns the class all of classes share, else UpgradeClassOther.
func commonClass(classes []string) string {
	if len(classes) == 0 {
		return UpgradeClassOther
	}
	for _, c := range classes[1:] {
		if c != classes[0] {
			return UpgradeClassOther
		}
	}
	return classes[0]
}

// adminGates reports the admin gates that apply to updates away from the current
// minor and that the admin has not acknowledged (W10). Both ConfigMaps' namespaces
// must have been read: a missing acknowledgement is a fact only then.
func (a *analysis) adminGates() {
	s := a.s
	g := s.AdminGates
	if g == nil || s.ClusterVersion == nil ||
		!s.collectedIn(keyConfigMaps, openshift.AdminGatesNamespace) || !s.collectedIn(keyConfigMaps, openshift.AdminAcksNamespace) {
		return
	}
	cur := minorOf(s.CurrentVersion())
	if cur == "" {
		return
	}
	effect, class, sev := a.gateEffect()
	for _, key := range sortedKeys(g.Gates) {
		if gateMajorMinor(key) != cur {
			continue
		}
		ack, acked := g.Acks[key]
		if ack == "true" {
			continue
		}
		ackState := "openshift-config/admin-acks has no key " + key
		switch {
		case g.Acks == nil:
			ackState = "openshift-config/admin-acks does not exist"
		case acked:
			ackState = fmt.Sprintf("openshift-config/admin-acks has %s=%q, not \"true\"", key, ack)
		}
		ev := []Evidence{
			claim(fmt.Sprintf("gate %s: %s", key, oneLine(g.Gates[key])), "configmap "+openshift.AdminGatesNamespace+"/"+openshift.AdminGatesConfigMap),
			reality(ackState, "configmap "+openshift.AdminAcksNamespace+"/"+openshift.AdminAcksConfigMap),
		}
		removed := a.removedFor(key)
		var names []string
		for _, r := range removed {
			names = append(names, r.Name)
			ev = append(ev, reality(fmt.Sprintf("%s is removed in %s and was requested %d times in the last 24 hours", r.Name, r.RemovedInRelease, r.RequestCount), "apirequestcount/"+r.Name+" status"))
		}
		ev = append(ev, rule(fmt.Sprintf("the CVO holds Upgradeable=False (AdminAckRequired) until admin-acks data[%q] is \"true\" for a gate whose minor is the current one, %s (cluster-version-operator pkg/cvo/upgradeable.go)", key, cur)))
		apis := ""
		switch {
		case len(names) > 0:
			apis = fmt.Sprintf(" Clients still call %d API(s) it removes: %s.", len(names), capNames(names, 5))
		case s.collectedIn(keyAPIRequestCount, ""):
			apis = " No client called an API the next release removes in the last 24 hours."
		}
		a.add(Finding{Code: CodeAdminAckRequired, Severity: sev, Class: class, Subject: "admingate/" + key,
			Message: fmt.Sprintf("Admin gate %s applies to updates away from %s and is not acknowledged: %s%s %s Acknowledge it in openshift-config/admin-acks once the clients are moved.",
				key, cur, truncate(oneLine(g.Gates[key]), 240), apis, effect),
			Evidence: ev, Details: map[string]string{"gate": key, "minor": cur}})
	}
}

// removedFor returns the APIs still requested that the release a gate key names
// removes: the Kubernetes version in the key ("kube-1.32"), else the next minor's.
func (a *analysis) removedFor(key string) []APIRequestCount {
	kube := ""
	if m := gateKubeRE.FindStringSubmatch(key); m != nil {
		kube = m[1]
	} else if v, err := ParseVersion(a.s.nextMinor() + ".0"); err == nil {
		kube = fmt.Sprintf("1.%d", KubeMinorForOpenShift(v.Minor))
	}
	var out []APIRequestCount
	for _, r := range a.s.APIRequestCounts {
		if r.RemovedInRelease == kube && (r.RequestCount > 0 || r.CurrentHour > 0) {
			out = append(out, r)
		}
	}
	return out
}

// removedAPIs reports the APIs a coming release removes that clients still call.
// It blocks when the update requested goes to (or past) the release that removes
// them.
func (a *analysis) removedAPIs() {
	s := a.s
	if !s.collectedIn(keyAPIRequestCount, "") {
		return
	}
	target := ""
	if s.ClusterVersion != nil && a.minorStep() {
		target = firstNonEmpty(s.DesiredRelease().Version, s.ClusterVersion.Status.Desired.Version)
	}
	for _, r := range s.APIRequestCounts {
		if r.RequestCount == 0 && r.CurrentHour == 0 {
			continue
		}
		release := r.RemovedInRelease
		if k, err := ParseVersion(r.RemovedInRelease + ".0"); err == nil && k.Major == 1 {
			if m := OpenShiftMinorForKube(k.Minor); m > 0 {
				release = fmt.Sprintf("Kubernetes %s (OpenShift 4.%d)", r.RemovedInRelease, m)
			}
		}
		class := ClassInforms
		if t, err := ParseVersion(target); err == nil {
			if k, err := ParseVersion(r.RemovedInRelease + ".0"); err == nil && t.Major == 4 && KubeMinorForOpenShift(t.Minor) >= k.Minor {
				class = ClassBlocks
			}
		}
		subject := "apirequestcount/" + r.Name
		a.add(Finding{Code: CodeRemovedAPIInUse, Severity: SeverityWarning, Class: class, Subject: subject,
			Message: fmt.Sprintf("%s is removed in %s and was requested %d times in the last 24 hours (%d this hour): move its clients to the replacement API before that update; `oc get apirequestcount %s -o yaml` names them (W10).",
				r.Name, release, r.RequestCount, r.CurrentHour, r.Name),
			Evidence: []Evidence{
				reality(fmt.Sprintf("removedInRelease %s, requestCount %d, currentHour %d", r.RemovedInRelease, r.RequestCount, r.CurrentHour), subject+" status"),
				rule("a removed API answers 404 after the update; the admin gate of the release before it asks the admin to confirm its clients moved (CVO#647)"),
			},
			Details: map[string]string{"removedInRelease": r.RemovedInRelease, "requests": strconv.FormatInt(r.RequestCount, 10)}})
	}
}
