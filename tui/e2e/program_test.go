package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/inspect/live"
	"github.com/openshift-recover/recover/internal/lab/sim"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/graph"
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/tui"
	"github.com/openshift-recover/recover/tui/dialog"
	"github.com/openshift-recover/recover/tui/state"
	"github.com/openshift-recover/recover/tui/styles"
)

var env *kubetest.Env

func TestMain(m *testing.M) {
	kubetest.Main(m, kubetest.Options{Workloads: true}, &env)
}

// probe wraps the TUI's model so the test can wait for a state (the engine asks
// about a step, the run ended) before it presses the next key, exactly as a
// person reads the screen first.
type probe struct {
	inner   *tui.Model
	mu      sync.Mutex
	state   tui.State
	changed chan struct{}
	// width and height are the terminal's; bad is the first frame that did not
	// fit it.
	width, height int
	bad           string
}

func newProbe(m *tui.Model) *probe {
	return &probe{inner: m, state: m.State(), changed: make(chan struct{})}
}

func (p *probe) Init() tea.Cmd { return p.inner.Init() }

func (p *probe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := p.inner.Update(msg)
	p.mu.Lock()
	if ws, ok := msg.(tea.WindowSizeMsg); ok {
		p.width, p.height = ws.Width, ws.Height
	}
	p.state = p.inner.State()
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
	return p, cmd
}

// View renders the frame and checks it fills the terminal exactly: a frame
// taller or wider than the terminal scrolls it, and the renderer's line diffing
// then paints over the wrong lines.
func (p *probe) View() string {
	v := p.inner.View()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.width > 0 && p.bad == "" {
		lines := strings.Split(v, "\n")
		if len(lines) != p.height {
			p.bad = fmt.Sprintf("a frame of %d lines in a %d-line terminal:\n%s", len(lines), p.height, v)
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w != p.width && p.bad == "" {
				p.bad = fmt.Sprintf("line %d is %d cells wide in a %d-cell terminal: %q", i+1, w, p.width, l)
			}
		}
	}
	return v
}

// wait blocks until cond holds for the model's state.
func (p *probe) wait(ctx context.Context, t *testing.T, what string, cond func(tui.State) bool) tui.State {
	t.Helper()
	for {
		p.mu.Lock()
		st, ch := p.state, p.changed
		p.mu.Unlock()
		if cond(st) {
			return st
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v; last state %+v\n%s", what, ctx.Err(), st, p.inner.View())
		}
	}
}

