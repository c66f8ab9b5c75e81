package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/lab/sim"
	"github.com/openshift-recover/recover/internal/testing/faultproxy"
	"github.com/openshift-recover/recover/internal/testing/recoverbin"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The remediation tests drive the real recover binary, as an admin would: the
// commands a scenario's try lines give, against the simulated cluster.

// cliResult is one finished recover command.
type cliResult struct {
	code           int
	stdout, stderr string
}

func (r cliResult) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// recover runs the recover binary against the cluster (its own API server, no
// proxy) in the test's working directory.
func (c *cluster) recover(args ...string) cliResult {
	c.t.Helper()
	return c.recoverVia(c.kubeconfig, args...)
}

// recoverVia runs the recover binary with another kubeconfig (an audit or fault
// proxy's).
func (c *cluster) recoverVia(kubeconfig string, args ...string) cliResult {
	c.t.Helper()
	cmd := exec.CommandContext(c.ctx, recoverbin.Path(c.t), append([]string{"--kubeconfig", kubeconfig}, args...)...)
	cmd.Dir = c.dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return cliResult{code: recoverbin.ExitCode(err), stdout: stdout.String(), stderr: stderr.String()}
}

// inspectCLI is `recover inspect -o json` and `recover inspect` (the table), once
// the cluster holds still: the snapshot and the wedge summary's first line.
func (c *cluster) inspectCLI() (*inspect.Snapshot, string) {
	c.t.Helper()
	c.settled()
	r := c.recover("inspect", "-o", "json")
	if r.code != 0 {
		c.t.Fatalf("recover inspect -o json: %s", r)
	}
	var snap inspect.Snapshot
	if err := json.Unmarshal([]byte(r.stdout), &snap); err != nil {
		c.t.Fatalf("recover inspect -o json: %v", err)
	}
	table := c.recover("inspect")
	if table.code != 0 {
		c.t.Fatalf("recover inspect: %s", table)
	}
	return &snap, wedgeLine(table.stdout)
}

// wedgeLine is the first line of the table's wedge summary ("1. BLOCKS  Code
// subject"), with its runs of spaces made one.
func wedgeLine(table string) string {
	lines := strings.Split(table, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "WHY THIS CLUSTER IS STUCK") && i+1 < len(lines) {
			return strings.Join(strings.Fields(lines[i+1]), " ")
		}
	}
	return ""
}

// findingCodes are the codes of a snapshot's findings, each once.
func findingCodes(s *inspect.Snapshot) map[string][]string {
	out := map[string][]string{}
	for _, f := range s.Findings {
		out[f.Code] = append(out[f.Code], f.Subject)
	}
	return out
}

// planCLI is `recover plan [args] -o json > plan.json`: the plan, parsed, and its
// path.
func (c *cluster) planCLI(args ...string) (*planfile.Plan, string) {
	c.t.Helper()
	r := c.recover(append([]string{"plan", "-o", "json"}, args...)...)
	if r.code != 0 {
		c.t.Fatalf("recover plan %s: %s", strings.Join(args, " "), r)
	}
	var p planfile.Plan
	if err := json.Unmarshal([]byte(r.stdout), &p); err != nil {
		c.t.Fatalf("recover plan -o json: %v", err)
	}
	path := filepath.Join(c.dir, "plan.json")
	if err := os.WriteFile(path, []byte(r.stdout), 0o600); err != nil {
		c.t.Fatal(err)
	}
	return &p, path
}

// stepShape is a plan's steps as "action[:gate]" strings, in order.
func stepShape(p *planfile.Plan) []string {
	var out []string
	for _, s := range p.Steps {
		v := string(s.Action)
		if s.Gate != nil {
			v += ":" + string(s.Gate.Kind)
		}
		out = append(out, v)
	}
	return out
}

// proc is a running `recover apply --events json`.
type proc struct {
	cmd    *exec.Cmd
	done   chan error
	stderr *strings.Builder

	mu     sync.Mutex
	events []map[string]any
}

// startCLI starts the recover binary with kubeconfig and streams its JSON events
// to onEvent (which may kill the process).
func (c *cluster) startCLI(kubeconfig string, onEvent func(p *proc, ev map[string]any), args ...string) *proc {
	c.t.Helper()
	cmd := exec.Command(recoverbin.Path(c.t), append([]string{"--kubeconfig", kubeconfig}, args...)...)
	cmd.Dir = c.dir
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		c.t.Fatal(err)
	}
	p := &proc{cmd: cmd, done: make(chan error, 1), stderr: &strings.Builder{}}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	})
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var ev map[string]any
			if json.Unmarshal(sc.Bytes(), &ev) != nil {
				continue
			}
			p.mu.Lock()
			p.events = append(p.events, ev)
			p.mu.Unlock()
			if onEvent != nil {
				onEvent(p, ev)
			}
		}
		p.done <- cmd.Wait()
	}()
	return p
}

// wait waits for the process to end and returns its exit code.
func (p *proc) wait(t testing.TB) int {
	t.Helper()
	select {
	case err := <-p.done:
		return recoverbin.ExitCode(err)
	case <-time.After(8 * time.Minute):
		_ = p.cmd.Process.Kill()
		t.Fatalf("recover did not end; stderr:\n%s", p.stderr.String())
		return -1
	}
}

// kill sends SIGKILL (kill -9) and waits until the process is gone.
func (p *proc) kill() {
	_ = p.cmd.Process.Kill()
	waitDead(p.cmd.Process.Pid)
}

// result is the last event's result object.
func (p *proc) result() map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := len(p.events) - 1; i >= 0; i-- {
		if r, ok := p.events[i]["result"].(map[string]any); ok && p.events[i]["type"] == "done" {
			return r
		}
	}
	return nil
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

