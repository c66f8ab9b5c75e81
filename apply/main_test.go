package apply_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
	"github.com/openshift-recover/recover/plan/planfile"
)

var env *kubetest.Env

func TestMain(m *testing.M) {
	kubetest.Main(m, kubetest.Options{Workloads: true}, &env)
}

var (
	clusterOnce sync.Once
	cluster     *applytest.Cluster
	clusterErr  error
)

// setup returns the shared fixture cluster, reset, with its fake controllers
// running. Tests that touch the singletons run serially.
func setup(t testing.TB) (*applytest.Cluster, context.Context) {
	t.Helper()
	kubetest.Require(t, env)
	clusterOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cluster, clusterErr = applytest.Setup(ctx, env)
		if clusterErr == nil {
			go cluster.RunFakes(context.Background())
		}
	})
	if clusterErr != nil {
		t.Fatalf("fixture cluster: %v (logs in %s)", clusterErr, env.Dir)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	t.Cleanup(cancel)
	if err := cluster.Reset(ctx); err != nil {
		t.Fatalf("resetting the fixture cluster: %v", err)
	}
	return cluster, ctx
}

// run executes p and returns the result and every event.
func run(t testing.TB, ctx context.Context, p *planfile.Plan, opts apply.Options) (*apply.Result, []apply.Event) {
	t.Helper()
	e, err := apply.New(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	return runWith(t, ctx, e, p, opts, nil)
}

func runWith(t testing.TB, ctx context.Context, e *apply.Engine, p *planfile.Plan, opts apply.Options, each func(apply.Event)) (*apply.Result, []apply.Event) {
	t.Helper()
	if opts.Heartbeat == 0 {
		opts.Heartbeat = -1
	}
	var events []apply.Event
	res, _ := e.Execute(ctx, p, opts, func(ev apply.Event) {
		events = append(events, ev)
		if each != nil {
			each(ev)
		}
	})
	if res == nil {
		t.Fatal("no result")
	}
	return res, events
}

// defaults are the options of a scripted run in a test.
func defaults(t testing.TB) apply.Options {
	return apply.Options{JournalPath: filepath.Join(t.TempDir(), "run.journal"), IHaveABackup: true, AllowStale: true, PlanDigest: "sha256:test", PlanPath: "plan.json"}
}

func count(events []apply.Event, typ apply.EventType) int {
	n := 0
	for _, e := range events {
		if e.Type == typ {
			n++
		}
	}
	return n
}

func dump(events []apply.Event) string {
	var b strings.Builder
	for _, e := range events {
		id := ""
		if e.Step != nil {
			id = e.Step.ID
		}
		b.WriteString(string(e.Type) + " " + id + " " + e.Message + "\n")
	}
	return b.String()
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
