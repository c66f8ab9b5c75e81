package plan

import "testing"

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
