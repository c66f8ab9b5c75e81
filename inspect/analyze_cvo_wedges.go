package inspect

import (
	"fmt"
	"sort"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/internal/openshift"
)

// releaseAccepted reports ReleaseAccepted=False: the CVO could not retrieve,
// verify or precondition-check the release it was asked for (W9).
func (a *analysis) releaseAccepted() {
	cv := a.s.ClusterVersion
	if cv == nil {
		return
	}
	c := ReleaseNotAccepted(cv.Status.Conditions)
	if c == nil {
		return
	}
	class := ClassifyReleaseAccepted(c.Reason, c.Message)
	version, image := "", ""
	if m := releaseOfMessage.FindStringSubmatch(c.Message); m != nil {
		version, image = m[1], m[2]
	} else if u := cv.Spec.DesiredUpdate; u != nil {
		version, image = u.Version, u.Image
	}
	a.add(Finding{Code: CodeReleaseNotAccepted, Severity: SeverityError, Class: ClassBlocks, Subject: cvSubject,
		Message: fmt.Sprintf("The CVO has not accepted release %s (%s, %s): %s. To resolve: %s.",
			firstNonEmpty(version, image, "requested"), c.Reason, class, truncate(oneLine(c.Message), 300), releaseRemedy[class]),
		Evidence: []Evidence{
			claim(fmt.Sprintf("ReleaseAccepted=False reason %s since %s: %s", c.Reason, c.LastTransitionTime.UTC().Format(time.RFC3339), oneLine(c.Message)), cvSubject+" status.conditions"),
			rule("the reason is the step of loading the payload that failed: RetrievePayload, LoadPayload, VerifyPayloadVersion or PreconditionChecks (cluster-version-operator pkg/cvo/sync_worker.go); the CVO keeps reconciling the current release meanwhile"),
		},
		Details: map[string]string{"reason": c.Reason, "class": class, "version": version, "image": image}})
}

// webhookDown reports whether a webhook refuses what it intercepts: its failure
// policy is Fail (the API default) and the service it calls has no ready endpoint.
// Unknown endpoints (-1) and webhooks called by URL say nothing.
func webhookDown(w Webhook) bool {
	return w.Service != "" && w.ReadyEndpoints == 0 && (w.FailurePolicy == "" || w.FailurePolicy == "Fail")
}

func webhookSubject(w Webhook) string {
	return strings.ToLower(w.Kind) + "webhookconfiguration/" + w.Configuration
}

// webhooks reports the webhook configurations whose webhooks call a service
// without ready endpoints with failure policy Fail: every write they intercept is
// refused (W1, W8).
func (a *analysis) webhooks() {
	s := a.s
	type group struct {
		first    Webhook
		names    []string
		services map[string]bool
		ev       []Evidence
	}
	groups := map[string]*group{}
	for _, w := range s.Webhooks {
		if !webhookDown(w) {
			continue
		}
		key := webhookSubject(w)
		g := groups[key]
		if g == nil {
			g = &group{first: w, services: map[string]bool{}}
			groups[key] = g
		}
		g.names = append(g.names, w.Name)
		g.services[w.Service] = true
		g.ev = append(g.ev,
			claim(fmt.Sprintf("webhook %s: failurePolicy %s, calls service %s, rules %s", w.Name, orNone(w.FailurePolicy), w.Service, orNone(strings.Join(w.Rules, "; "))), key+" webhooks"),
			reality(fmt.Sprintf("service %s has 0 ready endpoints", w.Service), "endpointslices of "+w.Service))
	}
	for _, key := range sortedKeys(groups) {
		g := groups[key]
		sort.Strings(g.names)
		services := sortedKeys(g.services)
		ev := append(g.ev, rule("with failurePolicy Fail the API server refuses a request it cannot get a webhook's answer for (kubernetes admission webhooks); a refused eviction holds a drain, a refused write holds the CVO (runbook MachineConfigControllerDrainError, hypershift#2227)"))
		a.add(Finding{Code: CodeWebhookUnavailable, Severity: SeverityError, Class: ClassBlocks, Subject: key,
			Message: fmt.Sprintf("%s webhook configuration %s calls %s, which has no ready endpoints, with failurePolicy Fail: every request its webhooks (%s) intercept is refused. Bring the service's pods back, or back up and delete the configuration (runbook MachineConfigControllerDrainError, W1).",
				g.first.Kind, g.first.Configuration, strings.Join(services, ", "), strings.Join(g.names, ", ")),
			Evidence: ev,
			Details: map[string]string{"configuration": g.first.Configuration, "webhook": strings.Join(g.names, ","),
				"service": strings.Join(services, ","), "failurePolicy": firstNonEmpty(g.first.FailurePolicy, "Fail")}})
	}
}

