package e2e_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/internal/lab/sim"
)

// A relaxed PodDisruptionBudget is a temporary change: whatever ends a run, the
// cluster must not keep it. These tests kill recover apply (kill -9) at each
// point of the relax-pdb plan, or let its gate time out, and check what the
// cluster and `recover journal` say, then that --resume finishes the job with
// the budget exactly as it was.

// TestRemedyRelaxPDBSurvivesKill9 kills the run at the relax step's start
// (intent journaled or not yet), right after the relax (outcome journaled),
// during the nodes-settled wait and at the revert's start; then resumes it.
func TestRemedyRelaxPDBSurvivesKill9(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		event string // the JSON event type that triggers the kill
		step  int    // index in pdbPlanShape of the step it belongs to
		// relaxed: the budget is certainly relaxed when the process dies.
		relaxed bool
	}{
		{name: "relax-started", event: "step-started", step: 1},
		{name: "relax-applied", event: "applied", step: 1, relaxed: true},
		{name: "waiting-for-nodes", event: "waiting", step: 2, relaxed: true},
		{name: "revert-started", event: "step-started", step: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, before, p, path := pdbWedge(t)
			journalPath := filepath.Join(c.dir, "run.journal")
			release := c.releaser(p)
			killed := false
			pr := c.startCLI(c.kubeconfig, func(pr *proc, ev map[string]any) {
				release(ev)
				if !killed && ev["type"] == tc.event && stepOf(ev) == p.Steps[tc.step].ID {
					killed = true
					pr.kill()
				}
			}, "apply", "--plan", path, "--journal", journalPath, "--i-have-a-backup", "--yes", "--events", "json")
			pr.wait(t)
			if !killed {
				t.Fatalf("the run ended before %s of %s; result %v\n%s", tc.event, p.Steps[tc.step].ID, pr.result(), pr.stderr)
			}

			// What the journal says of the budget after the kill.
			s := c.journalCLI(journalPath)
			if s.State == "finished" {
				t.Fatalf("recover journal says a killed run finished")
			}
			if tc.relaxed {
				if reflect.DeepEqual(c.object(deckPDB), before) {
					t.Errorf("the budget is as before although the relax was applied")
				}
				if len(s.Changes) != 1 || s.Changes[0].State != "outstanding" || !s.Changes[0].Temporary || !strings.Contains(s.Changes[0].Resume+s.Changes[0].Restore, "recover apply --resume") {
					t.Errorf("recover journal after the kill: %+v; want the relax outstanding, with the command that restores it", s.Changes)
				}
			}
			if !strings.Contains(strings.Join(s.Next, "\n"), "--resume") {
				t.Errorf("recover journal does not say how to resume: %v", s.Next)
			}

			// Resume: the run completes and nothing is left relaxed.
			resumed := c.startCLI(c.kubeconfig, nil, "apply", "--resume", journalPath, "--yes", "--events", "json")
			if code := resumed.wait(t); code != 0 || resumed.result()["outcome"] != "completed" {
				t.Fatalf("recover apply --resume: exit %d, result %v\n%s", code, resumed.result(), resumed.stderr)
			}
			c.assertDrained()
			if got := c.object(deckPDB); !reflect.DeepEqual(got, before) {
				t.Errorf("the budget after the resumed run:\n%s\nwant as before:\n%s", js(got), js(before))
			}
			s = c.journalCLI(journalPath)
			if s.State != "finished" {
				t.Errorf("recover journal after the resume: state %s", s.State)
			}
			for _, ch := range s.Changes {
				if ch.Temporary && ch.State != "reverted" {
					t.Errorf("recover journal after the resume: a temporary change is %s: %+v", ch.State, ch)
				}
			}
		})
	}
}

// TestRemedyRelaxPDBGateTimeoutRestoresTheBudget: the nodes do not settle (the
// machine-config daemons are held) and the nodes-settled gate times out; the
// engine restores the budget before it exits (exit 9, the CVO left disabled as
// for any early stop), `recover journal` says the change is restored, and a
// resume once the cluster moves makes the change again and completes.
func TestRemedyRelaxPDBGateTimeoutRestoresTheBudget(t *testing.T) {
	t.Parallel()
	c, before, _, path := pdbWedge(t)
	journalPath := filepath.Join(c.dir, "run.journal")
	// No releaser: the daemons stay held, so the drains never finish.
	pr := c.startCLI(c.kubeconfig, nil, "apply", "--plan", path, "--journal", journalPath, "--i-have-a-backup", "--yes", "--events", "json",
		"--gate-timeout", "nodes-settled=3s")
	if code := pr.wait(t); code != 9 {
		t.Fatalf("recover apply with a gate that cannot pass: exit %d, want 9 (gate failed); result %v\n%s", code, pr.result(), pr.stderr)
	}
	var reverted bool
	pr.mu.Lock()
	for _, ev := range pr.events {
		if ev["type"] == "reverted" {
			reverted = true
		}
	}
	pr.mu.Unlock()
	if !reverted {
		t.Errorf("no reverted event after the gate timed out")
	}
	if got := c.object(deckPDB); !reflect.DeepEqual(got, before) {
		t.Errorf("the budget after the timed-out run:\n%s\nwant as before:\n%s", js(got), js(before))
	}
	s := c.journalCLI(journalPath)
	if len(s.Changes) < 1 || s.Changes[0].State != "reverted" {
		t.Errorf("recover journal after the timeout: %+v; want the relax reverted", s.Changes)
	}
	cvo := fmt.Sprint(field(c.object(cvoDeployment), "spec.replicas"))
	if cvo != "0" {
		t.Errorf("the CVO's replicas after an early stop: %s, want 0 (left disabled, resumable)", cvo)
	}

	c.sim.SetTiming(sim.FastTiming)
	resumed := c.startCLI(c.kubeconfig, nil, "apply", "--resume", journalPath, "--yes", "--events", "json")
	if code := resumed.wait(t); code != 0 || resumed.result()["outcome"] != "completed" {
		t.Fatalf("recover apply --resume: exit %d, result %v\n%s", code, resumed.result(), resumed.stderr)
	}
	c.assertDrained()
	if got := c.object(deckPDB); !reflect.DeepEqual(got, before) {
		t.Errorf("the budget after the resumed run:\n%s\nwant as before:\n%s", js(got), js(before))
	}
}
