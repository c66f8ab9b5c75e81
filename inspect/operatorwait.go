package inspect

import (
	"fmt"
	"time"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift-recover/recover/internal/openshift"
)

// OperatorOutcome is the CVO's answer about a ClusterOperator it waits for
// before it moves past the operator's manifest.
type OperatorOutcome string

// The outcomes.
const (
	// OperatorDone: the CVO moves on.
	OperatorDone OperatorOutcome = "done"
	// OperatorWaiting: the CVO keeps waiting and reports progress (Progressing,
	// "slow" past its threshold), not a failure.
	OperatorWaiting OperatorOutcome = "wait"
	// OperatorFailing: the CVO reports the update failing (ClusterVersion
	// Failing=True) and retries; it does not move on either.
	OperatorFailing OperatorOutcome = "fail"
)

// The CVO's reasons (cluster-version-operator pkg/cvo/internal/operatorstatus.go
// checkOperatorHealth; pkg/payload UpdatePayloadResourceNotFound).
const (
	ReasonOperatorNotFound     = "UpdatePayloadResourceNotFound"
	ReasonOperatorNotAvailable = "ClusterOperatorNotAvailable"
	ReasonOperatorDegraded     = "ClusterOperatorDegraded"
	ReasonOperatorUpdating     = "ClusterOperatorUpdating"
	ReasonOperatorNoVersions   = "ClusterOperatorNoVersions"
)

// The CVO's clocks (cluster-version-operator pkg/cvo/status.go
// convertErrorToProgressingForUpdateEffectNone,
// convertErrorToProgressingForUpdateEffectFailAfterInterval), counted from when
// it started waiting on the operator.
const (
	// OperatorSlowAfter: an operator still updating is "longer than
	// expected" past this; the CVO keeps waiting.
	OperatorSlowAfter = 30 * time.Minute
	// MachineConfigSlowAfter is machine-config's threshold: it rolls every
	// node of the pools it waits for.
	MachineConfigSlowAfter = 90 * time.Minute
	// DegradedFailAfter: a Degraded operator is waited on this long, then
	// reported as failing.
	DegradedFailAfter = 40 * time.Minute
)

// SlowAfter is the CVO's "longer than expected" threshold for a ClusterOperator.
func SlowAfter(name string) time.Duration {
	if name == openshift.MachineConfigOperator {
		return MachineConfigSlowAfter
	}
	return OperatorSlowAfter
}

// OperatorWait is the CVO's verdict on a ClusterOperator at one moment: OK (in
// Verdict) exactly when the outcome is done, with what is pending otherwise.
type OperatorWait struct {
	Verdict
	Outcome OperatorOutcome `json:"outcome"`
	// Reason is the CVO's reason when not done.
	Reason string `json:"reason,omitempty"`
	// Slow: still updating past SlowAfter; the CVO says "longer than expected"
	// and keeps waiting.
	Slow bool `json:"slow,omitempty"`
}

