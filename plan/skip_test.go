package plan

import (
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The skip rule reads a ClusterOperator's versions as the CVO and the
// cluster-operator gate read them: the first status.versions entry of a name.
// It used to read the first entry for operands and the gate the last, so the two
// disagreed on duplicated entries.
func TestOperatorAtTargetReadsTheFirstEntryLikeTheGate(t *testing.T) {
	healthy := []configv1.ClusterOperatorStatusCondition{{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue}, {Type: configv1.OperatorDegraded, Status: configv1.ConditionFalse}}
	declared := []planfile.OperandVersion{{Name: "coredns", Version: "4.4.3"}}
	want := []configv1.OperandVersion{{Name: "coredns", Version: "4.4.3"}}
	for _, tc := range []struct {
		name     string
		versions []configv1.OperandVersion
		skip     bool
	}{
		{"target first", []configv1.OperandVersion{{Name: "coredns", Version: "4.4.3"}, {Name: "coredns", Version: "4.3.19"}}, true},
		{"target last", []configv1.OperandVersion{{Name: "coredns", Version: "4.3.19"}, {Name: "coredns", Version: "4.4.3"}}, false},
	} {
		co := inspect.ClusterOperator{Name: "dns", Versions: tc.versions, Conditions: healthy}
		s := &inspect.Snapshot{ClusterOperators: []inspect.ClusterOperator{co}}
		skip, why := OperatorAtTarget(s, "dns", declared)
		gate := inspect.OperatorAt(&co, want)
		if skip != tc.skip || gate.OK != tc.skip {
			t.Errorf("%s: skip %v (%s), gate %v; want both %v", tc.name, skip, why, gate.OK, tc.skip)
		}
	}
	if skip, why := OperatorAtTarget(&inspect.Snapshot{}, "dns", nil); skip || !strings.Contains(why, "declares no versions") {
		t.Errorf("a manifest without versions is never skipped: %v %s", skip, why)
	}
}
