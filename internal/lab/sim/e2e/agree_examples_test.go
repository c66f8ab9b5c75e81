package e2e_test

import (
	"testing"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"

	"github.com/openshift-recover/recover/apply/gate"
	"github.com/openshift-recover/recover/apply/resource"
	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The generated-state property in apply/gate (TestPlannerSkipAgreesWithGates)
// ties the planner's skip rule to the engine's gates; this is the same property
// over the examples' real-shaped states, served by a real apiserver: for every
// ClusterOperator of every example, asked "is it at the versions it claims?",
// the planner (plan.OperatorAtTarget over the live snapshot) and the engine's
// gates (gate.Checker on the apiserver's objects) must not disagree. The
// false-success-revision example is the second incident: kube-apiserver claims
// a revision one master does not run, so neither may call it at target.
func TestExamplesPlannerSkipAgreesWithGates(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		example string
		// notAtClaim are operators whose claim the cluster contradicts: neither
		// the planner nor the gates may call them at target.
		notAtClaim []string
	}{
		{example: "reconciled-4.3-to-4.4"},
		{example: "false-success-revision", notAtClaim: []string{"kube-apiserver"}},
		{example: "static-pod-stuck"},
		{example: "paused-pool"},
	} {
		t.Run(tc.example, func(t *testing.T) {
			t.Parallel()
			c := load(t, tc.example)
			snap := c.settled()
			checker := gate.NewChecker(dynamic.NewForConfigOrDie(c.cfg), resource.NewMapper(discovery.NewDiscoveryClientForConfigOrDie(c.cfg)))
			var skipped, met int
			for _, co := range snap.ClusterOperators {
				var declared []planfile.OperandVersion
				for _, v := range co.Versions {
					declared = append(declared, planfile.OperandVersion{Name: v.Name, Version: v.Version})
				}
				if len(declared) == 0 {
					continue
				}
				skip, why := plan.OperatorAtTarget(snap, co.Name, declared)
				gates := []*planfile.Gate{{Kind: planfile.GateClusterOperator, ClusterOperator: co.Name, Versions: declared}}
				if sp := inspect.StaticPodComponentFor(co.Name); sp != nil && sp.ClusterOperator == co.Name {
					gates = append(gates, &planfile.Gate{Kind: planfile.GateStaticPods, StaticPods: plan.StaticPodsGateFor(sp, 0)})
				}
				ok, pending := true, ""
				for _, g := range gates {
					p, err := checker.Check(c.ctx, g)
					if err != nil {
						t.Fatalf("clusteroperator/%s: %s gate: %v", co.Name, g.Kind, err)
					}
					if !p.Met {
						ok, pending = false, string(g.Kind)+": "+p.Message
						break
					}
				}
				if skip {
					skipped++
				}
				if ok {
					met++
				}
				if skip && !ok {
					t.Errorf("clusteroperator/%s: the planner skips it, but the engine's gate would not pass: %s", co.Name, pending)
				}
				for _, n := range tc.notAtClaim {
					if co.Name == n && (skip || ok) {
						t.Errorf("clusteroperator/%s: its claim is contradicted by what runs, yet planner skip=%t (%s), gates met=%t", co.Name, skip, why, ok)
					}
				}
				if ok && !skip {
					t.Logf("clusteroperator/%s: gates pass, the planner wants more evidence: %s", co.Name, why)
				}
			}
			if met == 0 {
				t.Fatalf("no ClusterOperator of %s passed its gates: the property says nothing here", tc.example)
			}
			t.Logf("%s: %d ClusterOperators, %d skipped by the planner, %d with every gate met", tc.example, len(snap.ClusterOperators), skipped, met)
		})
	}
}
