package inspect

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/internal/nextcmd"
	"github.com/openshift-recover/recover/internal/openshift"
)

// The 2026 update API (openshift/api config/v1 types_cluster_version.go, feature
// gates ClusterUpdateAcceptRisks and ClusterUpdatePreflight): ClusterVersion
// spec.desiredUpdate.acceptRisks names the risks the admin accepts (`oc adm
// upgrade accept`), status.conditionalUpdateRisks holds every conditional
// update's risks once, each with an Applies condition, and
// status.conditionalUpdates[].riskNames points into it; spec.desiredUpdate.mode
// Preflight asks the CVO to check a target without updating to it. Every field is
// optional: a cluster without the gates (or older than them) has none, and the
// readers here fall back to conditionalUpdates[].risks.

// UpdateRisk is one conditional-update risk of a release as the cluster reports
// it. Its Name is the one name of the risk everywhere: the update service's,
// `oc adm upgrade accept`'s, spec.desiredUpdate.acceptRisks' and recover's
// --accept.
type UpdateRisk struct {
	Name    string
	URL     string
	Message string
	// Applies is the risk's Applies condition status ("True", "False",
	// "Unknown"); "" when the cluster reports none (before the 2026 API).
	Applies string
	// AppliesReason and AppliesMessage are that condition's.
	AppliesReason  string
	AppliesMessage string
	// Accepted: the name is in spec.desiredUpdate.acceptRisks.
	Accepted bool
}

// Exposes reports whether the risk holds the update for this cluster unless it
// is accepted: it applies, or the CVO could not tell (Unknown, which the CVO
// treats as not recommended), or the cluster evaluated none and recommended
// against the release (recommended false).
func (r UpdateRisk) Exposes(recommended bool) bool {
	switch r.Applies {
	case string(metav1.ConditionTrue), string(metav1.ConditionUnknown):
		return true
	case string(metav1.ConditionFalse):
		return false
	}
	return !recommended
}

// AcceptedRisks returns the names in ClusterVersion spec.desiredUpdate.acceptRisks,
// in order (nil when the field is absent).
func (s *Snapshot) AcceptedRisks() []string {
	if s == nil || s.ClusterVersion == nil || s.ClusterVersion.Spec.DesiredUpdate == nil {
		return nil
	}
	var out []string
	for _, r := range s.ClusterVersion.Spec.DesiredUpdate.AcceptRisks {
		if r.Name != "" {
			out = append(out, r.Name)
		}
	}
	return out
}

// Preflight returns the release spec.desiredUpdate asks the CVO to check
// without updating to it (mode Preflight), or nil.
func (s *Snapshot) Preflight() *configv1.Update {
	if s == nil || s.ClusterVersion == nil {
		return nil
	}
	u := s.ClusterVersion.Spec.DesiredUpdate
	if u == nil || u.Mode != configv1.UpdateModePreflight {
		return nil
	}
	return u
}

// ConditionalUpdate returns the status.conditionalUpdates entry of a release,
// matched by version or image, or nil.
func (s *Snapshot) ConditionalUpdate(version, image string) *configv1.ConditionalUpdate {
	if s == nil || s.ClusterVersion == nil {
		return nil
	}
	for i, cu := range s.ClusterVersion.Status.ConditionalUpdates {
		if (version != "" && cu.Release.Version == version) || (image != "" && cu.Release.Image == image) {
			return &s.ClusterVersion.Status.ConditionalUpdates[i]
		}
	}
	return nil
}