// stepOf is an event's step ID.
func stepOf(ev map[string]any) string {
	if s, ok := ev["step"].(map[string]any); ok {
		id, _ := s["id"].(string)
		return id
	}
	return ""
}

// releaser lets the simulator go (sim.FastTiming) once the plan's CVO is
// disabled, as the e2e recipe does: until then the cluster holds still for the
// staleness check.
func (c *cluster) releaser(p *planfile.Plan) func(ev map[string]any) {
	hold := ""
	for _, st := range p.Steps {
		if st.Action == planfile.ActionDisableCVO || st.Action == planfile.ActionPausePool {
			hold = st.ID
		}
	}
	if hold == "" {
		// The plan keeps the CVO at the wheel (no disable-cvo, no pause):
		// nothing to hold the simulator for.
		c.sim.SetTiming(sim.FastTiming)
		return func(map[string]any) {}
	}
	var once sync.Once
	return func(ev map[string]any) {
		if (ev["type"] == "step-done" || ev["type"] == "skipped") && stepOf(ev) == hold {
			once.Do(func() { c.sim.SetTiming(sim.FastTiming) })
		}
	}
}

// auditProxy starts a fault-free proxy in front of the cluster's API server
// (faultproxy logs every request it forwards: an audit of what recover did),
// with hook, and writes a kubeconfig for it.
func (c *cluster) auditProxy(name string, hook func(faultproxy.Entry, faultproxy.Stage) bool) (*faultproxy.Proxy, string) {
	c.t.Helper()
	return c.faultProxy(name, faultproxy.Options{Hook: hook})
}

// applyAudited runs recover apply --yes of the saved plan at path through an
// auditing proxy, letting the CVO go on when the plan restores it (releaser),
// and fails the test unless the run completes. It returns the proxy (its log
// is what the run wrote) and the run's journal.
func (c *cluster) applyAudited(p *planfile.Plan, path string) (*faultproxy.Proxy, string) {
	c.t.Helper()
	audit, kc := c.auditProxy("apply", nil)
	journalPath := filepath.Join(c.dir, "run.journal")
	release := c.releaser(p)
	pr := c.startCLI(kc, func(_ *proc, ev map[string]any) { release(ev) },
		"apply", "--plan", path, "--journal", journalPath, "--i-have-a-backup", "--yes", "--events", "json")
	if code := pr.wait(c.t); code != 0 || pr.result()["outcome"] != "completed" {
		c.t.Fatalf("recover apply: exit %d, result %v\n%s", code, pr.result(), pr.stderr)
	}
	return audit, journalPath
}

// faultProxy starts a proxy with o in front of the cluster's API server.
func (c *cluster) faultProxy(name string, o faultproxy.Options) (*faultproxy.Proxy, string) {
	c.t.Helper()
	o.Upstream = c.cfg
	p, err := faultproxy.Start(o)
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(p.Close)
	kc := filepath.Join(c.dir, name+".kubeconfig")
	if err := p.WriteKubeconfig(kc); err != nil {
		c.t.Fatal(err)
	}
	return p, kc
}

// writes are the requests of an audit log that changed the cluster: forwarded,
// answered below 300, not a dry run, not a read; as "METHOD path" (the lock's
// Lease left out: recover's own bookkeeping).
func writes(log []faultproxy.Entry) []string {
	var out []string
	for _, e := range log {
		switch e.Method {
		case "GET", "HEAD", "OPTIONS":
			continue
		}
		// The apply lock (a Lease, created then deleted: assertChangedOnly
		// checks it is gone) is recover's own bookkeeping, not a change.
		if !e.Forwarded || e.DryRun || e.Status >= 300 || strings.Contains(e.Path, "/leases/") || strings.HasSuffix(e.Path, "/leases") {
			continue
		}
		if strings.HasSuffix(e.Path, "/selfsubjectaccessreviews") {
			continue
		}
		out = append(out, e.Method+" "+e.Path)
	}
	return out
}

// journalSummary is what `recover journal -o json` says about a run's changes.
type journalSummary struct {
	State string `json:"state"`
	Plan  struct {
		Mode    string            `json:"mode"`
		Outcome *planfile.Outcome `json:"outcome"`
	} `json:"plan"`
	CVO struct {
		Disabled bool `json:"disabled"`
		Restored bool `json:"restored"`
	} `json:"cvo"`
	Changes []struct {
		Step       string                     `json:"step"`
		Action     string                     `json:"action"`
		Temporary  bool                       `json:"temporary"`
		PreImage   map[string]json.RawMessage `json:"preImage"`
		After      map[string]json.RawMessage `json:"after"`
		State      string                     `json:"state"`
		RestoredBy string                     `json:"restoredBy"`
		Resume     string                     `json:"resume"`
		Restore    string                     `json:"restore"`
		Created    bool                       `json:"created"`
		Remove     string                     `json:"remove"`
		Object     *struct {
			Kind, Namespace, Name string
		} `json:"object"`
	} `json:"changes"`
	Next []string `json:"next"`
}

// journalCLI is `recover journal JOURNAL -o json`.
func (c *cluster) journalCLI(path string) journalSummary {
	c.t.Helper()
	r := c.recover("journal", path, "-o", "json")
	if r.code != 0 {
		c.t.Fatalf("recover journal: %s", r)
	}
	var s journalSummary
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
		c.t.Fatalf("recover journal -o json: %v\n%s", err, r.stdout)
	}
	return s
}

// raw is a JSON value's compact text, for comparing pre-images.
func raw(m map[string]json.RawMessage) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		var b bytes.Buffer
		if err := json.Compact(&b, v); err != nil {
			out[k] = string(v)
			continue
		}
		out[k] = b.String()
	}
	return out
}

// within bounds a wait in a test that must end on a condition.
func within(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, 5*time.Minute)
}
