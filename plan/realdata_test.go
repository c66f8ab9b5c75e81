package plan

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/testing/shareddata"
	"github.com/openshift-recover/recover/plan/graph"
	"github.com/openshift-recover/recover/plan/payload"
	"github.com/openshift-recover/recover/plan/planfile"
)

const (
	realCapture = "cincinnati-graph/graph-builder-fixtures/20211124.083150"
	realPayload = "payload-release-4.4"
)

// realGraph loads the real 2021-11-24 graph-builder graph (1,085 nodes) with its
// cincinnati-graph-data snapshot, as a disconnected update service serves it.
func realGraph(tb testing.TB, channel string) *graph.Result {
	tb.Helper()
	dir := shareddata.RealData(tb, realCapture)
	g, err := graph.Load(context.Background(), graph.Options{Graph: filepath.Join(dir, "graph-gb-raw.json"), GraphData: filepath.Join(dir, "cincinnati-graph-data"), Channel: channel})
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

// realWedge models a 4.3.19 -> 4.4.3 update wedged as in the first incident, on a
// cluster running every ClusterOperator of the real 4.4 payload: it starts from the
// example must-gather's snapshot (control plane and five operators verified against
// their running Deployments; master-0 already on a 4.4 kubelet, master-1 in flight,
// both pools rolling 4.4.3 configs) and adds the payload's other ClusterOperators,
// claiming 4.4.3 where the shuffled reconcile would have reached them (run-level 50
// and later) and 4.3.19 before that.
func realWedge(tb testing.TB, pl *payload.Payload) *inspect.Snapshot {
	tb.Helper()
	s := snapshot(tb, incident1)
	for _, m := range pl.Included() {
		if !isClusterOperator(m) || s.ClusterOperator(m.Name) != nil {
			continue
		}
		v := "4.3.19"
		if m.RunLevel >= "50" {
			v = "4.4.3"
		}
		s.ClusterOperators = append(s.ClusterOperators, inspect.ClusterOperator{Name: m.Name,
			Versions: []configv1.OperandVersion{{Name: "operator", Version: v}},
			Conditions: []configv1.ClusterOperatorStatusCondition{
				{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue},
				{Type: configv1.OperatorDegraded, Status: configv1.ConditionFalse},
			}})
	}
	inspect.Refresh(s)
	return s
}

// TestRealDataWedgePlan plans the modeled wedge against the real graph, graph-data
// and 4.4 payload (standing in for the target's).
//
// The expected target, derived by hand from the capture and its graph-data:
//   - the cluster runs 4.3.19 and 4.4.3, so every candidate needs an edge from both
//     (or is one of them and needs none from itself);
//   - stable-4.4 (channels/stable-4.4.yaml) lists 4.3.0 .. 4.3.40 and 4.4.3 .. 4.4.31:
//     no 4.4.z below 4.4.3;
//   - every 4.3.z is a cross-minor downgrade for the operators already at 4.4.3;
//   - 4.4.3 itself is blocked from 4.3.19 by blocked-edges/4.4.3.yaml
//     (from: 4\.3\..*, etcd NodeInstaller_InstallerPodFailed, bug 1830510);
//   - 4.4.4's entry (blocked-edges/4.4.4.yaml) only matches 4\.3\.1[23], and the
//     graph-builder graph has 4.3.19 -> 4.4.4 and 4.4.3 -> 4.4.4, both supported;
//   - every later 4.4.z either has no direct edge from 4.3.19 (4.4.31: a next hop is
//     one edge) or moves the same components by more patch steps (4.4.5), so 4.4.4
//     is the nearest.
func TestRealDataWedgePlan(t *testing.T) {
	dir := shareddata.RealData(t, realPayload)
	g := realGraph(t, "stable-4.4")
	pl, err := payload.LoadDir(dir, payload.Options{Version: "4.4.4"})
	if err != nil {
		t.Fatal(err)
	}
	s := realWedge(t, pl)
	if len(s.ClusterOperators) < 25 {
		t.Fatalf("the modeled cluster has %d ClusterOperators", len(s.ClusterOperators))
	}
	sel, err := Select(s, g, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sel.Target.Version != "4.4.4" {
		t.Fatalf("target %s; candidates %v", sel.Target.Version, versionsOf(sel.Candidates)[:8])
	}
	for v, want := range map[string]string{
		"4.4.3":  "rejected/blocked-edge",
		"4.3.19": "rejected/no-cross-minor-downgrade",
		"4.3.40": "rejected/no-cross-minor-downgrade",
		"4.4.5":  "demoted/farther",
		"4.4.31": "rejected/no-supported-edge",
	} {
		c := candidateOf(t, sel.Candidates, v)
		if got := c.Verdict + "/" + c.Rule; got != want {
			t.Errorf("%s: %s, want %s (%s)", v, got, want, c.Reason)
		}
	}
	if c := candidateOf(t, sel.Candidates, "4.4.3"); !strings.Contains(c.Reason, "blocked-edges/4.4.3.yaml") || !strings.Contains(c.Reason, "NodeInstaller_InstallerPodFailed") {
		t.Fatalf("4.4.3 reason %q", c.Reason)
	}

	p, err := Make(context.Background(), Options{Snapshot: s, Graph: g, Payload: PayloadDir{Dir: dir, Version: "4.4.4"}, Now: func() time.Time { return fixedTime }})
	if err != nil {
		t.Fatal(err)
	}
	included := len(pl.Included())
	if n := planfile.CountAction(p, planfile.ActionApply) + planfile.CountAction(p, planfile.ActionDelete); n != included {
		t.Fatalf("%d manifest steps for %d included manifests (nothing is at 4.4.4, nothing is skipped)", n, included)
	}
	if p.Steps[1].Pool != "master" || p.Steps[2].Pool != "worker" {
		t.Fatalf("the pools are not paused first: %s %s", p.Steps[1].ID, p.Steps[2].ID)
	}
	kas := stepIndex(p, isStaticWait("kube-apiserver"))
	kcm := stepIndex(p, isStaticWait("kube-controller-manager"))
	sched := stepIndex(p, isStaticWait("kube-scheduler"))
	mco := stepIndex(p, isCOStep("machine-config"))
	for _, pool := range []string{"master", "worker"} {
		u := stepIndex(p, isAction(planfile.ActionUnpausePool, pool))
		if kas < 0 || kcm < 0 || sched < 0 || u < max(kas, kcm, sched) || u > mco {
			t.Fatalf("unpause %s at %d; gates %d %d %d; machine-config %d", pool, u, kas, kcm, sched, mco)
		}
	}
	// The real 4.4 payload was assembled from the operator repositories: its
	// ClusterOperators declare oc's placeholder version, and the plan says so.
	if !strings.Contains(strings.Join(p.Warnings, "\n"), `declares operator version "0.0.1-snapshot", not 4.4.4`) {
		t.Fatalf("no placeholder warning: %v", p.Warnings)
	}
	if err := Check(p, s, nil); err != nil {
		t.Fatal(err)
	}
}