// ReleaseRisks returns the conditional-update risks the cluster reports for a
// release (matched by version or image), sorted by name, and whether the entry
// is Recommended=True. A release the cluster does not list in
// status.conditionalUpdates has none. The risks are the entry's riskNames
// resolved in status.conditionalUpdateRisks (where the CVO keeps each risk's
// Applies condition, cluster-version-operator pkg/cvo/status.go
// conditionalUpdateRisks), else the entry's own risks.
func (s *Snapshot) ReleaseRisks(version, image string) (risks []UpdateRisk, recommended bool) {
	cu := s.ConditionalUpdate(version, image)
	if cu == nil {
		return nil, false
	}
	if c := conditionOf(cu.Conditions, openshift.ConditionRecommended); c != nil && c.Status == metav1.ConditionTrue {
		recommended = true
	}
	cv := s.ClusterVersion
	accepted := s.AcceptedRisks()
	byName := map[string]configv1.ConditionalUpdateRisk{}
	for _, r := range cu.Risks {
		byName[r.Name] = r
	}
	for _, r := range cv.Status.ConditionalUpdateRisks {
		if _, own := byName[r.Name]; own || slices.Contains(cu.RiskNames, r.Name) {
			byName[r.Name] = mergeRisk(byName[r.Name], r)
		}
	}
	for _, n := range cu.RiskNames {
		if _, ok := byName[n]; !ok {
			byName[n] = configv1.ConditionalUpdateRisk{Name: n}
		}
	}
	for _, r := range byName {
		ur := UpdateRisk{Name: r.Name, URL: r.URL, Message: r.Message, Accepted: slices.Contains(accepted, r.Name)}
		if c := conditionOf(r.Conditions, openshift.ConditionApplies); c != nil {
			ur.Applies, ur.AppliesReason, ur.AppliesMessage = string(c.Status), c.Reason, c.Message
		}
		risks = append(risks, ur)
	}
	sort.Slice(risks, func(i, j int) bool { return risks[i].Name < risks[j].Name })
	return risks, recommended
}

// mergeRisk fills what the entry's own risk lacks from status.conditionalUpdateRisks,
// whose Applies condition is the cluster's current evaluation.
func mergeRisk(own, top configv1.ConditionalUpdateRisk) configv1.ConditionalUpdateRisk {
	if own.Name == "" {
		return top
	}
	if own.URL == "" {
		own.URL = top.URL
	}
	if own.Message == "" {
		own.Message = top.Message
	}
	if len(top.Conditions) > 0 {
		own.Conditions = top.Conditions
	}
	return own
}

// riskNames returns the names of the risks that pass keep.
func riskNames(rs []UpdateRisk, keep func(UpdateRisk) bool) []string {
	var out []string
	for _, r := range rs {
		if keep(r) {
			out = append(out, r.Name)
		}
	}
	return out
}

