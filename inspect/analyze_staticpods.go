package inspect

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/internal/openshift"
)

// rolloutStuck reports the nodes where a static-pod operator's revision keeps
// failing (W7): nodeStatuses lastFailedRevision at (or past) the target revision
// while the node still runs an older one. The installer controller retries with a
// backoff and no limit (library-go installer_controller.go), so nothing ends this
// but a fix and a new revision.
func (a *analysis) rolloutStuck() {
	s := a.s
	for i := range s.StaticPodOperators {
		op := &s.StaticPodOperators[i]
		if !op.Present {
			continue
		}
		crSubject := strings.ToLower(kindOf(op.Resource)) + "/cluster"
		var degraded *configv1.ClusterOperatorStatusCondition
		if co := s.ClusterOperator(op.ClusterOperator); co != nil {
			if c := co.Condition(configv1.OperatorDegraded); c != nil && c.Status == configv1.ConditionTrue && strings.Contains(c.Reason, openshift.ReasonNodeInstallerPodFailed) {
				degraded = c
			}
		}
		for _, ns := range op.NodeStatuses {
			target := ns.TargetRevision
			if target == 0 {
				target = op.LatestAvailableRevision
			}
			if ns.LastFailedRevision == 0 || ns.LastFailedRevision < target || ns.CurrentRevision >= ns.LastFailedRevision {
				continue
			}
			errs := strings.Join(ns.LastFailedRevisionErrors, "; ")
			ev := []Evidence{claim(fmt.Sprintf("nodeStatuses %s: currentRevision %d, targetRevision %d, lastFailedRevision %d (%s at %s), lastFailedCount %d, lastFallbackCount %d; latestAvailableRevision %d",
				ns.NodeName, ns.CurrentRevision, ns.TargetRevision, ns.LastFailedRevision, orNone(ns.LastFailedReason), metaTimeText(ns.LastFailedTime), ns.LastFailedCount, ns.LastFallbackCount, op.LatestAvailableRevision), crSubject+" status.nodeStatuses")}
			for _, e := range ns.LastFailedRevisionErrors {
				ev = append(ev, claim("error: "+oneLine(e), crSubject+" status.nodeStatuses lastFailedRevisionErrors"))
			}
			if degraded != nil {
				ev = append(ev, claim(fmt.Sprintf("Degraded=True reason %s: %s", degraded.Reason, oneLine(degraded.Message)), "clusteroperator/"+op.ClusterOperator+" status.conditions"))
			}
			ev = append(ev, rule("the installer retries a failed revision with a backoff (10s x 1.5^n up to 10 minutes; a fallback 10 minutes x 2^n up to 2 hours) and no limit; a new revision (forceRedeploymentReason) skips the backoff (library-go installer_controller.go)"))
			msg := fmt.Sprintf("%s: revision %d keeps failing on %s (%s, %d failure(s), %d fallback(s)) and the node stays at revision %d",
				op.Component, ns.LastFailedRevision, ns.NodeName, orNone(ns.LastFailedReason), ns.LastFailedCount, ns.LastFallbackCount, ns.CurrentRevision)
			if errs != "" {
				msg += ": " + truncate(oneLine(errs), 240)
			}
			msg += ". Fix the cause, then roll a new revision with forceRedeploymentReason (W7)."
			a.add(Finding{Code: CodeStaticPodRolloutStuck, Severity: SeverityError, Class: ClassBlocks, Subject: "node/" + ns.NodeName, Message: msg, Evidence: ev,
				Details: map[string]string{"component": op.Component, "node": ns.NodeName, "target": strconv.Itoa(int(target)),
					"lastFailed": strconv.Itoa(int(ns.LastFailedRevision)), "failedCount": strconv.Itoa(ns.LastFailedCount),
					"fallbackCount": strconv.Itoa(ns.LastFallbackCount), "reason": ns.LastFailedReason}})
		}
	}
}

func metaTimeText(t *metav1.Time) string {
	if t == nil || t.IsZero() {
		return "unknown time"
	}
	return t.UTC().Format(time.RFC3339)
}
