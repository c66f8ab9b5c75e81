package plan

import (
	"testing"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan/planfile"
)

// TestGuardBudgetsOneRule holds the planner, its checker and the plan
// validation apply runs to inspect's one answer on whether a budget that holds
// a drain is a control-plane guard (inspect.IsGuardPDB): the planner relaxes
// the ordinary ones and refuses the guards,
// and the plan it makes is one Validate (apply's) accepts. Before the one
// rule, a user budget shop/web-guard-pdb was relaxed by the planner and the
// plan refused by apply, and openshift-monitoring/thanos-guard-pdb was an
// ordinary budget to inspect and a guard to the planner.
func TestGuardBudgetsOneRule(t *testing.T) {
	for _, tc := range []struct {
		ns, name string
		guard    bool
	}{
		{"shop", "web-guard-pdb", false},
		{"openshift-monitoring", "thanos-guard-pdb", false},
		{"openshift-etcd", "etcd-guard-pdb", true},
	} {
		t.Run(tc.ns+"/"+tc.name, func(t *testing.T) {
			s := healthyUpdating(t)
			holdDrain(t, s, tc.ns, tc.name, "worker-0")
			subject := "poddisruptionbudget/" + tc.ns + "/" + tc.name
			if tc.guard {
				// inspect reports a guard's hold as GuardPDBBlocksDrain
				// (inspect's TestGuardOf holds inspect to the same rule).
				dropFindings(s, inspect.CodeDrainBlockedByPDB)
				guardHolds(t, s, "worker-0", "master-1")
			}
			if inspect.IsGuardPDB(tc.ns, tc.name) != tc.guard {
				t.Fatalf("inspect.IsGuardPDB(%s, %s) = %t", tc.ns, tc.name, !tc.guard)
			}
			p, err := makeRemedies(t, s)
			if tc.guard {
				if err == nil {
					t.Fatalf("the planner relaxed the guard %s: %v", subject, actions(p))
				}
				return
			}
			if err != nil {
				t.Fatalf("the planner refused the ordinary budget %s: %v", subject, err)
			}
			if len(stepsWith(p, planfile.ActionRelaxPDB)) != 1 {
				t.Fatalf("the plan does not relax %s: %v", subject, actions(p))
			}
			if err := planfile.Validate(p); err != nil {
				t.Fatalf("apply's validation refuses the plan the planner made: %v", err)
			}
		})
	}
}
