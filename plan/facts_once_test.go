package plan

import (
	"context"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift-recover/recover/plan/planfile"
)

// TestMakeReadsTheFactsOnce: the planner's facts of a snapshot are read once
// per plan and shared by target selection or the remediation stage and the
// checker (they used to be read again by Check, and by the mode decision).
func TestMakeReadsTheFactsOnce(t *testing.T) {
	s := healthyUpdating(t)
	holdDrain(t, s, "ci", "build", "worker-0")
	before := factsBuilt.Load()
	if _, err := makeRemedies(t, s); err != nil {
		t.Fatal(err)
	}
	if n := factsBuilt.Load() - before; n != 1 {
		t.Errorf("a remediation plan read the facts %d times, want 1", n)
	}
}

// TestTheModeDecisionAndThePlanReadTheFactsOnce: what `recover plan` and the
// TUI do without --graph and --payload, decide the mode (Decide) and then make
// the plan with that decision, reads the planner's facts once, whether the
// decision is a remediation plan or a new release (then planned over a graph).
// (plan.Remedial read them for the decision, and Make again.)
func TestTheModeDecisionAndThePlanReadTheFactsOnce(t *testing.T) {
	remedial := healthyUpdating(t)
	holdDrain(t, remedial, "ci", "build", "worker-0")
	for _, tc := range []struct {
		name        string
		s           func() *Options
		remediation bool
	}{
		{name: "remediation", remediation: true, s: func() *Options { return &Options{Snapshot: remedial} }},
		{name: "a new release", s: func() *Options {
			return &Options{Snapshot: snapshot(t, incident1), Graph: exampleGraphResult(t), Payload: PayloadDir{Dir: payload444}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.s()
			o.Now = func() time.Time { return fixedTime }
			before := factsBuilt.Load()
			d := Decide(o.Snapshot, DecideInput{})
			if (d.Outcome.Kind == planfile.OutcomeRemediation) != tc.remediation || (len(d.needs) > 0) == tc.remediation {
				t.Fatalf("decision %+v, want remediation %v", d, tc.remediation)
			}
			o.Decision = d
			p, err := Make(context.Background(), *o)
			if err != nil {
				t.Fatal(err)
			}
			if n := factsBuilt.Load() - before; n != 1 {
				t.Errorf("the decision and the plan read the facts %d times, want 1", n)
			}
			o.Decision = nil
			fresh, err := Make(context.Background(), *o)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := mustEncode(t, p), mustEncode(t, fresh); got != want {
				t.Errorf("the plan made with the decision differs from the one made without")
			}
		})
	}
}

// TestADecisionForAnotherSnapshotIsNotUsed: Make plans from its own snapshot's
// facts when the decision was made for another (the TUI re-reads the cluster).
func TestADecisionForAnotherSnapshotIsNotUsed(t *testing.T) {
	first := healthyUpdating(t)
	holdDrain(t, first, "ci", "build", "worker-0")
	reread := healthyUpdating(t)
	holdDrain(t, reread, "ci", "build", "worker-0")
	reread.ClusterVersion.Spec.ClusterID = "reloaded"
	p, err := Make(context.Background(), Options{Snapshot: reread, Decision: Decide(first, DecideInput{}), Now: func() time.Time { return fixedTime }})
	if err != nil {
		t.Fatal(err)
	}
	if p.Cluster.ClusterID != "reloaded" {
		t.Errorf("the plan's cluster is %q, want the re-read snapshot's", p.Cluster.ClusterID)
	}
}

// TestSelectLeavesTheFactsItIsGiven: target selection resolves the blockers an
// accepted promise answers on a copy, so one decision's facts serve a re-plan
// with other --accept names (the TUI's a).
func TestSelectLeavesTheFactsItIsGiven(t *testing.T) {
	s := healthyUpdating(t)
	adminGate(s, "ack-4.4-kube-1.18-api-removals-in-4.5")
	s.ClusterVersion.Status.Conditions = append(s.ClusterVersion.Status.Conditions, configv1.ClusterOperatorStatusCondition{
		Type: configv1.OperatorUpgradeable, Status: configv1.ConditionFalse, Reason: "AdminAckRequired", Message: "ack the API removals"})
	f := newFacts(s)
	n := len(f.blockers)
	if n == 0 {
		t.Fatal("no blocker to resolve")
	}
	_, _ = selectTarget(s, f, testGraph(t, wireEdge{from: "4.4.4", to: "4.5.1"}), nil, []string{"admin-ack:ack-4.4-kube-1.18-api-removals-in-4.5"}, "")
	if len(f.blockers) != n || len(f.resolved) != 0 {
		t.Errorf("selection changed the facts it was given: blockers %v, resolved %v", f.blockers, f.resolved)
	}
}

func mustEncode(t *testing.T, p *planfile.Plan) string {
	t.Helper()
	var b strings.Builder
	if err := planfile.Encode(&b, p); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
