package plan

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The admin's promises (W10). An admin gate acknowledged, ClusterVersion
// spec.overrides removed, the cloud credentials annotated as fit for the next
// minor: each says something only the admin can know (the removed APIs are no
// longer called, the unmanaged objects may be managed again, the credentials
// match the target's CredentialsRequests). recover makes the change only when
// the admin names it with --accept; otherwise the plan says what blocks and what
// to pass. Their effect is computed by the CVO (or the cloud-credential
// operator) once it runs, so each gets a condition-cleared wait after
// restore-cvo.

// clusterVersionRef is ClusterVersion/version.
var clusterVersionRef = planfile.ObjectRef{APIVersion: "config.openshift.io/v1", Kind: "ClusterVersion", Name: "version"}

// conditionCleared is a wait after restore-cvo for an Upgradeable=False reason
// to clear on an object.
func conditionCleared(remedy string, fd inspect.Finding, obj planfile.ObjectRef, reason, why string) planfile.Step {
	return planfile.Step{Action: planfile.ActionWait, Remedy: remedy, Finding: fd.Code,
		Reason: why,
		Gate: &planfile.Gate{Kind: planfile.GateConditionCleared, Object: &obj, Condition: "Upgradeable", Reason: reason,
			Description: fmt.Sprintf("%s %s no longer reports Upgradeable=False with reason %s", obj.Kind, obj.Name, reason)}}
}

// adminAcks plans one acknowledgement per accepted gate and a single wait for
// the CVO to clear AdminAckRequired; unaccepted gates are refused.
func (rs *remedyStage) adminAcks(fds []inspect.Finding) {
	g := &remedyGroup{phase: phasePromises}
	var keys []string
	for _, fd := range fds {
		key := fd.Details["gate"]
		if key == "" {
			key = strings.TrimPrefix(fd.Subject, "admingate/")
		}
		accept := planfile.AcceptAdminAck + key
		desc := ""
		if ag := rs.s.AdminGates; ag != nil {
			desc = oneLine(ag.Gates[key])
		}
		if !rs.accept.has(accept) {
			rs.refuse(fd, planfile.RemedyAdminAck, "", accept, fmt.Sprintf("admin gate %s is not acknowledged%s; acknowledging it is the admin's promise that they checked it (for API removals: no client still calls a removed API, see oc get apirequestcounts), so recover does it only with --accept %s", key, descSuffix(desc), accept))
			continue
		}
		uid, before := "", any(nil)
		if ag := rs.s.AdminGates; ag != nil {
			uid = ag.AcksUID
			if v, ok := ag.Acks[key]; ok {
				before = v
			}
		}
		ref := planfile.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: openshift.AdminAcksNamespace, Name: openshift.AdminAcksConfigMap}
		g.steps = append(g.steps, planfile.Step{Action: planfile.ActionAcknowledgeGate, Remedy: planfile.RemedyAdminAck, Finding: fd.Code,
			Change: planfile.NewChange(ref, uid, planfile.Field{Path: []string{"data", key}, After: "true", Before: before}),
			Reason: fmt.Sprintf("Acknowledge admin gate %s%s: set data[%q] to \"true\" in %s/%s, which is what the CVO reads as the admin's acknowledgement (pkg/cvo/upgradeable.go; any other value is not an ack). Accepted with --accept %s. The CVO re-evaluates the gate once it runs again, so the wait for Upgradeable to clear comes after restore-cvo.",
				key, descSuffix(desc), key, openshift.AdminAcksNamespace, openshift.AdminAcksConfigMap, accept)})
		r := remediation(planfile.RemedyAdminAck, fd, fmt.Sprintf("Acknowledge admin gate %s in %s/%s.", key, openshift.AdminAcksNamespace, openshift.AdminAcksConfigMap))
		r.Accepted = accept
		g.rems = append(g.rems, remRef{r: r, pre: []int{len(g.steps) - 1}, posts: []int{0}})
		keys = append(keys, key)
	}
	if len(g.steps) == 0 {
		return
	}
	g.post = append(g.post, conditionCleared(planfile.RemedyAdminAck, fds[0], clusterVersionRef, openshift.ReasonAdminAckRequired,
		fmt.Sprintf("Wait for the restored CVO to re-evaluate the admin gates: with %s acknowledged, ClusterVersion must no longer say Upgradeable=False for AdminAckRequired.", strings.Join(keys, ", "))))
	rs.groups = append(rs.groups, g)
}

func descSuffix(desc string) string {
	if desc == "" {
		return ""
	}
	return " (" + strings.TrimSuffix(desc, ".") + ")"
}

