package apply_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/printer"
	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/internal/testing/golden"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The JSON-lines event stream (recover apply --events json) is the contract
// scripts read. These tests pin it for whole runs on the real apiserver, from
// the version line to done: the event types and their order, every field's
// name and value. A change to any of it shows as a diff of the golden file.

// TestJSONEventStreamGolden: a completed run of the full fixture plan (every
// action kind of an update plan, every gate kind that passes on the fixture).
func TestJSONEventStreamGolden(t *testing.T) {
	c, ctx := setup(t)
	// A fresh suffix per run (shown as "events"), so a second run in the same
	// control plane (go test -count=2) starts from nothing too.
	sfx := fmt.Sprintf("ev%06d", time.Now().UnixNano()%1000000)
	b, sc := applytest.FullPlan(sfx)
	prepareScenario(t, ctx, c, sc)
	cv := startingClusterVersion(t, c)
	opts := defaults(t)
	opts.Holder = "golden@test"
	p := b.Plan()
	res, events := run(t, ctx, c, p, opts)
	if res.Outcome != apply.OutcomeCompleted {
		t.Fatalf("outcome %s: %s\n%s", res.Outcome, res.Message, dump(events))
	}
	assertStepObjects(t, p, events)
	assertEventStream(t, c, "testdata/events.full.jsonl.golden", events, opts,
		string(cv.UID), "{clusterversion-uid}", // the owner of what the CVO creates
		sfx, "events")
}

// assertStepObjects: an event names its step's object as the plan does
// (plan.Step.Object: the runbook, the table, the TUI); a revert step names the
// object of the step it reverts. (The engine had a function of its own, which
// named a wait's object its own way: "clusteroperator/x" where the runbook has
// none.)
func assertStepObjects(t *testing.T, p *planfile.Plan, events []apply.Event) {
	t.Helper()
	byID := map[string]*planfile.Step{}
	for i := range p.Steps {
		byID[p.Steps[i].ID] = &p.Steps[i]
	}
	for _, ev := range events {
		if ev.Step == nil {
			continue
		}
		s := byID[ev.Step.ID]
		if s.Reverts != "" {
			s = byID[s.Reverts]
		}
		if want := s.Object(); ev.Step.Object != want {
			t.Errorf("%s event of step %s names %q, the plan %q", ev.Type, ev.Step.ID, ev.Step.Object, want)
		}
	}
}

// TestJSONEventStreamGoldenRevertOnStop: a remediation run whose drain gate
// times out with a PodDisruptionBudget relaxed: the gate fails, the engine
// writes the journaled pre-image back (reverting, reverted) and stops with the
// CVO left disabled and the commands to go on.
func TestJSONEventStreamGoldenRevertOnStop(t *testing.T) {
	c, ctx := setup(t)
	pdb := newPDB(t, ctx, c, "web")
	drainingMaster(t, ctx, c)
	startingClusterVersion(t, c)
	p, _, _ := relaxPlan(pdb)
	opts := defaults(t)
	opts.Holder = "golden@test"
	opts.Timeouts = map[planfile.GateKind]time.Duration{planfile.GateNodesSettled: 2 * time.Second}
	res, events := run(t, ctx, c, p, opts)
	if res.Outcome != apply.OutcomeGateFailed {
		t.Fatalf("outcome %s: %s\n%s", res.Outcome, res.Message, dump(events))
	}
	assertEventStream(t, c, "testdata/events.revert-on-stop.jsonl.golden", events, opts,
		string(pdb.UID), "{pdb-uid}")
}

// startingClusterVersion puts back the release ClusterVersion desires when the
// fixture starts, whatever an earlier test's run left there (the preflight
// names it), and returns the ClusterVersion.
func startingClusterVersion(t *testing.T, c *lane) *configv1.ClusterVersion {
	t.Helper()
	ctx := t.Context()
	cvs := c.OSConfig.ConfigV1().ClusterVersions()
	cv, err := applytest.Update(ctx, cvs.Get, cvs.UpdateStatus, "version", func(cv *configv1.ClusterVersion) {
		cv.Status.Desired = configv1.Release{Version: applytest.CurrentVersion, Image: applytest.CurrentImage}
	})
	if err != nil {
		t.Fatal(err)
	}
	return cv
}

// assertEventStream prints events through the JSON-lines printer and compares
// them with the golden file at path. What a run cannot repeat is normalized:
// times, elapsed seconds, resource versions, the run ID, the server, the
// journal's directory, and the old/new pairs in replace. The gates' waiting
// events are left out: their number depends on how fast the fake controllers
// are.
func assertEventStream(t *testing.T, c *lane, path string, events []apply.Event, opts apply.Options, replace ...string) {
	t.Helper()
	var buf bytes.Buffer
	p := printer.NewJSON(&buf, "golden")
	epoch := time.Date(2020, 5, 24, 16, 0, 0, 0, time.UTC)
	runID := ""
	for _, ev := range events {
		if ev.Type == apply.EventWaiting {
			continue
		}
		ev.Time = epoch
		if ev.Run != nil {
			r := *ev.Run
			runID, r.RunID, r.Server = r.RunID, "{run}", "{server}"
			ev.Run = &r
		}
		if ev.Lock != nil {
			l := *ev.Lock
			l.Since = epoch
			ev.Lock = &l
		}
		ev.Gate = timeless(ev.Gate)
		if ev.Request != nil {
			r := *ev.Request
			r.Gate = timeless(r.Gate)
			ev.Request = &r
		}
		if ev.Change != nil {
			ch := *ev.Change
			ch.ResourceVersion = ""
			ev.Change = &ch
		}
		if err := p.Print(ev); err != nil {
			t.Fatal(err)
		}
	}
	if runID == "" {
		t.Fatalf("no run-started event:\n%s", dump(events))
	}
	out := strings.NewReplacer(append([]string{
		strings.TrimSuffix(opts.JournalPath, "run.journal"), "{tmp}/",
		c.env.Config.Host, "{server}",
		runID, "{run}",
	}, replace...)...).Replace(buf.String())
	golden.Assert(t, path, []byte(out))
}

// timeless is g without its elapsed time.
func timeless(g *apply.GateInfo) *apply.GateInfo {
	if g == nil {
		return nil
	}
	c := *g
	c.ElapsedSeconds = 0
	return &c
}
