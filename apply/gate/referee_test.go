package gate

import (
	"fmt"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/testing/referee"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/planfile"
)

// refereeModes are CVO main's updating verdicts by minutes waited.
var refereeModes = map[string]time.Duration{
	"updating@5m": 5 * time.Minute, "updating@35m": 35 * time.Minute,
	"updating@60m": 60 * time.Minute, "updating@100m": 100 * time.Minute,
}

// gateOutcome names a gate's progress as the referee names CVO main's outcome.
func gateOutcome(p Progress) string {
	switch {
	case p.Met:
		return "done"
	case p.CVOWaits:
		return "wait"
	}
	return "fail"
}

// refereeSnapshot is the live ClusterOperator as the planner reads it, with the
// planner's evidence beyond the operator's word in agreement with the manifest:
// the operator Deployment runs the declared operator version and has rolled
// out. The skip rule then answers the question the CVO answers.
func refereeSnapshot(t *testing.T, name string, live *unstructured.Unstructured, declared []planfile.OperandVersion) *inspect.Snapshot {
	s := &inspect.Snapshot{}
	if live != nil {
		var co configv1.ClusterOperator
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(live.Object, &co); err != nil {
			t.Fatal(err)
		}
		s.ClusterOperators = append(s.ClusterOperators, inspect.ClusterOperatorFromAPI(&co))
	}
	for _, d := range declared {
		if d.Name != "operator" {
			continue
		}
		one := int32(1)
		s.OperatorDeployments = append(s.OperatorDeployments, inspect.Deployment{
			Namespace: "openshift-" + name + "-operator", Name: name + "-operator", Replicas: &one,
			ReadyReplicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1, Generation: 1, ObservedGeneration: 1,
			Containers: []inspect.Container{{Name: "operator", Image: "quay.io/openshift/operator", Env: map[string]string{"RELEASE_VERSION": d.Version}}}})
	}
	return s
}

// deliberate says why recover answers a referee case differently from CVO main
// ("" where it must agree). docs/apply.md lists these with their counts.
func deliberate(declared []planfile.OperandVersion, who string) string {
	if len(declared) == 0 {
		if who == "gate" {
			return "no versions declared: CVO main fails the manifest (ClusterOperatorNoVersions) and never moves on; recover's gate is done where the 4.4 CVO was"
		}
		return "no versions declared: the planner never skips such a component (nothing verifies its version); CVO main fails the manifest"
	}
	return ""
}

// TestOperatorRulesAgreeWithTheCVOReferee runs recover's cluster-operator gate
// (at the CVO's clocks) and the planner's skip rule on every operator-health
// case and compares them with CVO main's verdict; the 4.4 CVO's are counted.
func TestOperatorRulesAgreeWithTheCVOReferee(t *testing.T) {
	cases := referee.LoadOperatorHealth(t)
	counts := referee.Counts{}
	shown := 0
	report := func(format string, args ...any) {
		if shown++; shown <= 10 {
			t.Errorf(format, args...)
		}
	}
	for _, c := range cases {
		name := c.Manifest.GetName()
		var declared []planfile.OperandVersion
		vs, _, _ := unstructured.NestedSlice(c.Manifest.Object, "status", "versions")
		for _, v := range vs {
			m, _ := v.(map[string]any)
			n, _ := m["name"].(string)
			ver, _ := m["version"].(string)
			declared = append(declared, planfile.OperandVersion{Name: n, Version: ver})
		}
		g := &planfile.Gate{Kind: planfile.GateClusterOperator, ClusterOperator: name, Versions: declared}
		// The gate, at each of the CVO's clocks.
		for mode, waited := range refereeModes {
			want := c.CVOMain[mode]
			p := evalClusterOperator(g, c.Live.Unstructured, waited)
			got := gateOutcome(p)
			agree := got == want.Outcome && (got == "done" || p.Reason == want.Reason)
			switch why := deliberate(declared, "gate"); {
			case agree:
				counts["gate agrees with main"]++
			case why != "":
				counts["gate differs from main, deliberately: "+why]++
			default:
				counts["gate DIFFERS from main"]++
				report("%s %s: gate %s (%s), CVO main %s (%s): %s", c.ID, mode, got, p.Reason, want.Outcome, want.Reason, p.Message)
			}
		}
		// Done-ness, with the 4.4 CVO.
		p := evalClusterOperator(g, c.Live.Unstructured, 0)
		if p.Met == (c.CVO44["updating"].Outcome == "done") {
			counts["gate done-ness agrees with 4.4"]++
		} else {
			counts[fmt.Sprintf("gate done-ness differs from 4.4 (4.4 %s, recover met=%v, %d versions declared)", c.CVO44["updating"].Outcome, p.Met, len(declared))]++
		}
		// The planner's skip rule: skip exactly where the CVO is done.
		skip, why := plan.OperatorAtTarget(refereeSnapshot(t, name, c.Live.Unstructured, declared), name, declared)
		mainDone := c.CVOMain["updating@5m"].Outcome == "done" && c.CVOMain["reconciling"].Outcome == "done"
		switch d := deliberate(declared, "skip"); {
		case skip == mainDone:
			counts["skip agrees with main"]++
		case d != "" && !skip:
			counts["skip differs from main, deliberately: "+d]++
		default:
			counts["skip DIFFERS from main"]++
			report("%s: skip %v (%s), CVO main done %v", c.ID, skip, why, mainDone)
		}
		if skip == (c.CVO44["updating"].Outcome == "done") {
			counts["skip agrees with 4.4"]++
		} else {
			counts[fmt.Sprintf("skip differs from 4.4 (4.4 %s, recover skip=%v, %d versions declared)", c.CVO44["updating"].Outcome, skip, len(declared))]++
		}
		// Planner and gate answer alike (the one rule).
		if skip && !p.Met {
			report("%s: the planner skips what the gate would wait on", c.ID)
		}
	}
	t.Logf("%d operator-health cases (%d gate verdicts at 4 clocks)\n%s", len(cases), 4*len(cases), counts)
	if counts["gate agrees with main"] == 0 || counts["skip agrees with main"] == 0 {
		t.Errorf("nothing compared")
	}
}