func key(k string) tea.KeyMsg {
	if k == "enter" {
		return tea.KeyMsg{Type: tea.KeyEnter}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// lab is the first incident's scenario on a fresh API server, with the plan the
// planner makes for it from the example graph and payload.
type lab struct {
	sim      *sim.Sim
	env      *kubetest.Env
	plan     *planfile.Plan
	planPath string
	digest   string
	dir      string
}

func startLab(ctx context.Context, t *testing.T) *lab {
	t.Helper()
	kubetest.Require(t, env)
	root, err := kubetest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	example := filepath.Join(root, "examples", "reconciled-4.3-to-4.4")
	fresh := env.ForTest(t)
	s, err := sim.Run(ctx, fresh.Config, example, sim.Options{Timing: &sim.FastTiming})
	if err != nil {
		t.Fatalf("starting the scenario: %v", err)
	}
	t.Cleanup(s.Stop)

	src, err := live.New(fresh.Config, live.Options{})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := src.Collect(ctx)
	if err != nil {
		t.Fatalf("inspecting the simulated cluster: %v", err)
	}
	g, err := graph.Load(ctx, graph.Options{Graph: filepath.Join(example, "graph.json"), GraphData: filepath.Join(example, "graph-data"), Channel: "stable-4.4"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Make(ctx, plan.Options{Snapshot: snap, Graph: g, Payload: plan.PayloadDir{Dir: filepath.Join(example, "releases", "4.4.4")}})
	if err != nil {
		t.Fatalf("planning: %v", err)
	}
	dir := t.TempDir()
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	lp, digest, err := planfile.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return &lab{sim: s, env: fresh, plan: lp, planPath: path, digest: digest, dir: dir}
}

// session is what 'recover tui --plan plan.json' builds on the lab's cluster.
// The fake CVO reconciles 4.4.3 until the plan disables it, so the cluster moves
// between planning and applying: staleness is not what this test is about.
func (l *lab) session(t *testing.T, journalPath string) *tui.Session {
	t.Helper()
	cfg := rest.CopyConfig(l.env.Config)
	cfg.WarningHandler = rest.NoWarnings{} // the example payload's deprecated fields are noise here
	engine, err := apply.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &tui.Session{
		Source: "live " + l.env.Config.Host, Plan: l.plan, PlanPath: l.planPath, PlanDigest: l.digest, Engine: engine,
		Options: apply.Options{JournalPath: journalPath, AllowStale: true, IHaveABackup: true, Heartbeat: time.Second},
	}
}

func (l *lab) cvoReplicas(ctx context.Context, t *testing.T) int32 {
	t.Helper()
	kube := kubernetes.NewForConfigOrDie(l.env.Config)
	d, err := kube.AppsV1().Deployments("openshift-cluster-version").Get(ctx, "cluster-version-operator", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Spec.Replicas == nil {
		return 1
	}
	return *d.Spec.Replicas
}

// TestProgramConfirmSkipAbortResume runs the real program on the simulated
// incident: start (the dialog), confirm disable-cvo, skip the next change,
// confirm three more, abort (asked again; the CVO is left disabled, and the
// engine's resume and restore commands are on the screen), quit; then a second
// session resumes the journal and confirms every remaining change to the end,
// which hands the cluster back to a running CVO at 4.4.4.
func TestProgramConfirmSkipAbortResume(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	l := startLab(ctx, t)
	journalPath := filepath.Join(l.dir, "run.journal")

	// First session: up to the abort.
	m := tui.New(l.session(t, journalPath), tui.Options{Styles: styles.Plain(), Context: ctx})
	pr := newProbe(m)
	tm := teatest.NewTestModel(t, pr, teatest.WithInitialTermSize(120, 40))
	tm.Send(key("4"))
	tm.Send(key("a"))
	pr.wait(ctx, t, "the start dialog", func(s tui.State) bool { return s.Dialog == dialog.Start })
	tm.Send(key("y"))

	answered := 0
	var skipped string
	for {
		st := pr.wait(ctx, t, "a question", func(s tui.State) bool { return s.Pending != nil || s.Phase == state.Finished })
		if st.Phase == state.Finished {
			t.Fatalf("the run ended before the abort: %+v", st.Result)
		}
		req := st.Pending
		if req.Kind != apply.RequestStep {
			t.Fatalf("the engine asked %s about %s: %s", req.Kind, req.Step.ID, req.Message)
		}
		switch {
		case answered == 0:
			if req.Step.ID != l.plan.Steps[0].ID {
				t.Fatalf("first question is about %s, want %s", req.Step.ID, l.plan.Steps[0].ID)
			}
			tm.Send(key("y"))
		case answered == 1:
			skipped = req.Step.ID
			tm.Send(key("s"))
		case answered < 5:
			tm.Send(key("y"))
		default:
			tm.Send(key("q"))
			pr.wait(ctx, t, "the abort dialog", func(s tui.State) bool { return s.Dialog == dialog.Abort })
			if !strings.Contains(m.View(), "stays DISABLED") {
				t.Errorf("the abort dialog does not say the CVO stays disabled:\n%s", m.View())
			}
			tm.Send(key("y"))
		}
		answered++
		if answered > 5 {
			break
		}
		pr.wait(ctx, t, "the answer", func(s tui.State) bool { return s.Pending != req })
	}
	st := pr.wait(ctx, t, "the aborted run", func(s tui.State) bool { return s.Phase == state.Finished })
	res := st.Result
	if res.Outcome != apply.OutcomeAborted || !res.CVODisabled || res.StepsSkipped != 1 {
		t.Fatalf("result %+v", res)
	}
	if len(res.Next) == 0 || !strings.Contains(res.Next[0], "recover apply --resume") || !strings.Contains(res.Next[0], journalPath) {
		t.Fatalf("next commands %q", res.Next)
	}
	if got := l.cvoReplicas(ctx, t); got != 0 {
		t.Fatalf("after the abort the CVO runs %d replicas, want 0 (disabled)", got)
	}
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return strings.Contains(string(b), "NEXT") && strings.Contains(string(b), "oc scale deployment/cluster-version-operator -n openshift-cluster-version")
	}, teatest.WithDuration(time.Minute))
	tm.Send(key("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(time.Minute))
	if r := m.Close(); r == nil || r.Outcome != apply.OutcomeAborted {
		t.Fatalf("Close returned %+v", r)
	}

	// Second session: --resume JOURNAL.
	j, err := journal.Load(journalPath)
	if err != nil {
		t.Fatal(err)
	}
	if st := j.State().Step(skipped); st == nil || st.Status != journal.StepSkipped {
		t.Fatalf("the journal does not record %s as skipped: %+v", skipped, st)
	}
	s2 := l.session(t, journalPath)
	s2.Resume, s2.Journal = true, j.State()
	m2 := tui.New(s2, tui.Options{Styles: styles.Plain(), Context: ctx})
	if got := m2.State().CVO; !strings.Contains(got, "DISABLED") {
		t.Fatalf("a resumed session's header says the CVO is %q", got)
	}
	pr2 := newProbe(m2)
	tm2 := teatest.NewTestModel(t, pr2, teatest.WithInitialTermSize(80, 24))
	tm2.Send(key("a"))
	pr2.wait(ctx, t, "the resume dialog", func(s tui.State) bool { return s.Dialog == dialog.Start })
	tm2.Send(key("y"))
	retries := 0
	for {
		st := pr2.wait(ctx, t, "a question or the end", func(s tui.State) bool { return s.Pending != nil || s.Phase == state.Finished })
		if st.Phase == state.Finished {
			break
		}
		req := st.Pending
		if req.Step.ID == skipped {
			t.Fatalf("the resumed run asks again about %s, which the journal records as skipped", skipped)
		}
		switch req.Kind {
		case apply.RequestStep:
			tm2.Send(key("y"))
		default:
			// A step or gate failed (an operator wrote the object meanwhile):
			// what a person does is retry, a few times.
			if retries++; retries > 5 {
				t.Fatalf("the engine asked %s about %s %d times: %s", req.Kind, req.Step.ID, retries, req.Message)
			}
			t.Logf("retrying %s after: %s", req.Step.ID, req.Message)
			tm2.Send(key("r"))
		}
		pr2.wait(ctx, t, "the answer", func(s tui.State) bool { return s.Pending != req })
	}
	res2 := pr2.wait(ctx, t, "the result", func(s tui.State) bool { return s.Result != nil }).Result
	if res2.Outcome != apply.OutcomeCompleted || res2.CVODisabled {
		t.Fatalf("resumed run: %+v", res2)
	}
	if got := pr2.wait(ctx, t, "the header", func(tui.State) bool { return true }).CVO; !strings.HasPrefix(got, "restored") {
		t.Errorf("header CVO after the run: %q", got)
	}
	if got := l.cvoReplicas(ctx, t); got != 1 {
		t.Errorf("after the run the CVO runs %d replicas, want 1", got)
	}
	cv, err := configclient.NewForConfigOrDie(l.env.Config).ConfigV1().ClusterVersions().Get(ctx, "version", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cv.Spec.DesiredUpdate == nil || cv.Spec.DesiredUpdate.Version != "4.4.4" {
		t.Errorf("desiredUpdate %+v, want 4.4.4", cv.Spec.DesiredUpdate)
	}
	tm2.Send(key("q"))
	tm2.WaitFinished(t, teatest.WithFinalTimeout(time.Minute))
	m2.Close()
	for _, p := range []*probe{pr, pr2} {
		if p.bad != "" {
			t.Error(p.bad)
		}
	}
}
