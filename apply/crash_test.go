package apply_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/internal/testing/faultproxy"
	"github.com/openshift-recover/recover/internal/testing/recoverbin"
	"github.com/openshift-recover/recover/plan/planfile"
)

// crashPoint is one moment at which the crash matrix kills `recover apply`.
type crashPoint struct {
	name string
	// event kills the process when it prints this JSON event for a step whose ID
	// contains stepPart.
	event, stepPart string
	// request kills the process when the API server is about to receive (Before,
	// the request is then dropped) or has answered (After) the nth (from 1)
	// request this matches.
	request func(e faultproxy.Entry) bool
	nth     int
	stage   faultproxy.Stage
	// orStarted also kills at the start of a step whose ID contains it (a wait
	// step waits from its start; a gate met at its first check emits no waiting).
	orStarted string
	// tear cuts the journal's last record in half after the kill, as a crash
	// while writing it leaves it.
	tear bool
}

func req(method, pathSuffix, name string) func(e faultproxy.Entry) bool {
	return func(e faultproxy.Entry) bool {
		return !e.DryRun && e.Method == method && strings.HasSuffix(e.Path, pathSuffix) && (name == "" || e.Name == name)
	}
}

var (
	cvoPatch  = req(http.MethodPatch, "/namespaces/openshift-cluster-version/deployments/cluster-version-operator", "")
	seedPost  = req(http.MethodPost, "/configmaps", "seed")
	obsDelete = req(http.MethodDelete, "/configmaps/obsolete", "")
)

// crashPoints are the kinds of moments of the matrix.
var crashPoints = []crashPoint{
	{name: "before a mutation: diff shown, no intent", event: "diff", stepPart: "configmap-seed"},
	{name: "intent journaled, create not sent", request: seedPost, nth: 1, stage: faultproxy.Before},
	{name: "create-only object created, answer lost", request: seedPost, nth: 1, stage: faultproxy.After},
	{name: "delete done, answer lost", request: obsDelete, nth: 1, stage: faultproxy.After},
	{name: "CVO disable: intent journaled, scale-down not sent", request: cvoPatch, nth: 1, stage: faultproxy.Before},
	{name: "CVO disable: scaled down, answer lost", request: cvoPatch, nth: 1, stage: faultproxy.After},
	{name: "during a gate's wait", event: "waiting", stepPart: "-", orStarted: "-wait-"},
	{name: "gate passed, step not yet journaled done", event: "gate-passed", stepPart: "customresourcedefinition"},
	{name: "pool paused, answer lost", request: req(http.MethodPatch, "/machineconfigpools/master", ""), nth: 1, stage: faultproxy.After},
	{name: "desired update set, answer lost", request: req(http.MethodPut, "/clusterversions/version", ""), nth: 1, stage: faultproxy.After},
	{name: "CVO restore: scale-up not sent", request: cvoPatch, nth: 2, stage: faultproxy.Before},
	{name: "CVO restore: scaled up, answer lost", request: cvoPatch, nth: 2, stage: faultproxy.After},
	{name: "while writing the journal: intent torn", request: seedPost, nth: 1, stage: faultproxy.Before, tear: true},
	{name: "while writing the journal: outcome torn", event: "applied", stepPart: "secret-token", tear: true},
}

// TestCrashMatrix kills a real `recover apply` process with SIGKILL at each kind
// of moment (crashPoints), then resumes it with `recover apply --resume`. Both
// processes talk to the API server through faultproxy, which injects no fault here
// but audits every request and lets the test kill at a precise request. After
// each crash: if the CVO is scaled down, the journal says so (recover journal);
// after the resume the state equals an uninterrupted run's, the journal is
// finished with the CVO restored, every step with a gate is journaled done only
// after its gate passed, and the API server received at most one create of the
// create-only object and at most one delete of the deleted one.
//
// The cases run side by side, each on a lane of its own (setup resets it);
// their objects are named after the case (FullPlan's suffix).
func TestCrashMatrix(t *testing.T) {
	for i, cp := range crashPoints {
		t.Run(cp.name, func(t *testing.T) {
			c, ctx := setup(t)
			want := referenceState(t, ctx, c)
			b, sc := applytest.FullPlan(fmt.Sprintf("crash%d", i))
			prepareScenario(t, ctx, c, sc)
			dir := t.TempDir()
			planPath := b.Write(t, dir)
			journalPath := filepath.Join(dir, "run.journal")

			first := crashRun(t, c, dir, cp, func(ev map[string]any, kill func()) {
				if cp.event != "" && ev["type"] == cp.event && strings.Contains(stepOf(ev), cp.stepPart) ||
					cp.orStarted != "" && ev["type"] == "step-started" && strings.Contains(stepOf(ev), cp.orStarted) {
					kill()
				}
			}, "apply", "--plan", planPath, "--journal", journalPath, "--yes", "--i-have-a-backup", "--allow-stale", "--events", "json")
			if cp.tear {
				tearLastRecord(t, journalPath)
			}
			assertCVOHonest(t, c, journalPath)

			second, kc2 := auditProxy(t, c, dir, "resume", nil)
			_, done, stderr := startRecover(t, nil, "--kubeconfig", kc2, "apply", "--resume", journalPath, "--yes", "--events", "json")
			if err := <-done; err != nil {
				t.Fatalf("resume: exit %d: %s", recoverbin.ExitCode(err), stderr.String())
			}
			assertState(t, "after crash and resume", finalState(t, ctx, c, sc), want)
			assertAtMostOnce(t, journalPath, b.Plan())
			assertGatesBeforeDone(t, journalPath, b.Plan())
			assertAuditedAtMostOnce(t, "", append(first.Log(), second.Log()...))
			if st := mustLoad(t, journalPath).State(); !st.Finished || st.CVO.Disabled {
				t.Errorf("journal after resume: finished %v, CVO %+v", st.Finished, st.CVO)
			}
		})
	}
}