// removeOverrides plans the removal of ClusterVersion spec.overrides.
func (rs *remedyStage) removeOverrides(fd inspect.Finding) {
	cv := rs.s.ClusterVersion
	if cv == nil || len(cv.Spec.Overrides) == 0 {
		rs.warnf("%s on %s, but the snapshot's ClusterVersion has no spec.overrides: nothing to remove", fd.Code, fd.Subject)
		return
	}
	var objs []string
	for _, o := range cv.Spec.Overrides {
		if o.Unmanaged {
			objs = append(objs, fmt.Sprintf("%s %s", o.Kind, planfile.Qualified(o.Namespace, o.Name)))
		}
	}
	hand := fmt.Sprintf("the CVO then manages %s again and puts back the release's manifests over whatever was changed in them by hand", orWord(planfile.CapList(objs, 4), "the overridden objects"))
	if !rs.accept.has(planfile.AcceptRemoveOverrides) {
		rs.refuse(fd, planfile.RemedyRemoveOverrides, "", planfile.AcceptRemoveOverrides, fmt.Sprintf("ClusterVersion spec.overrides blocks minor updates (ClusterVersionOverridesSet); removing it is the admin's promise that %s is fine, so recover does it only with --accept %s", hand, planfile.AcceptRemoveOverrides))
		return
	}
	var before any
	_ = json.Unmarshal(planfile.MustJSON(cv.Spec.Overrides), &before)
	st := planfile.Step{Action: planfile.ActionRemoveOverrides, Remedy: planfile.RemedyRemoveOverrides, Finding: fd.Code,
		Change: planfile.NewChange(clusterVersionRef, cv.UID, planfile.Field{Path: []string{"spec", "overrides"}, After: nil, Before: before}),
		Reason: fmt.Sprintf("Remove ClusterVersion spec.overrides (%d entries): \"Disabling ownership via cluster version overrides prevents upgrades between minor or major versions. Please remove overrides before requesting a minor or major version update\" (CVO, ClusterVersionOverridesSet). Careful: %s; the pre-image is journaled, but what the CVO overwrites is not. Accepted with --accept %s.",
			len(cv.Spec.Overrides), hand, planfile.AcceptRemoveOverrides)}
	r := remediation(planfile.RemedyRemoveOverrides, fd, fmt.Sprintf("Remove ClusterVersion spec.overrides (%d entries); the CVO manages those objects again.", len(cv.Spec.Overrides)))
	r.Accepted = planfile.AcceptRemoveOverrides
	rs.groups = append(rs.groups, &remedyGroup{phase: phasePromises, steps: []planfile.Step{st},
		post: []planfile.Step{conditionCleared(planfile.RemedyRemoveOverrides, fd, clusterVersionRef, overridesReason(fd),
			"Wait for the restored CVO to see that spec.overrides is gone: ClusterVersion must no longer say Upgradeable=False for ClusterVersionOverridesSet.")},
		rems: []remRef{{r: r, pre: []int{0}, posts: []int{0}}}})
}

// nextMinor is the major.minor after the cluster's desired release ("" unknown).
func (rs *remedyStage) nextMinor() string {
	if rs.s.ClusterVersion == nil {
		return ""
	}
	v, err := inspect.ParseVersion(rs.s.ClusterVersion.Status.Desired.Version)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d.%d", v.Major, v.Minor+1)
}

// upgradeableTo plans the cloud-credential annotation for the next minor.
func (rs *remedyStage) upgradeableTo(fd inspect.Finding) {
	next := rs.nextMinor()
	if next == "" {
		rs.warnf("%s on %s: the cluster's version is unknown, so the upgradeable-to value cannot be chosen", fd.Code, fd.Subject)
		return
	}
	accept := planfile.AcceptUpgradeableTo + next
	if !rs.accept.has(accept) {
		for _, a := range rs.accept {
			if strings.HasPrefix(a, planfile.AcceptUpgradeableTo) {
				rs.warnf("--accept %s does not match: the cloud-credential operator needs an upgradeable-to greater than the cluster's minor, the next minor %s", a, next)
			}
		}
		rs.refuse(fd, planfile.RemedyUpgradeableTo, "", accept, fmt.Sprintf("the cloud credentials are managed manually and not annotated as fit for %s (MissingUpgradeableAnnotation); the annotation is the admin's promise that the credentials match %s's CredentialsRequests (update them first, e.g. with ccoctl), so recover sets it only with --accept %s", next, next, accept))
		return
	}
	uid, before := "", any(nil)
	if cc := rs.s.CloudCredential; cc != nil {
		uid = cc.UID
		before = planfile.OrNil(cc.UpgradeableTo)
	}
	ref := planfile.ObjectRef{APIVersion: "operator.openshift.io/v1", Kind: "CloudCredential", Name: "cluster"}
	st := planfile.Step{Action: planfile.ActionAnnotateUpgradeableTo, Remedy: planfile.RemedyUpgradeableTo, Finding: fd.Code,
		Change: planfile.NewChange(ref, uid, planfile.Field{Path: []string{"metadata", "annotations", openshift.AnnotationUpgradeableTo}, After: next, Before: before}),
		Reason: fmt.Sprintf("Annotate cloudcredentials.operator.openshift.io/cluster with %s=%s: in Manual mode the cloud-credential operator says Upgradeable=False (MissingUpgradeableAnnotation) until the admin promises, with this annotation, that the credentials fit the next minor (\"Manually creating IAM\" docs; CCO#286). Accepted with --accept %s.", openshift.AnnotationUpgradeableTo, next, accept)}
	r := remediation(planfile.RemedyUpgradeableTo, fd, fmt.Sprintf("Annotate the cloud credentials upgradeable-to %s.", next))
	r.Accepted = accept
	co := planfile.ObjectRef{APIVersion: "config.openshift.io/v1", Kind: "ClusterOperator", Name: openshift.CloudCredentialOperator}
	rs.groups = append(rs.groups, &remedyGroup{phase: phasePromises, steps: []planfile.Step{st},
		post: []planfile.Step{conditionCleared(planfile.RemedyUpgradeableTo, fd, co, orWord(fd.Details["reason"], openshift.ReasonMissingUpgradeableAnnotation),
			"Wait for the cloud-credential operator to see the annotation: its ClusterOperator must no longer say Upgradeable=False for MissingUpgradeableAnnotation (the CVO then lifts ClusterVersion's).")},
		rems: []remRef{{r: r, pre: []int{0}, posts: []int{0}}}})
}

// overridesReason is the Upgradeable reason the overrides show: the finding's,
// when it is ClusterVersion's own, else the CVO's ClusterVersionOverridesSet.
func overridesReason(fd inspect.Finding) string {
	if r := fd.Details["reason"]; r != "" && fd.Subject == "clusterversion/version" {
		return r
	}
	return openshift.ReasonClusterVersionOverrides
}
