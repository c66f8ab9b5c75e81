package apply_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/internal/testing/faultproxy"
)

// TestApplyUnderFaults runs the full test plan through the fault proxy: 500 and
// 503 without Retry-After and connection resets before and after the server
// acted (none of which client-go retries for a write), 429, 2 s latency, and cut
// watch streams under the gates. Every run must either complete or stop with a
// resumable outcome, its journal saying whether the CVO is left disabled; the
// test resumes until the plan completes. Then the state equals a fault-free
// run's, no step is journaled done before its gate passed, and the API server
// performed the create-only create and the delete at most once each.
func TestApplyUnderFaults(t *testing.T) {
	c, ctx := setup(t)
	want := referenceState(t, ctx, c)
	seeds := faultproxy.Runs(3)
	var stops, injected int
	total := map[faultproxy.Kind]int{}
	outcomes := map[apply.Outcome]int{}
	for seed := 1; seed <= seeds; seed++ {
		if err := c.Reset(ctx); err != nil {
			t.Fatal(err)
		}
		b, sc := applytest.FullPlan(fmt.Sprintf("flt%d", seed))
		prepareScenario(t, ctx, c, sc)
		p, err := faultproxy.Start(faultproxy.Options{Upstream: c.env.Config, Seed: uint64(seed), Latency: 2 * time.Second, Rates: map[faultproxy.Kind]float64{
			faultproxy.Throttle: 0.02, faultproxy.ServerError: 0.03, faultproxy.Unavailable: 0.03,
			faultproxy.ResetBefore: 0.02, faultproxy.ResetAfter: 0.02, faultproxy.Latency: 0.01, faultproxy.CutWatch: 0.3,
		}})
		if err != nil {
			t.Fatal(err)
		}
		engine, err := apply.New(p.Config())
		if err != nil {
			t.Fatal(err)
		}
		opts := defaults(t)
		opts.LeaseDuration = 15 * time.Second
		completed := false
		for attempt := 1; attempt <= 25 && !completed; attempt++ {
			runCtx, cancel := context.WithTimeout(ctx, 3*time.Minute)
			res, events := runWith(t, runCtx, engine, b.Plan(), opts, nil)
			cancel()
			outcomes[res.Outcome]++
			switch {
			case res.Outcome == apply.OutcomeCompleted:
				completed = true
			case !res.Outcome.Resumable() && res.Outcome != apply.OutcomeLocked && res.Outcome != apply.OutcomeRefused:
				t.Fatalf("seed %d attempt %d: outcome %s is neither completed nor resumable: %s\n%s", seed, attempt, res.Outcome, res.Message, dump(events))
			default:
				stops++
				t.Logf("seed %d attempt %d: stopped (%s), resuming: %s", seed, attempt, res.Outcome, res.Message)
				assertCVOStateReported(t, c, res)
				if res.Outcome == apply.OutcomeLocked {
					time.Sleep(opts.LeaseDuration) // a lock a faulted run could not release expires
				}
			}
			if _, err := os.Stat(opts.JournalPath); err == nil {
				opts.Resume = true
			} else if !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			} else {
				opts.BreakLock = true // the stopped run never wrote a journal; its lock may linger
			}
		}
		stats := p.Stats()
		log := p.Log()
		p.Close()
		injected += stats.Injected()
		for k, n := range stats.Faults {
			total[k] += n
		}
		if !completed {
			t.Fatalf("seed %d: the plan never completed under faults (%s)", seed, stats)
		}
		assertState(t, fmt.Sprintf("seed %d, against the fault-free run", seed), finalState(t, ctx, c, sc), want)
		assertAtMostOnce(t, opts.JournalPath, b.Plan())
		assertGatesBeforeDone(t, opts.JournalPath, b.Plan())
		assertAuditedAtMostOnce(t, fmt.Sprintf("seed %d: ", seed), log)
	}
	t.Logf("apply under faults: %d plans, %d faults injected (%v); %d stops resumed (outcomes %v); every plan completed with the fault-free state",
		seeds, injected, total, stops, outcomes)
	if injected == 0 {
		t.Fatal("no fault was injected: the test proves nothing")
	}
}