// OperatorWaitFor is the one rule for "may the CVO move past this
// ClusterOperator", for a manifest declaring want, after waiting waited, in
// updating mode; name is the operator's (co may be nil: absent).
//
// With declared versions it is CVO main's checkOperatorHealth and its clocks:
// absent fails (UpdatePayloadResourceNotFound); Available not True fails
// (ClusterOperatorNotAvailable); Degraded not False (missing included: the CVO
// starts from degraded) waits until DegradedFailAfter, then fails; a declared
// operand whose FIRST status.versions entry of that name is not the declared
// version waits (ClusterOperatorUpdating), slow past SlowAfter; otherwise done.
// Both the 4.4 CVO and main take the first entry of a duplicated name, and an
// operand declared with version "" is done when it is not reported ("" equals
// ""), as in main.
//
// Without declared versions CVO main fails the manifest
// (ClusterOperatorNoVersions) and never moves on; recover is done where the 4.4
// CVO was (waitForOperatorStatusToBeDone): Available=True, Progressing=False and
// Degraded=False (a missing Degraded condition counts as degraded); until then
// it reports what main reports, failing with ClusterOperatorNoVersions
// (docs/apply.md lists the difference).
func OperatorWaitFor(co *ClusterOperator, name string, want []configv1.OperandVersion, waited time.Duration) OperatorWait {
	if co != nil && name == "" {
		name = co.Name
	}
	if len(want) == 0 {
		return operatorWaitNoVersions(co)
	}
	if co == nil {
		return OperatorWait{Verdict: verdict([]string{"the ClusterOperator does not exist yet"}), Outcome: OperatorFailing, Reason: ReasonOperatorNotFound}
	}
	var pending []string
	undone := 0
	for _, w := range want {
		got, found := co.firstVersion(w.Name)
		switch {
		case got == w.Version:
		case !found:
			pending = append(pending, fmt.Sprintf("%s: not reported (want %s)", w.Name, w.Version))
			undone++
		default:
			pending = append(pending, fmt.Sprintf("%s: %s (want %s)", w.Name, got, w.Version))
			undone++
		}
	}
	available := co.Condition(configv1.OperatorAvailable)
	degraded := co.Condition(configv1.OperatorDegraded)
	if available == nil || available.Status != configv1.ConditionTrue {
		pending = append(pending, "Available="+coConditionStatus(available))
	}
	if degraded == nil || degraded.Status != configv1.ConditionFalse {
		pending = append(pending, "Degraded="+coConditionStatus(degraded))
	}
	w := OperatorWait{Verdict: verdict(pending), Outcome: OperatorDone}
	switch {
	case available == nil || available.Status != configv1.ConditionTrue:
		w.Outcome, w.Reason = OperatorFailing, ReasonOperatorNotAvailable
	case degraded == nil || degraded.Status != configv1.ConditionFalse:
		w.Outcome, w.Reason = OperatorWaiting, ReasonOperatorDegraded
		if waited >= DegradedFailAfter {
			w.Outcome = OperatorFailing
		}
	case undone > 0:
		w.Outcome, w.Reason = OperatorWaiting, ReasonOperatorUpdating
		w.Slow = waited >= SlowAfter(name)
	}
	return w
}

// operatorWaitNoVersions: done as the 4.4 CVO was on a manifest without
// versions, failing as CVO main reports it until then.
func operatorWaitNoVersions(co *ClusterOperator) OperatorWait {
	if co == nil {
		return OperatorWait{Verdict: verdict([]string{"the ClusterOperator does not exist yet"}), Outcome: OperatorFailing, Reason: ReasonOperatorNoVersions}
	}
	var pending []string
	available := co.Condition(configv1.OperatorAvailable)
	progressing := co.Condition(configv1.OperatorProgressing)
	degraded := co.Condition(configv1.OperatorDegraded)
	if available == nil || available.Status != configv1.ConditionTrue {
		pending = append(pending, "Available="+coConditionStatus(available))
	}
	if progressing == nil || progressing.Status != configv1.ConditionFalse {
		pending = append(pending, "Progressing="+coConditionStatus(progressing)+" (the manifest declares no versions: the CVO waits for Progressing=False)")
	}
	if degraded == nil || degraded.Status != configv1.ConditionFalse {
		pending = append(pending, "Degraded="+coConditionStatus(degraded))
	}
	w := OperatorWait{Verdict: verdict(pending), Outcome: OperatorDone}
	if !w.OK {
		w.Outcome, w.Reason = OperatorFailing, ReasonOperatorNoVersions
	}
	return w
}

// firstVersion returns the version of the first status.versions entry named
// operand, as the CVO reads it, and whether there is one.
func (co *ClusterOperator) firstVersion(operand string) (string, bool) {
	for _, v := range co.Versions {
		if v.Name == operand {
			return v.Version, true
		}
	}
	return "", false
}
