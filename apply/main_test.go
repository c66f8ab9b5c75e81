package apply_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
	"github.com/openshift-recover/recover/plan/planfile"
)

// rootEnv is the package's control plane. Tests run on the lanes (setup),
// each a kube-apiserver of its own started from rootEnv; only the tests that
// start their own servers (rootEnv.Fresh) use it directly.
var rootEnv *kubetest.Env

func TestMain(m *testing.M) {
	parallelForLanes()
	kubetest.Main(m, kubetest.Options{Workloads: true}, &rootEnv)
}

// run executes p on lane c and returns the result and every event.
func run(t testing.TB, ctx context.Context, c *lane, p *planfile.Plan, opts apply.Options) (*apply.Result, []apply.Event) {
	t.Helper()
	e, err := apply.New(c.env.Config)
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