// stuckManifests reports each manifest the CVO cannot apply, from ClusterVersion
// Failing (and Progressing) messages, with the webhooks and admission policies
// that refuse it (W8).
func (a *analysis) stuckManifests() {
	s := a.s
	cv := s.ClusterVersion
	if cv == nil {
		return
	}
	failing := cvCondition(cv, openshift.ConditionFailing)
	progressing := cvCondition(cv, configv1.OperatorProgressing)
	var progress cvoProgress
	var hasProgress bool
	if progressing != nil {
		progress, hasProgress = parseProgress(progressing.Message)
	}
	var sources []*configv1.ClusterOperatorStatusCondition
	if failing != nil && failing.Status == configv1.ConditionTrue {
		sources = append(sources, failing)
	}
	if progressing != nil && strings.HasPrefix(progressing.Message, "Unable to apply ") {
		sources = append(sources, progressing)
	}
	seen := map[string]bool{}
	for _, c := range sources {
		errs := parseManifestErrors(c.Message)
		if len(errs) == 0 && c == failing && manifestFailingReasons[c.Reason] && c.Reason != "MultipleErrors" {
			errs = []manifestError{{Cause: oneLine(c.Message)}}
		}
		for _, e := range errs {
			subject := cvSubject
			if e.Name != "" {
				subject = e.Subject()
			}
			if seen[subject] {
				continue
			}
			seen[subject] = true
			a.stuckManifest(c, e, subject, progress, hasProgress)
		}
	}
}

func (a *analysis) stuckManifest(c *configv1.ClusterOperatorStatusCondition, e manifestError, subject string, progress cvoProgress, hasProgress bool) {
	done, total := e.Index, e.Total
	if total == 0 && hasProgress {
		done, total = progress.Done, progress.Total
	}
	blockers, bev := a.blockersOf(e)
	object := e.Object()
	if e.Name == "" {
		object = ""
	}
	ev := []Evidence{claim(fmt.Sprintf("%s=%s reason %s: %s", c.Type, c.Status, c.Reason, oneLine(c.Message)), cvSubject+" status.conditions")}
	if hasProgress {
		ev = append(ev, claim(fmt.Sprintf("working towards %s: %d of %d done (%d%%)", progress.Target, progress.Done, progress.Total, progress.Percent), cvSubject+" status.conditions Progressing"))
	}
	ev = append(ev, bev...)
	ev = append(ev, rule("the CVO applies the release's manifests in order and retries one it cannot apply; in Updating mode the manifests after it wait (cluster-version-operator pkg/payload/task.go, pkg/cvo/sync_worker.go)"))
	where := "a manifest"
	if object != "" {
		where = object
	}
	if total > 0 {
		where += fmt.Sprintf(" (manifest %d of %d)", done, total)
	}
	msg := fmt.Sprintf("The CVO cannot apply %s: %s", where, firstNonEmpty(truncate(e.Cause, 240), c.Reason))
	if len(blockers) > 0 {
		msg += fmt.Sprintf(". It is refused by %s; fix or remove that and the CVO retries on its own (W8).", strings.Join(blockers, ", "))
	} else {
		msg += ". Fix what the cause names (a missing CRD or API service, an invalid object, a webhook or policy) and the CVO retries on its own (W8)."
	}
	a.add(Finding{Code: CodeCVOStuckOnManifest, Severity: SeverityError, Class: ClassBlocks, Subject: subject, Message: msg, Evidence: ev,
		Details: map[string]string{"object": object, "done": itoaNonZero(done), "total": itoaNonZero(total), "reason": c.Reason,
			"cause": e.Cause, "blockers": strings.Join(blockers, ",")}})
}

