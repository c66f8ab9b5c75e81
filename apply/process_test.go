package apply_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/internal/testing/recoverbin"
)

var (
	refOnce  sync.Once
	refState map[string]any
)

// referenceState is the final state of an uninterrupted run of the full plan.
func referenceState(t testing.TB, ctx context.Context, c *lane) map[string]any {
	t.Helper()
	refOnce.Do(func() {
		b, sc := applytest.FullPlan("pref")
		prepareScenario(t, ctx, c, sc)
		if res, events := run(t, ctx, c, b.Plan(), defaults(t)); res.Outcome != apply.OutcomeCompleted {
			t.Fatalf("uninterrupted run: %s\n%s", res.Message, dump(events))
		}
		refState = finalState(t, ctx, c, sc)
		if err := c.Reset(ctx); err != nil {
			t.Fatal(err)
		}
	})
	if refState == nil {
		t.Fatal("no reference state")
	}
	return refState
}

// startRecover runs the recover binary and streams its JSON events to onEvent.
// args name the cluster (--kubeconfig: a lane's, or a proxy's in front of it):
// there is no default, so that no run reaches a cluster the test did not mean.
func startRecover(t testing.TB, onEvent func(map[string]any), args ...string) (*exec.Cmd, <-chan error, *strings.Builder) {
	t.Helper()
	if !slices.Contains(args, "--kubeconfig") {
		t.Fatalf("startRecover %q: no --kubeconfig", args)
	}
	cmd := exec.Command(recoverbin.Path(t), args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var ev map[string]any
			if json.Unmarshal(sc.Bytes(), &ev) == nil && onEvent != nil {
				onEvent(ev)
			}
		}
		done <- cmd.Wait()
	}()
	return cmd, done, &stderr
}

func stepOf(ev map[string]any) string {
	if s, ok := ev["step"].(map[string]any); ok {
		id, _ := s["id"].(string)
		return id
	}
	return ""
}

// TestKilledAndInterruptedProcessesResume runs the real recover binary, stops it
// with kill -9 and with SIGINT at randomly chosen steps, resumes it with
// --resume, and compares the final state with an uninterrupted run's.
func TestKilledAndInterruptedProcessesResume(t *testing.T) {
	c, ctx := setup(t)
	want := referenceState(t, ctx, c)
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewPCG(uint64(seed), 11))
	t.Logf("seed %d", seed)
	for i, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGINT} {
		if err := c.Reset(ctx); err != nil {
			t.Fatal(err)
		}
		b, sc := applytest.FullPlan(fmt.Sprintf("proc%d", i))
		prepareScenario(t, ctx, c, sc)
		dir := t.TempDir()
		planPath := b.Write(t, dir)
		journalPath := filepath.Join(dir, "run.journal")
		steps := b.Plan().Steps
		stopAt := steps[rng.IntN(len(steps)-1)].ID
		when := []string{"step-started", "applied", "waiting"}[rng.IntN(3)]
		t.Logf("%v at %s of %s", sig, when, stopAt)
		var once sync.Once
		var cmd *exec.Cmd
		signalled := make(chan struct{})
		cmd, done, stderr := startRecover(t, func(ev map[string]any) {
			typ, _ := ev["type"].(string)
			// "waiting" only happens for gated steps: fall back to step-done.
			if stepOf(ev) == stopAt && (typ == when || typ == "step-done") {
				once.Do(func() {
					_ = cmd.Process.Signal(sig)
					close(signalled)
				})
			}
		}, "--kubeconfig", c.env.Kubeconfig, "apply", "--plan", planPath, "--journal", journalPath, "--yes", "--i-have-a-backup", "--allow-stale", "--events", "json")
		err := <-done
		select {
		case <-signalled:
		default:
			t.Fatalf("the run ended before step %s (exit %d): %s", stopAt, recoverbin.ExitCode(err), stderr.String())
		}
		switch sig {
		case syscall.SIGKILL:
			if code := recoverbin.ExitCode(err); code != -1 {
				t.Fatalf("kill -9: exit %d", code)
			}
		case syscall.SIGINT:
			if code := recoverbin.ExitCode(err); code != 10 && code != 0 {
				t.Fatalf("SIGINT: exit %d, want 10 (aborted, resumable): %s", code, stderr.String())
			}
			if recoverbin.ExitCode(err) == 10 && (!strings.Contains(stderr.String(), "interrupted") || (stopAt != steps[0].ID && (!strings.Contains(stderr.String(), "left DISABLED") || !strings.Contains(stderr.String(), "next: recover apply --resume")))) {
				t.Errorf("SIGINT: stderr should say the run was interrupted and the CVO is left disabled: %s", stderr.String())
			}
		}
		j, err := journal.Load(journalPath)
		if err != nil {
			t.Fatalf("the journal must stay readable after %v: %v", sig, err)
		}
		if sig == syscall.SIGINT && j.State().LastStop == nil && !j.State().Finished {
			t.Errorf("SIGINT: the journal should record the stop")
		}

		_, done, stderr = startRecover(t, nil, "--kubeconfig", c.env.Kubeconfig, "apply", "--resume", journalPath, "--yes", "--events", "json")
		if err := <-done; err != nil {
			t.Fatalf("resume after %v: exit %d: %s", sig, recoverbin.ExitCode(err), stderr.String())
		}
		got := finalState(t, ctx, c, sc)
		if !reflect.DeepEqual(got, want) {
			for k, v := range want {
				if !reflect.DeepEqual(got[k], v) {
					t.Errorf("%v: %s differs:\n got %v\nwant %v", sig, k, got[k], v)
				}
			}
		}
		assertAtMostOnce(t, journalPath, b.Plan())
		if st := mustLoad(t, journalPath).State(); !st.Finished || st.CVO.Disabled {
			t.Errorf("%v: journal after resume: finished %v, CVO %+v", sig, st.Finished, st.CVO)
		}
	}
}

func mustLoad(t testing.TB, path string) *journal.Journal {
	t.Helper()
	j, err := journal.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return j
}