// preflight reports what a Preflight of spec.desiredUpdate found: the
// conditionalUpdates entry the CVO writes for the target with its risks
// (openshift/api config/v1 Update.Mode: "Compatibility results, including any
// detected risks, are reported in status.conditionalUpdates and
// status.conditionalUpdateRisks alongside risks from the update recommendation
// service"), or that it has written none yet. The cluster-version-operator's
// main (2026-07, 6e719331) serves the field but implements no Preflight run yet,
// so a cluster may report nothing for a long time; the finding says so rather
// than guessing.
func (a *analysis) preflight() {
	u := a.s.Preflight()
	if u == nil {
		return
	}
	target := firstNonEmpty(u.Version, u.Image)
	if target == "" {
		return
	}
	cv := a.s.ClusterVersion
	ev := []Evidence{claim(fmt.Sprintf("spec.desiredUpdate mode Preflight, version %q, image %q", u.Version, u.Image), cvSubject+" spec.desiredUpdate")}
	details := map[string]string{"target": u.Version, "image": u.Image}
	cu := a.s.ConditionalUpdate(u.Version, u.Image)
	if cu == nil {
		recommended := false
		for _, r := range cv.Status.AvailableUpdates {
			if (u.Version != "" && r.Version == u.Version) || (u.Image != "" && r.Image == u.Image) {
				recommended = true
			}
		}
		msg := fmt.Sprintf("A preflight of %s is requested (spec.desiredUpdate mode Preflight) and the CVO reports no result for it: %s is in neither status.availableUpdates nor status.conditionalUpdates. A CVO that does not run preflights yet leaves it so; the cluster stays at %s either way.", target, target, firstNonEmpty(cv.Status.Desired.Version, cv.Status.Desired.Image, "its release"))
		details["result"] = "none"
		if recommended {
			msg = fmt.Sprintf("A preflight of %s (spec.desiredUpdate mode Preflight) found no risk: %s is a recommended update (status.availableUpdates) with no conditional-update entry.", target, target)
			details["result"] = "recommended"
			ev = append(ev, claim(target+" is in status.availableUpdates", cvSubject+" status.availableUpdates"))
		}
		a.add(Finding{Code: CodeUpdatePreflight, Severity: SeverityInfo, Class: ClassInforms, Subject: cvSubject, Message: msg, Evidence: ev, Details: details})
		return
	}
	risks, recommended := a.s.ReleaseRisks(u.Version, u.Image)
	exposed := riskNames(risks, func(r UpdateRisk) bool { return r.Exposes(recommended) && !r.Accepted })
	accepted := riskNames(risks, func(r UpdateRisk) bool { return r.Exposes(recommended) && r.Accepted })
	unknown := riskNames(risks, func(r UpdateRisk) bool { return r.Applies == string(metav1.ConditionUnknown) })
	clear := riskNames(risks, func(r UpdateRisk) bool { return !r.Exposes(recommended) })
	if rec := conditionOf(cu.Conditions, openshift.ConditionRecommended); rec != nil {
		ev = append(ev, claim(fmt.Sprintf("Recommended=%s reason %s: %s", rec.Status, rec.Reason, oneLine(rec.Message)), cvSubject+" status.conditionalUpdates["+target+"]"))
	}
	for _, r := range risks {
		applies := "no Applies condition"
		if r.Applies != "" {
			applies = "Applies=" + r.Applies
			if r.AppliesReason != "" {
				applies += " reason " + r.AppliesReason
			}
		}
		acc := ""
		if r.Accepted {
			acc = ", accepted in spec.desiredUpdate.acceptRisks"
		}
		ev = append(ev, claim(fmt.Sprintf("risk %s (%s%s): %s (%s)", r.Name, applies, acc, truncate(oneLine(r.Message), 200), r.URL), cvSubject+" status.conditionalUpdateRisks"))
	}
	ev = append(ev, rule("a conditional update proceeds only when each of its risks does not apply or is named in spec.desiredUpdate.acceptRisks; Applies=Unknown counts as applying (cluster-version-operator pkg/cvo/availableupdates.go evaluateConditionalUpdate)"))
	details["risks"] = strings.Join(exposed, ",")
	details["accepted"] = strings.Join(accepted, ",")
	details["unknown"] = strings.Join(unknown, ",")
	details["notApplying"] = strings.Join(clear, ",")
	sev, msg := SeverityInfo, ""
	switch {
	case len(exposed) > 0:
		sev = SeverityWarning
		details["result"] = "exposed"
		msg = fmt.Sprintf("A preflight of %s found %d risk(s) that apply to this cluster and are not accepted: %s. Read each impact statement; accept them with '%s' (or '%s'), or choose another target.",
			target, len(exposed), strings.Join(exposed, ", "), nextcmd.OCAcceptRisks(strings.Join(exposed, ",")), nextcmd.PlanAccepting(strings.Join(exposed, ",")))
	case len(accepted) > 0:
		details["result"] = "accepted"
		msg = fmt.Sprintf("A preflight of %s found only risks already accepted in spec.desiredUpdate.acceptRisks: %s.", target, strings.Join(accepted, ", "))
	default:
		details["result"] = "clear"
		msg = fmt.Sprintf("A preflight of %s found no risk that applies to this cluster (%d evaluated).", target, len(risks))
	}
	a.add(Finding{Code: CodeUpdatePreflight, Severity: sev, Class: ClassInforms, Subject: cvSubject, Message: msg, Evidence: ev, Details: details})
}

// nextUpdatePreflight: accept the risks the preflight found exposed, else plan.
func nextUpdatePreflight(_ *wedger, ms []Finding) string {
	if rs := ms[0].Details["risks"]; rs != "" {
		return nextcmd.PlanAccepting(rs)
	}
	return nextPlan
}
