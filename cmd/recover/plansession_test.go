package main

import (
	"context"
	"testing"
	"time"

	"github.com/openshift-recover/recover/inspect/mustgather"
)

// TestTUIReplansFromTheCurrentSnapshotWithThePlanClock: the TUI's Replan is
// recover plan's session: it plans from the snapshot it is given (after a
// reload, the re-read one; it used to keep the first), and with the plan's
// clock (SOURCE_DATE_EPOCH; it used to leave Now out of update plans).
func TestTUIReplansFromTheCurrentSnapshotWithThePlanClock(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1590397200")
	want := time.Unix(1590397200, 0).UTC()
	s, err := session(t, "--must-gather", exampleDir+"/must-gather", "--graph", exampleGraph, "--graph-data", exampleData,
		"--channel", "stable-4.4", "--payload", exampleDir+"/releases/4.4.4")
	if err != nil {
		t.Fatal(err)
	}
	if s.Plan == nil || !s.Plan.CreatedAt.Equal(want) {
		t.Fatalf("the session's update plan: %v, want one made at the plan clock %v", s.PlanErr, want)
	}

	// The cluster, re-read: the same must-gather, but another cluster ID.
	reread, err := mustgather.New(exampleDir + "/must-gather").Collect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	reread.ClusterVersion.Spec.ClusterID = "reloaded"
	p, err := s.Replan(context.Background(), reread, s.Accepted)
	if err != nil {
		t.Fatalf("re-planning from the re-read snapshot: %v", err)
	}
	if p.Cluster.ClusterID != "reloaded" || s.Plan.Cluster.ClusterID == "reloaded" {
		t.Errorf("the re-plan's cluster is %q, want the re-read snapshot's (the first plan's was %q)", p.Cluster.ClusterID, s.Plan.Cluster.ClusterID)
	}
	if !p.CreatedAt.Equal(want) {
		t.Errorf("the re-plan was made at %v, want the plan clock %v", p.CreatedAt, want)
	}
}
