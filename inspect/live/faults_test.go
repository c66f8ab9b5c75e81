package live

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/testing/faultproxy"
	"github.com/openshift-recover/recover/internal/testing/inputcheck"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

// TestInspectUnderFaults inspects the first incident's cluster through the fault
// proxy, many times with different seeds, with small pages so most resource types
// take several requests. The faults are the ones client-go does not retry by
// itself for LISTs (500 and 503 without Retry-After, resets before and after the
// server answered) plus 429 and 2 s latency. Each run must either complete or
// fail with a one-line error naming the server; a completed snapshot must mark
// every resource it could not read as not collected (with a NotCollected finding
// naming it), hold exactly the reference's objects for every resource it did
// read, and never raise a finding the fault-free snapshot does not have. Then one
// resource that never answers is marked not collected, and only it.
func TestInspectUnderFaults(t *testing.T) {
	kubetest.Require(t, env)
	fresh := env.ForTest(t)
	loadMustGather(t, fresh.Config, example1)
	opts := Options{PageSize: 3}
	ref := collect(t, fresh.Config, opts)
	refCounts := counts(ref)
	refFindings := findings(ref)

	runs := faultproxy.Runs(12)
	var injected, completed, failed, partial int
	total := map[faultproxy.Kind]int{}
	for seed := 1; seed <= runs; seed++ {
		p, err := faultproxy.Start(faultproxy.Options{Upstream: fresh.Config, Seed: uint64(seed), Latency: 2 * time.Second, Rates: map[faultproxy.Kind]float64{
			faultproxy.Throttle: 0.04, faultproxy.ServerError: 0.08, faultproxy.Unavailable: 0.08,
			faultproxy.ResetBefore: 0.04, faultproxy.ResetAfter: 0.04, faultproxy.Latency: 0.02,
		}})
		if err != nil {
			t.Fatal(err)
		}
		src, err := New(p.Config(), opts)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		s, err := src.Collect(ctx)
		cancel()
		stats := p.Stats()
		p.Close()
		injected += stats.Injected()
		for k, n := range stats.Faults {
			total[k] += n
		}
		if err != nil {
			failed++
			if pr := inputcheck.LineProblem(err.Error()); pr != "" || !strings.Contains(err.Error(), p.URL) {
				t.Errorf("seed %d: a failed inspection must say which server it could not read, in one line: %v", seed, err)
			}
			continue
		}
		completed++
		notCollected := map[string]bool{}
		for _, f := range s.FindingsWithCode(inspect.CodeNotCollected) {
			notCollected[f.Subject] = true
		}
		missing := 0
		for _, r := range s.Resources {
			subject := "resource/" + r.Key()
			switch {
			case r.State == inspect.Collected && r.Count != refCounts[r.Key()]:
				t.Errorf("seed %d: %s recorded as collected with %d objects; the cluster has %d", seed, r.Key(), r.Count, refCounts[r.Key()])
			case r.State != inspect.Collected && (r.Reason == "" || !notCollected[subject]):
				t.Errorf("seed %d: %s is %s without a reason or a NotCollected finding: %+v", seed, r.Key(), r.State, r)
			case r.State != inspect.Collected:
				missing++
			}
		}
		if missing > 0 {
			partial++
		} else if s.Fingerprint() != ref.Fingerprint() {
			t.Errorf("seed %d: everything was collected but the fingerprint differs from the fault-free one", seed)
		}
		for f := range findings(s) {
			if !refFindings[f] && !strings.HasPrefix(f, inspect.CodeNotCollected+"@") {
				t.Errorf("seed %d: faults invented a finding the cluster does not have: %s", seed, f)
			}
		}
		if pr := inputcheck.SnapshotProblem(s); pr != "" {
			t.Errorf("seed %d: %s", seed, pr)
		}
	}
	// A resource the API server never serves, however often it is retried, is
	// marked not collected and everything else is read.
	p, err := faultproxy.Start(faultproxy.Options{Upstream: fresh.Config, Rates: map[faultproxy.Kind]float64{faultproxy.Unavailable: 1},
		Filter: func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/nodes") }})
	if err != nil {
		t.Fatal(err)
	}
	src, err := New(p.Config(), opts)
	if err != nil {
		t.Fatal(err)
	}
	s, err := src.Collect(context.Background())
	p.Close()
	if err != nil {
		t.Fatalf("one resource down must not fail the inspection: %v", err)
	}
	for _, r := range s.Resources {
		if down := r.Key() == inspect.ResNodes.Key(); down != (r.State != inspect.Collected) || (down && !strings.Contains(r.Reason, "unable to handle")) {
			t.Errorf("with nodes always unavailable: %s is %s (%s)", r.Key(), r.State, r.Reason)
		}
	}
	if len(s.FindingsWithCode(inspect.CodeNotCollected)) != 1 {
		t.Errorf("want exactly one NotCollected finding (nodes), got %d", len(s.FindingsWithCode(inspect.CodeNotCollected)))
	}
	t.Logf("inspect under faults: %d runs, %d faults injected (%v); %d completed (%d with resources marked not collected), %d failed naming the server",
		runs, injected, total, completed, partial, failed)
	if injected == 0 {
		t.Fatal("no fault was injected: the test proves nothing")
	}
}

func counts(s *inspect.Snapshot) map[string]int {
	out := map[string]int{}
	for _, r := range s.Resources {
		out[r.Key()] = r.Count
	}
	return out
}