func itoaNonZero(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprint(n)
}

// blockersOf returns the webhooks and admission policies that refuse a manifest:
// those the error names, else the unavailable Fail webhooks whose rules cover its
// resource, and the policies with a Deny binding whose rules do.
func (a *analysis) blockersOf(e manifestError) ([]string, []Evidence) {
	s := a.s
	set := map[string]bool{}
	var ev []Evidence
	named := map[string]bool{}
	for _, m := range webhookInCause.FindAllStringSubmatch(e.Cause, -1) {
		named[m[1]] = true
	}
	for _, w := range s.Webhooks {
		key := webhookSubject(w)
		switch {
		case named[w.Name]:
			set[key] = true
			ev = append(ev, reality(fmt.Sprintf("the error names webhook %s of %s (service %s, %d ready endpoints)", w.Name, key, orNone(w.Service), w.ReadyEndpoints), key))
		case e.Kind != "" && webhookDown(w) && rulesCover(w.Rules, e.Kind):
			set[key] = true
			ev = append(ev, reality(fmt.Sprintf("webhook %s of %s intercepts %s and calls %s, which has no ready endpoints (failurePolicy Fail)", w.Name, key, plural(e.Kind), w.Service), key))
		}
	}
	for _, m := range policyInCause.FindAllStringSubmatch(e.Cause, -1) {
		key := "validatingadmissionpolicy/" + m[1]
		set[key] = true
		ev = append(ev, reality("the error names ValidatingAdmissionPolicy "+m[1], key))
	}
	if e.Kind != "" {
		for _, p := range s.AdmissionPolicies {
			key := "validatingadmissionpolicy/" + p.Name
			if set[key] || !rulesCover(p.Rules, e.Kind) || !denies(p.Bindings) {
				continue
			}
			set[key] = true
			ev = append(ev, reality(fmt.Sprintf("ValidatingAdmissionPolicy %s covers %s with a Deny binding (%s)", p.Name, plural(e.Kind), strings.Join(p.Bindings, "; ")), key))
		}
	}
	return sortedKeys(set), ev
}

// rulesCover reports whether admission rules ("<ops> <group/version> <resources>")
// cover updates of the kind's resource.
func rulesCover(rules []string, kind string) bool {
	res := plural(kind)
	for _, r := range rules {
		f := strings.Fields(r)
		if len(f) < 3 {
			continue
		}
		if !strings.Contains(f[0], "UPDATE") && !strings.Contains(f[0], "CREATE") && !strings.Contains(f[0], "*") {
			continue
		}
		for _, name := range strings.Split(f[2], ",") {
			if name == "*" || name == res || strings.HasPrefix(name, res+"/") {
				return true
			}
		}
	}
	return false
}

func denies(bindings []string) bool {
	for _, b := range bindings {
		if strings.Contains(b, "Deny") {
			return true
		}
	}
	return false
}

// plural returns the resource name of a lowercase kind (deployment -> deployments).
func plural(kind string) string {
	switch {
	case strings.HasSuffix(kind, "s"):
		return kind + "es"
	case strings.HasSuffix(kind, "y"):
		return strings.TrimSuffix(kind, "y") + "ies"
	}
	return kind + "s"
}

