package apply_test

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/plan/planfile"
)

// TestAPoolPausedInsideAPushIsNamedWhenTheRunStops: a run that stops with
// the CVO disabled, inside the push that paused a pool, leaves the pool
// paused (the CVO is not running to order its unpause, the push orders it
// after the control plane) — and says so not only in a warning: the result
// lists the pause as not reverted, its one-line message names it, and its
// next commands carry the command that unpauses the pool.
func TestAPoolPausedInsideAPushIsNamedWhenTheRunStops(t *testing.T) {
	c, ctx := setup(t)
	p := applytest.NewPlan().DisableCVO().PausePool("master").UnpausePool("master").RestoreCVO().Plan()
	pause := ""
	for _, s := range p.Steps {
		if s.Action == planfile.ActionPausePool {
			pause = s.ID
		}
	}
	opts := defaults(t)
	opts.UntilStep = pause
	res, events := run(t, ctx, c, p, opts)
	if res.Outcome != apply.OutcomeStopped || !res.CVODisabled {
		t.Fatalf("%s (CVO disabled %v): %s\n%s", res.Outcome, res.CVODisabled, res.Message, dump(events))
	}
	pool, err := c.MCFG.MachineconfigurationV1().MachineConfigPools().Get(ctx, "master", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !pool.Spec.Paused {
		t.Fatal("the pool paused inside the push was unpaused with the CVO disabled")
	}
	if len(res.NotReverted) != 1 || res.NotReverted[0].Step != pause || !strings.Contains(res.NotReverted[0].Command, `"paused":false`) {
		t.Fatalf("not reverted: %+v", res.NotReverted)
	}
	if !strings.Contains(res.Message, pause) || !strings.Contains(res.Message, "kept paused") {
		t.Errorf("the result's line does not name the paused pool: %s", res.Message)
	}
	found := false
	for _, n := range res.Next {
		found = found || strings.Contains(n, res.NotReverted[0].Command)
	}
	if !found {
		t.Errorf("next does not carry the unpause: %v", res.Next)
	}
}