// crashRun runs `recover apply` (args) through an audit proxy and kills it
// with SIGKILL at the crash point: when the API server is about to receive
// (faultproxy.Before: the request is then dropped) or has answered
// (faultproxy.After) the cp.nth request cp.request matches, or when onEvent,
// which sees every JSON event, calls kill. It returns the proxy, whose log
// holds the run's requests, once the process is dead, and fails t when the run
// ended before its crash point.
func crashRun(t *testing.T, c *lane, dir string, cp crashPoint, onEvent func(ev map[string]any, kill func()), args ...string) *faultproxy.Proxy {
	t.Helper()
	return crashRunAs(t, c.env.Config, dir, cp, onEvent, args...)
}

// crashRunAs is crashRun with the API server reached as upstream's identity.
func crashRunAs(t *testing.T, upstream *rest.Config, dir string, cp crashPoint, onEvent func(ev map[string]any, kill func()), args ...string) *faultproxy.Proxy {
	t.Helper()
	var (
		mu      sync.Mutex
		cmd     *exec.Cmd
		matches int
		killed  = make(chan struct{})
		once    sync.Once
	)
	kill := func() {
		once.Do(func() {
			mu.Lock()
			p := cmd.Process
			mu.Unlock()
			_ = p.Kill()
			waitDead(p.Pid)
			close(killed)
		})
	}
	var hook func(faultproxy.Entry, faultproxy.Stage) bool
	if cp.request != nil {
		hook = func(e faultproxy.Entry, stage faultproxy.Stage) bool {
			if !cp.request(e) {
				return false
			}
			mu.Lock()
			if stage == faultproxy.Before {
				matches++
			}
			hit := matches == cp.nth && stage == cp.stage
			mu.Unlock()
			if hit {
				kill()
			}
			return hit && stage == faultproxy.Before
		}
	}
	proxy, kc := auditProxyFor(t, upstream, dir, "first", hook)
	mu.Lock()
	var (
		done   <-chan error
		stderr *strings.Builder
	)
	cmd, done, stderr = startRecover(t, func(ev map[string]any) { onEvent(ev, kill) }, append([]string{"--kubeconfig", kc}, args...)...)
	mu.Unlock()
	err := <-done
	select {
	case <-killed:
	case <-time.After(10 * time.Second):
		t.Fatalf("the run ended (exit %d) before reaching the crash point: %s", recoverbin.ExitCode(err), stderr.String())
	}
	return proxy
}

// auditProxy starts a fault-free proxy in front of lane c's API server with
// hook, and writes a kubeconfig for it.
func auditProxy(t *testing.T, c *lane, dir, name string, hook func(faultproxy.Entry, faultproxy.Stage) bool) (*faultproxy.Proxy, string) {
	t.Helper()
	return auditProxyFor(t, c.env.Config, dir, name, hook)
}

// auditProxyFor starts a fault-free proxy in front of upstream.
func auditProxyFor(t *testing.T, upstream *rest.Config, dir, name string, hook func(faultproxy.Entry, faultproxy.Stage) bool) (*faultproxy.Proxy, string) {
	t.Helper()
	p, err := faultproxy.Start(faultproxy.Options{Upstream: upstream, Hook: hook})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	kc := filepath.Join(dir, name+".kubeconfig")
	if err := p.WriteKubeconfig(kc); err != nil {
		t.Fatal(err)
	}
	return p, kc
}