// conditionalRisks reports a conditional-update risk on the release the cluster
// updates to (W14): the conditionalUpdates entry of the target with
// Recommended=False, and the risks the CVO recorded as accepted in history[0].
func (a *analysis) conditionalRisks() {
	s := a.s
	cv := s.ClusterVersion
	if cv == nil {
		return
	}
	target := s.DesiredRelease()
	if target.Version == "" && target.Image == "" {
		return
	}
	if h := cv.Status.History; len(h) > 0 && h[0].State == configv1.CompletedUpdate && (h[0].Image == target.Image || h[0].Version == target.Version) {
		return // the cluster is at it: there is no update in flight
	}
	for _, cu := range cv.Status.ConditionalUpdates {
		if !(cu.Release.Version != "" && cu.Release.Version == target.Version) && !(cu.Release.Image != "" && cu.Release.Image == target.Image) {
			continue
		}
		rec := conditionOf(cu.Conditions, openshift.ConditionRecommended)
		if rec == nil || rec.Status != metav1.ConditionFalse {
			continue
		}
		var names []string
		ev := []Evidence{claim(fmt.Sprintf("Recommended=False reason %s: %s", rec.Reason, oneLine(rec.Message)), cvSubject+" status.conditionalUpdates["+cu.Release.Version+"]")}
		// The risks that apply (a cluster with the 2026 update API says which
		// in status.conditionalUpdateRisks; an older one recommends against all).
		risks, _ := s.ReleaseRisks(cu.Release.Version, cu.Release.Image)
		var shown []UpdateRisk
		for _, r := range risks {
			if !r.Exposes(false) {
				continue
			}
			shown = append(shown, r)
			names = append(names, r.Name)
			ev = append(ev, claim(fmt.Sprintf("risk %s: %s (%s)", r.Name, oneLine(r.Message), r.URL), cvSubject+" status.conditionalUpdates["+cu.Release.Version+"].risks"))
		}
		if h := cv.Status.History; len(h) > 0 && h[0].AcceptedRisks != "" && (h[0].Version == cu.Release.Version || h[0].Image == cu.Release.Image) {
			ev = append(ev, claim("accepted risks: "+oneLine(h[0].AcceptedRisks), cvSubject+" status.history[0].acceptedRisks"))
		}
		ev = append(ev, rule("a conditional risk whose matching rules apply makes the update Recommended=False; the CVO still applies a target the admin requested anyway, and no condition re-flags it once accepted (enhancements targeted-update-edge-blocking; cluster-version-operator pkg/cvo/availableupdates.go)"))
		first := ""
		if len(shown) > 0 {
			first = fmt.Sprintf(" %s: %s (%s).", shown[0].Name, truncate(oneLine(shown[0].Message), 200), shown[0].URL)
		}
		a.add(Finding{Code: CodeConditionalRiskOnTarget, Severity: SeverityWarning, Class: ClassBlocks, Subject: cvSubject,
			Message: fmt.Sprintf("The release the cluster updates to, %s, is not recommended for it: %d risk(s) apply (%s).%s Read each impact statement; retarget to a z-stream that fixes it, or wait (W14).",
				firstNonEmpty(cu.Release.Version, cu.Release.Image), len(names), strings.Join(names, ", "), first),
			Evidence: ev,
			Details:  map[string]string{"target": cu.Release.Version, "image": cu.Release.Image, "risks": strings.Join(names, ",")}})
		return
	}
}

func conditionOf(cs []metav1.Condition, t string) *metav1.Condition {
	for i := range cs {
		if cs[i].Type == t {
			return &cs[i]
		}
	}
	return nil
}

// previousUpdate reports what oc adm upgrade status calls "Previous update to X
// never completed": an update in progress whose predecessor in history is Partial
// too (oc pkg/cli/admin/upgrade/status controlplane.go).
func (a *analysis) previousUpdate() {
	cv := a.s.ClusterVersion
	if cv == nil || len(cv.Status.History) < 2 {
		return
	}
	h := cv.Status.History
	if h[0].State != configv1.PartialUpdate || h[1].State != configv1.PartialUpdate {
		return
	}
	last := "unknown"
	for _, e := range h[2:] {
		if e.State == configv1.CompletedUpdate {
			last = e.Version
			break
		}
	}
	a.add(Finding{Code: CodePreviousUpdateIncomplete, Severity: SeverityWarning, Class: ClassInforms, Subject: cvSubject,
		Message: fmt.Sprintf("Previous update to %s never completed, last complete update was %s: the update to %s started while it was still in progress, so components may still be at either.", h[1].Version, last, h[0].Version),
		Evidence: []Evidence{
			claim(fmt.Sprintf("history[0] Partial %s, history[1] Partial %s, last Completed %s", h[0].Version, h[1].Version, last), cvSubject+" status.history"),
		},
		Details: map[string]string{"previous": h[1].Version, "lastCompleted": last, "target": h[0].Version}})
}