// assertCVOStateReported checks that a stopped run that leaves the CVO scaled
// down says so in its result (and so on the CLI's last line).
func assertCVOStateReported(t *testing.T, c *lane, res *apply.Result) {
	t.Helper()
	d, err := c.Kube.AppsV1().Deployments("openshift-cluster-version").Get(context.Background(), "cluster-version-operator", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *d.Spec.Replicas == 0 && !res.CVODisabled {
		t.Errorf("the run stopped (%s) with the CVO scaled to 0 and does not say so: %s", res.Outcome, res.Message)
	}
}

// TestRemediationUnderFaults runs the relax-pdb plan through the fault proxy,
// which answers 500, 503 and 429 and resets connections before and after the
// server acted on the budget's reads and patches. Every patch that reaches the
// server must have its intent as the journal's last record, a relax must find the
// budget not yet relaxed and a restore find it relaxed (never a patch made
// twice); every run completes or stops resumably (reverting on its way out),
// and the resumed plan ends with the budget exactly as before.
func TestRemediationUnderFaults(t *testing.T) {
	c, ctx := setup(t)
	seeds := faultproxy.Runs(3)
	injected := 0
	for seed := 1; seed <= seeds; seed++ {
		if err := c.Reset(ctx); err != nil {
			t.Fatal(err)
		}
		p, relax, _, before := relaxCase(t, ctx, c)
		opts := defaults(t)
		var mu sync.Mutex
		var problems []string
		hook := func(e faultproxy.Entry, stage faultproxy.Stage) bool {
			if stage != faultproxy.Before || !pdbPatch("web")(e) {
				return false
			}
			mu.Lock()
			defer mu.Unlock()
			last := lastRecord(t, opts.JournalPath)
			switch {
			case last.Type != journal.TypeIntent:
				problems = append(problems, fmt.Sprintf("a patch reached the server after a %s record, not its intent", last.Type))
			case last.Intent.RevertOf == "" && relaxed(t, ctx, c, "web"):
				problems = append(problems, "a relax patch of a budget already relaxed")
			case last.Intent.RevertOf != "" && !relaxed(t, ctx, c, "web"):
				problems = append(problems, "a restore patch of a budget not relaxed")
			}
			return false
		}
		pdbPath := "/namespaces/" + remedyNS + "/poddisruptionbudgets/web"
		proxy, err := faultproxy.Start(faultproxy.Options{Upstream: c.env.Config, Seed: uint64(seed), Hook: hook,
			Filter: func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, pdbPath) },
			Rates: map[faultproxy.Kind]float64{faultproxy.ServerError: 0.15, faultproxy.Unavailable: 0.15, faultproxy.Throttle: 0.1,
				faultproxy.ResetBefore: 0.1, faultproxy.ResetAfter: 0.15}})
		if err != nil {
			t.Fatal(err)
		}
		engine, err := apply.New(proxy.Config())
		if err != nil {
			t.Fatal(err)
		}
		completed := false
		for attempt := 1; attempt <= 25 && !completed; attempt++ {
			res, events := runWith(t, ctx, engine, p, opts, func(ev apply.Event) {
				if ev.Type == apply.EventWaiting && ev.Step != nil && ev.Step.ID == relax {
					drainCompletes(t, ctx, c)
				}
			})
			switch {
			case res.Outcome == apply.OutcomeCompleted:
				completed = true
			case !res.Outcome.Resumable():
				t.Fatalf("seed %d attempt %d: %s is not resumable: %s\n%s", seed, attempt, res.Outcome, res.Message, dump(events))
			default:
				t.Logf("seed %d attempt %d: %s, resuming (reverted %d, not reverted %d)", seed, attempt, res.Outcome, len(res.Reverted), len(res.NotReverted))
				if len(res.NotReverted) == 0 && relaxed(t, ctx, c, "web") {
					t.Errorf("seed %d: the run stopped, said it reverted everything, and left the budget relaxed", seed)
				}
			}
			opts.Resume = true
		}
		injected += proxy.Stats().Injected()
		proxy.Close()
		if !completed {
			t.Fatalf("seed %d: the plan never completed under faults", seed)
		}
		for _, pr := range problems {
			t.Errorf("seed %d: %s", seed, pr)
		}
		if got := pdbSpec(t, ctx, c, "web"); !reflect.DeepEqual(got, before) {
			t.Errorf("seed %d: the budget is not restored exactly:\n got %+v\nwant %+v", seed, got, before)
		}
		if st := mustLoad(t, opts.JournalPath).State(); len(st.Outstanding()) != 0 || !st.Finished {
			t.Errorf("seed %d: journal finished %v, outstanding %+v", seed, st.Finished, st.Outstanding())
		}
	}
	if injected == 0 {
		t.Fatal("no fault was injected: the test proves nothing")
	}
	t.Logf("remediation under faults: %d plans, %d faults injected around the budget's reads and patches", seeds, injected)
}

// TestCVODeploymentReadRetriesTransientFailures answers the first two GETs of
// the CVO Deployment with 503 (no Retry-After, so client-go does not retry
// them): the step loop prepares disable-cvo again from the live state, and the
// run completes instead of stopping there.
func TestCVODeploymentReadRetriesTransientFailures(t *testing.T) {
	c, ctx := setup(t)
	if err := c.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	failed := 0
	p, err := faultproxy.Start(faultproxy.Options{Upstream: c.env.Config,
		Rates: map[faultproxy.Kind]float64{faultproxy.Unavailable: 1},
		Filter: func(r *http.Request) bool {
			mu.Lock()
			defer mu.Unlock()
			if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/namespaces/openshift-cluster-version/deployments/cluster-version-operator") || failed >= 2 {
				return false
			}
			failed++
			return true
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	engine, err := apply.New(p.Config())
	if err != nil {
		t.Fatal(err)
	}
	res, events := runWith(t, ctx, engine, applytest.NewPlan().DisableCVO().RestoreCVO().Plan(), defaults(t), nil)
	if res.Outcome != apply.OutcomeCompleted {
		t.Fatalf("outcome %s: %s\n%s", res.Outcome, res.Message, dump(events))
	}
	if n := p.Stats().Injected(); n != 2 {
		t.Fatalf("%d faults injected, want the two 503s", n)
	}
}