// waitDead waits until a killed child is gone or a zombie.
func waitDead(pid int) {
	for i := 0; i < 1000; i++ {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return
		}
		if f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:])); len(f) > 0 && (f[0] == "Z" || f[0] == "X") {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// tearLastRecord cuts the journal's last record in half, without its newline.
func tearLastRecord(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	body := bytes.TrimSuffix(data, []byte("\n"))
	start := bytes.LastIndexByte(body, '\n') + 1
	last := body[start:]
	if err := os.WriteFile(path, append(data[:start:start], last[:len(last)/2]...), 0o600); err != nil {
		t.Fatal(err)
	}
}

// assertCVOHonest checks, after a crash, that a scaled-down CVO is one the journal
// (as recover journal JOURNAL... reports it) says is disabled.
func assertCVOHonest(t *testing.T, c *lane, journalArgs ...string) {
	t.Helper()
	d, err := c.Kube.AppsV1().Deployments("openshift-cluster-version").Get(t.Context(), "cluster-version-operator", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := recoverbin.Run(t, nil, append(append([]string{"journal"}, journalArgs...), "-o", "json")...)
	if code != 0 {
		t.Fatalf("recover journal after the crash: exit %d: %s", code, errOut)
	}
	var s struct {
		CVO  journal.CVOState `json:"cvo"`
		Next []string         `json:"next"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if *d.Spec.Replicas == 0 && (!s.CVO.Disabled || !strings.Contains(strings.Join(s.Next, "\n"), "oc scale")) {
		t.Errorf("the CVO is scaled to 0 but the journal does not say it is disabled nor how to restore it: %s", out)
	}
}

// assertGatesBeforeDone checks that no step is journaled done unless every gate
// it waits for (its plan gate, and the CVO's own gate for the CVO steps) passed
// after the step's last change.
func assertGatesBeforeDone(t *testing.T, path string, p *planfile.Plan) {
	t.Helper()
	want := map[string][]string{}
	for _, s := range p.Steps {
		var kinds []string
		switch s.Action {
		case planfile.ActionDisableCVO:
			kinds = append(kinds, string(planfile.GateCVOScaledDown))
		case planfile.ActionRestoreCVO:
			kinds = append(kinds, string(planfile.GateCVORunning))
		}
		if s.Gate != nil && (len(kinds) == 0 || kinds[0] != string(s.Gate.Kind)) {
			kinds = append(kinds, string(s.Gate.Kind))
		}
		want[s.ID] = kinds
	}
	passed := map[string]map[string]bool{}
	for _, r := range mustLoad(t, path).Records {
		switch r.Type {
		case journal.TypeIntent:
			passed[r.Step] = nil
		case journal.TypeGate:
			if passed[r.Step] == nil {
				passed[r.Step] = map[string]bool{}
			}
			passed[r.Step][r.Gate.Kind] = r.Gate.Result == "passed"
		case journal.TypeStep:
			if r.Status != journal.StepDone {
				continue
			}
			for _, k := range want[r.Step] {
				if !passed[r.Step][k] {
					t.Errorf("step %s journaled done without its %s gate passing after its last change", r.Step, k)
				}
			}
		}
	}
}

// assertState compares a run's final state with the reference, key by key.
func assertState(t testing.TB, label string, got, want map[string]any) {
	t.Helper()
	for k, v := range want {
		if !reflect.DeepEqual(got[k], v) {
			t.Errorf("%s: %s differs:\n got %v\nwant %v", label, k, got[k], v)
		}
	}
}

// assertAuditedAtMostOnce checks, in the proxy's audit log, that the API server
// performed the create of the full plan's create-only ConfigMap and the delete of
// its obsolete ConfigMap at most once each (dry runs do not count).
func assertAuditedAtMostOnce(t testing.TB, label string, log []faultproxy.Entry) {
	t.Helper()
	for what, match := range map[string]func(faultproxy.Entry) bool{"create of the create-only ConfigMap": seedPost, "delete of the obsolete ConfigMap": obsDelete} {
		var done []faultproxy.Entry
		for _, e := range log {
			if match(e) && e.Forwarded && e.Status < 300 {
				done = append(done, e)
			}
		}
		if len(done) > 1 {
			t.Errorf("%sthe API server performed the %s %d times: %+v", label, what, len(done), done)
		}
	}
}

// remedyCrashPoints are the moments of a temporary change at which the
// remediation crash matrix kills `recover apply`.
var remedyCrashPoints = []crashPoint{
	{name: "relax intent journaled, patch not sent", request: pdbPatch("web"), nth: 1, stage: faultproxy.Before},
	{name: "budget relaxed, answer lost", request: pdbPatch("web"), nth: 1, stage: faultproxy.After},
	{name: "during the nodes-settled wait", event: "waiting", stepPart: "relax-pdb"},
	{name: "revert intent journaled, patch not sent", request: pdbPatch("web"), nth: 2, stage: faultproxy.Before},
	{name: "budget restored, answer lost", request: pdbPatch("web"), nth: 2, stage: faultproxy.After},
}

// TestCrashMatrixRemediation kills a real `recover apply` of a relax-pdb plan
// with SIGKILL at each moment of remedyCrashPoints (kill -9 leaves no time to
// revert), checks that recover journal then calls a relaxed budget outstanding
// with the commands to resume or restore it, resumes, and checks that the
// budget ends exactly as before the relax, the journal finished with nothing
// outstanding, and the API server saw exactly one relax and one restore: never
// a patch made twice, never one against a changed object.
//
// The cases run side by side, each on a lane of its own (setup resets it).
func TestCrashMatrixRemediation(t *testing.T) {
	for _, cp := range remedyCrashPoints {
		t.Run(cp.name, func(t *testing.T) {
			c, ctx := setup(t)
			p, relax, _, before := relaxCase(t, ctx, c)
			dir := t.TempDir()
			planPath := (&applytestPlan{p}).write(t, dir)
			journalPath := filepath.Join(dir, "run.journal")

			first := crashRun(t, c, dir, cp, func(ev map[string]any, kill func()) {
				if ev["type"] == "waiting" && strings.Contains(stepOf(ev), "relax-pdb") {
					if cp.event == "waiting" {
						kill()
						return
					}
					drainCompletes(t, ctx, c)
				}
			}, "apply", "--plan", planPath, "--journal", journalPath, "--yes", "--i-have-a-backup", "--allow-stale", "--events", "json")
			assertChangeHonest(t, ctx, c, relax, journalPath)

			second, kc2 := auditProxy(t, c, dir, "resume", nil)
			_, done, stderr := startRecover(t, func(ev map[string]any) {
				if ev["type"] == "waiting" && strings.Contains(stepOf(ev), "relax-pdb") {
					drainCompletes(t, ctx, c)
				}
			}, "--kubeconfig", kc2, "apply", "--resume", journalPath, "--yes", "--events", "json")
			if err := <-done; err != nil {
				t.Fatalf("resume: exit %d: %s", recoverbin.ExitCode(err), stderr.String())
			}
			if got := pdbSpec(t, ctx, c, "web"); !reflect.DeepEqual(got, before) {
				t.Errorf("after the crash and the resume the budget is not restored exactly:\n got %+v\nwant %+v", got, before)
			}
			st := mustLoad(t, journalPath).State()
			if s := st.Step(relax); !st.Finished || st.CVO.Disabled || s.ChangeOutstanding || len(st.Outstanding()) != 0 {
				t.Errorf("journal after resume: finished %v, CVO %+v, relax %+v", st.Finished, st.CVO, s)
			}
			assertGatesBeforeDone(t, journalPath, p)
			var patched []faultproxy.Entry
			for _, e := range append(first.Log(), second.Log()...) {
				if pdbPatch("web")(e) && e.Forwarded && e.Status < 300 {
					patched = append(patched, e)
				}
			}
			if len(patched) != 2 {
				t.Errorf("the API server applied %d patches of the budget, want exactly 2 (one relax, one restore): %+v", len(patched), patched)
			}
		})
	}
}

// applytestPlan writes a hand-built plan like applytest.Builder.Write.
type applytestPlan struct{ p *planfile.Plan }

func (a *applytestPlan) write(t *testing.T, dir string) string {
	t.Helper()
	data, err := json.MarshalIndent(a.p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// assertChangeHonest checks, after a crash, that a relaxed budget is one
// recover journal reports outstanding, with the resume and restore commands.
func assertChangeHonest(t *testing.T, ctx context.Context, c *lane, relax string, journalArgs ...string) {
	t.Helper()
	code, out, errOut := recoverbin.Run(t, nil, append(append([]string{"journal"}, journalArgs...), "-o", "json")...)
	if code != 0 {
		t.Fatalf("recover journal after the crash: exit %d: %s", code, errOut)
	}
	var s struct {
		Changes []struct {
			Step, State, Resume, Restore string
		} `json:"changes"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if !relaxed(t, ctx, c, "web") {
		return
	}
	for _, ch := range s.Changes {
		if ch.Step == relax && ch.State == "outstanding" && strings.HasPrefix(ch.Resume, "recover apply ") && strings.Contains(ch.Restore, "oc patch poddisruptionbudget/web") {
			return
		}
	}
	t.Errorf("the budget is relaxed but recover journal does not say it is outstanding with the commands: %s", out)
}
