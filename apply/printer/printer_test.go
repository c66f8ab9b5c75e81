package printer

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/gate"
	"github.com/openshift-recover/recover/plan/planfile"
)

func events() []apply.Event {
	step := &apply.StepInfo{ID: "003-apply-deployment-etcd-operator", Index: 3, Total: 9, Action: planfile.ActionApply}
	one := int32(1)
	return []apply.Event{
		{Type: apply.EventRunStarted, Run: &apply.RunInfo{TargetVersion: "4.4.4", TargetImage: "img@sha256:44", Steps: 9, Journal: "run.journal"}},
		{Type: apply.EventStepStarted, Step: step},
		{Type: apply.EventApplied, Step: step, Change: &apply.ChangeInfo{Operation: "update", Object: "Deployment openshift-etcd-operator/etcd-operator", Result: "updated"}},
		{Type: apply.EventWaiting, Step: step, Gate: &apply.GateInfo{Kind: planfile.GateWorkloadRollout, Subject: "deployment/openshift-etcd-operator/etcd-operator", Progress: gate.Progress{Message: "0 of 1 updated"}, ElapsedSeconds: 2, TimeoutSeconds: 600}},
		{Type: apply.EventGatePassed, Step: step, Gate: &apply.GateInfo{Kind: planfile.GateWorkloadRollout, ElapsedSeconds: 3.2}},
		{Type: apply.EventStepDone, Step: step},
		{Type: apply.EventDone, Result: &apply.Result{Outcome: apply.OutcomeGateFailed, Message: "stopped; the cluster-version operator is left DISABLED", CVODisabled: true, CVOReplicas: &one, Next: []string{"recover apply --resume run.journal --yes"}}},
	}
}

func TestJSONStartsWithVersionLineAndWritesOneEventPerLine(t *testing.T) {
	var buf bytes.Buffer
	p := NewJSON(&buf, "v0.1.0")
	for _, e := range events() {
		e.Time = time.Date(2020, 5, 24, 16, 0, 0, 0, time.UTC)
		if err := p.Print(e); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != len(events())+1 {
		t.Fatalf("%d lines", len(lines))
	}
	var v map[string]string
	if err := json.Unmarshal([]byte(lines[0]), &v); err != nil || v["type"] != "version" || v["eventsVersion"] != apply.EventsVersion || v["generator"] != "v0.1.0" {
		t.Fatalf("version line %q", lines[0])
	}
	var last apply.Event
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Type != apply.EventDone || !last.Result.CVODisabled || last.Result.Outcome != apply.OutcomeGateFailed {
		t.Fatalf("done line %q: %v", lines[len(lines)-1], err)
	}
}

func TestPlainWritesOneLinePerFinishedStepAndProgressLines(t *testing.T) {
	var buf bytes.Buffer
	p := NewPlain(&buf, false)
	for _, e := range events() {
		_ = p.Print(e)
	}
	out := buf.String()
	for _, want := range []string{
		"recover apply: apply, target 4.4.4 (img@sha256:44), 9 steps, journal run.journal\n",
		"[3/9] 003-apply-deployment-etcd-operator: waiting 2s/10m0s for deployment/openshift-etcd-operator/etcd-operator: 0 of 1 updated\n",
		"[3/9] 003-apply-deployment-etcd-operator: updated Deployment openshift-etcd-operator/etcd-operator; gate workload-rollout passed in 3.2s\n",
		"gate-failed: stopped; the cluster-version operator is left DISABLED\nnext:\n  recover apply --resume run.journal --yes\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Count(out, "003-apply-deployment-etcd-operator:") != 2 {
		t.Errorf("want one progress line and one finished line for the step:\n%s", out)
	}
	// On a terminal the progress line is redrawn in place and cleared.
	buf.Reset()
	p = NewPlain(&buf, true)
	for _, e := range events() {
		_ = p.Print(e)
	}
	if !strings.Contains(buf.String(), "\r\x1b[K[3/9]") || strings.Contains(buf.String(), "0 of 1 updated\n") {
		t.Errorf("tty progress should be redrawn, not a line: %q", buf.String())
	}
}

func TestPlainShowsTemporaryChangesTheirRevertsAndTheRevertOnStop(t *testing.T) {
	relax := &apply.StepInfo{ID: "002-relax-pdb-web", Index: 2, Total: 4, Action: planfile.ActionRelaxPDB, RevertedBy: "003-revert-web"}
	revert := &apply.StepInfo{ID: "003-revert-web", Index: 3, Total: 4, Action: planfile.ActionRevert, Reverts: "002-relax-pdb-web"}
	change := &apply.ChangeInfo{Operation: "patch", Object: "PodDisruptionBudget ns/web", Diff: "spec.minAvailable: 2 -> (absent)\n", RevertedBy: "003-revert-web", Result: "patched"}
	var buf bytes.Buffer
	p := NewPlain(&buf, false)
	p.ShowDiffs = true
	for _, e := range []apply.Event{
		{Type: apply.EventDiff, Step: relax, Change: change},
		{Type: apply.EventApplied, Step: relax, Change: change},
		{Type: apply.EventStepDone, Step: relax},
		{Type: apply.EventStepDone, Step: revert, Message: "done"},
		{Type: apply.EventReverting, Step: relax, Message: "reverting the temporary change of step 002-relax-pdb-web"},
		{Type: apply.EventReverted, Step: relax, Message: "PodDisruptionBudget ns/web restored to its pre-image"},
		{Type: apply.EventReverted, Step: relax, Error: "PodDisruptionBudget ns/web was edited"},
		{Type: apply.EventDone, Result: &apply.Result{Outcome: apply.OutcomeGateFailed, Message: "stopped",
			Reverted:    []apply.RevertInfo{{Step: "002-relax-pdb-web", Object: "PodDisruptionBudget ns/web"}},
			NotReverted: []apply.RevertInfo{{Step: "004-x", Object: "ConfigMap a/b", Error: "edited", Command: "oc patch ..."}}}},
	} {
		_ = p.Print(e)
	}
	out := buf.String()
	for _, want := range []string{
		"[2/4] 002-relax-pdb-web: patch PodDisruptionBudget ns/web (temporary: restored by step 003-revert-web)\n    spec.minAvailable: 2 -> (absent)\n",
		"[2/4] 002-relax-pdb-web: patched PodDisruptionBudget ns/web (temporary: restored by step 003-revert-web)\n",
		"[3/4] 003-revert-web: done (restores what step 002-relax-pdb-web changed)\n",
		"[2/4] 002-relax-pdb-web: reverted: PodDisruptionBudget ns/web restored to its pre-image\n",
		"[2/4] 002-relax-pdb-web: NOT reverted: PodDisruptionBudget ns/web was edited\n",
		"reverted: step 002-relax-pdb-web's temporary change of PodDisruptionBudget ns/web, back to its pre-image\n",
		"NOT reverted: step 004-x's temporary change of ConfigMap a/b: edited\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}
