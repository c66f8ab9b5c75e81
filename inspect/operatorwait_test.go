package inspect

import (
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
)

func TestOperatorWaitForIsTheCVOsRule(t *testing.T) {
	cond := func(typ configv1.ClusterStatusConditionType, s configv1.ConditionStatus) configv1.ClusterOperatorStatusCondition {
		return configv1.ClusterOperatorStatusCondition{Type: typ, Status: s}
	}
	healthy := []configv1.ClusterOperatorStatusCondition{cond(configv1.OperatorAvailable, configv1.ConditionTrue), cond(configv1.OperatorDegraded, configv1.ConditionFalse)}
	co := func(conds []configv1.ClusterOperatorStatusCondition, versions ...string) *ClusterOperator {
		c := &ClusterOperator{Name: "dns", Conditions: conds}
		for i := 0; i+1 < len(versions); i += 2 {
			c.Versions = append(c.Versions, configv1.OperandVersion{Name: versions[i], Version: versions[i+1]})
		}
		return c
	}
	want := []configv1.OperandVersion{{Name: "operator", Version: "4.4.3"}}
	for _, tc := range []struct {
		name    string
		co      *ClusterOperator
		want    []configv1.OperandVersion
		waited  time.Duration
		outcome OperatorOutcome
		reason  string
		slow    bool
	}{
		{"at target", co(healthy, "operator", "4.4.3"), want, 0, OperatorDone, "", false},
		{"absent", nil, want, 0, OperatorFailing, ReasonOperatorNotFound, false},
		{"not available", co(healthy[1:], "operator", "4.4.3"), want, 0, OperatorFailing, ReasonOperatorNotAvailable, false},
		{"no Degraded condition counts as degraded", co(healthy[:1], "operator", "4.4.3"), want, 0, OperatorWaiting, ReasonOperatorDegraded, false},
		{"degraded past 40 minutes fails", co([]configv1.ClusterOperatorStatusCondition{healthy[0], cond(configv1.OperatorDegraded, configv1.ConditionTrue)}, "operator", "4.4.3"), want, 41 * time.Minute, OperatorFailing, ReasonOperatorDegraded, false},
		{"updating", co(healthy, "operator", "4.3.19"), want, time.Minute, OperatorWaiting, ReasonOperatorUpdating, false},
		{"updating past 30 minutes is slow", co(healthy, "operator", "4.3.19"), want, 31 * time.Minute, OperatorWaiting, ReasonOperatorUpdating, true},
		// The first entry of a name is the one both CVOs read; the last used to be.
		{"duplicates, target first", co(healthy, "operator", "4.4.3", "operator", "4.3.19"), want, 0, OperatorDone, "", false},
		{"duplicates, target last", co(healthy, "operator", "4.3.19", "operator", "4.4.3"), want, 0, OperatorWaiting, ReasonOperatorUpdating, false},
		// A declared "" equals an unreported operand, as in CVO main.
		{"declared empty version, not reported", co(healthy), []configv1.OperandVersion{{Name: "operator", Version: ""}}, 0, OperatorDone, "", false},
		{"no versions declared: the 4.4 CVO's conditions", co(append(healthy, cond(configv1.OperatorProgressing, configv1.ConditionFalse))), nil, 0, OperatorDone, "", false},
		{"no versions declared, progressing: failing as main reports it", co(healthy), nil, 0, OperatorFailing, ReasonOperatorNoVersions, false},
	} {
		w := OperatorWaitFor(tc.co, "dns", tc.want, tc.waited)
		if w.Outcome != tc.outcome || w.Reason != tc.reason || w.Slow != tc.slow || w.OK != (tc.outcome == OperatorDone) {
			t.Errorf("%s: %+v, want %s %s slow=%v", tc.name, w, tc.outcome, tc.reason, tc.slow)
		}
	}
	if SlowAfter("machine-config") != 90*time.Minute || SlowAfter("dns") != 30*time.Minute {
		t.Errorf("the CVO's thresholds: machine-config 90m, others 30m")
	}
}
