package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/tui/styles"
)

// TestReadOnlyStripsEveryDangerousKey: in a read-only session the keys that change
// the cluster neither act nor appear in the footer or the ? overlay.
func TestReadOnlyStripsEveryDangerousKey(t *testing.T) {
	f := &fakeRunner{}
	s := liveSession(t, f)
	s.ReadOnly, s.ReadOnlyReason = true, "--read-only"
	m := newTestModel(t, s, 160, 48)
	d := newDriver(t, m)
	d.press("4", "a", "y")
	if m.dialog != nil || len(f.options()) != 0 {
		t.Fatal("a started (or offered to start) a run in a read-only session")
	}
	for _, b := range m.c.Keys.Dangerous() {
		if b.Enabled() {
			t.Errorf("dangerous key %q is enabled", b.Help().Desc)
		}
	}
	d.press("?")
	help := m.View()
	for _, desc := range []string{"start apply", "apply step", "abort run", "retry"} {
		if strings.Contains(help, desc) {
			t.Errorf("the ? overlay of a read-only session offers %q", desc)
		}
	}
	if !strings.Contains(help, "READ-ONLY") {
		t.Error("the header does not say READ-ONLY")
	}

	// The same session, not read-only, offers them.
	s2 := liveSession(t, &fakeRunner{})
	m2 := newTestModel(t, s2, 160, 48)
	press(m2, "4", "?")
	if !strings.Contains(m2.View(), "start apply") {
		t.Errorf("a live session's help lacks start apply:\n%s", m2.View())
	}
}

// TestAcceptRiskReplans: a on a risky alternative asks, naming the risk, and yes
// re-plans through the planner with the risk accepted; the new plan is shown.
func TestAcceptRiskReplans(t *testing.T) {
	var asked [][]string
	s := liveSession(t, &fakeRunner{})
	s.PlanPath, s.PlanDigest = "", ""
	s.Replan = func(_ context.Context, _ *inspect.Snapshot, accept []string) (*planfile.Plan, error) {
		asked = append(asked, accept)
		if len(asked) == 2 {
			if !slices.Equal(accept, []string{"AWSOldBootImages"}) {
				t.Errorf("second re-plan asked with %v: an accepted risk is named once", accept)
			}
			return nil, errors.New("the graph has no edge to 4.4.5 any more")
		}
		p := incidentPlan()
		p.Target.Version = "4.4.5"
		p.Target.AcceptedRisks = []planfile.Risk{{Name: "AWSOldBootImages", Message: "Clusters installed on AWS before 4.2 may fail to boot new nodes."}}
		p.Inputs.Accepted = accept
		p.Alternatives = p.Alternatives[:1]
		p.Alternatives[0].Version = "4.4.6"
		return p, nil
	}
	m := newTestModel(t, s, 80, 24)
	d := newDriver(t, m)
	d.press("2")
	if !m.c.Keys.AcceptRisk.Enabled() {
		t.Fatal("accept risk is not offered on a demoted alternative with a risk")
	}
	d.press("j")
	if m.c.Keys.AcceptRisk.Enabled() {
		t.Fatal("accept risk is offered on a blocked alternative")
	}
	d.press("k", "a")
	d.until("the accept dialog", func() bool { return m.dialog != nil })
	if m.dialog == nil || !strings.Contains(flat(m.dialog.View()), "AWSOldBootImages: Clusters installed on AWS before 4.2") {
		t.Fatalf("the accept dialog does not name the risk:\n%s", m.View())
	}
	goldenAt(t, m, "accept-dialog")
	d.answer("y")
	d.until("the re-plan", func() bool { return m.header.Target == "4.4.5" })
	if !slices.Equal(asked[0], []string{"AWSOldBootImages"}) || !slices.Equal(m.session.Accepted, asked[0]) {
		t.Fatalf("planner asked with %v; session accepted %v", asked, m.session.Accepted)
	}
	if m.session.PlanPath != "" || !strings.Contains(m.View(), "AWSOldBootImages") {
		t.Fatalf("the new plan (not saved yet) is not shown with its accepted risk:\n%s", m.View())
	}
	// A failing re-plan keeps the plan and says why.
	d.press("a")
	d.until("the accept dialog", func() bool { return m.dialog != nil })
	d.answer("y")
	d.until("the failed re-plan", func() bool { return strings.Contains(flat(m.View()), "re-planning with --accept") })
	if m.session.Plan.Target.Version != "4.4.5" {
		t.Fatal("a failed re-plan replaced the plan")
	}
}

// TestStartSavesAComputedPlanFirst: a plan computed in the session is saved
// before the engine runs, and the engine gets its path and digest.
func TestStartSavesAComputedPlanFirst(t *testing.T) {
	f := &fakeRunner{}
	s := liveSession(t, f)
	s.PlanPath, s.PlanDigest = "", ""
	s.Options.IHaveABackup = true
	var saved int
	s.SavePlan = func(p *planfile.Plan) (string, string, *planfile.Plan, error) {
		saved++
		if saved == 1 {
			return "", "", nil, errors.New("recover-plan.json: file exists")
		}
		return "recover-plan.json", "sha256:feed", p, nil
	}
	m := newTestModel(t, s, 80, 24)
	d := newDriver(t, m)
	d.press("4", "a")
	d.answer("y")
	d.until("the save error", func() bool { return strings.Contains(m.View(), "file exists") })
	if len(f.options()) != 0 {
		t.Fatal("the engine ran a plan that could not be saved")
	}
	d.press("a")
	d.answer("y")
	d.asked(s.Plan.Steps[0].ID)
	if o := f.options()[0]; o.PlanPath != "recover-plan.json" || o.PlanDigest != "sha256:feed" {
		t.Fatalf("engine options %+v", o)
	}
}

// TestDiffPreviewRunsTheEngineDryRun: d on the Plan screen asks the engine to
// prepare that one step as a dry run and shows its diff.
func TestDiffPreviewRunsTheEngineDryRun(t *testing.T) {
	f := &fakeRunner{}
	m := newTestModel(t, liveSession(t, f), 80, 24)
	d := newDriver(t, m)
	d.press("3", "j", "j", "d")
	id := m.session.Plan.Steps[2].ID
	d.until("the diff", func() bool { df := m.steps.Diff(id); return df != nil && !df.Loading })
	o := f.options()[0]
	if !o.DryRun || o.FromStep != id || len(f.options()) != 1 {
		t.Fatalf("preview options %+v", o)
	}
	if !strings.Contains(m.View(), "+  version: 4.4.4") {
		t.Fatalf("the diff is not shown:\n%s", m.View())
	}
	goldenAt(t, m, "diff")
}

// TestOverviewFilter: / filters the findings as you type; esc clears.
func TestOverviewFilter(t *testing.T) {
	m := newTestModel(t, incidentSession(t), 80, 24)
	press(m, "/", "p", "o", "o", "l", "u", "p")
	if !m.overview.Capturing() {
		t.Fatal("typing a filter released the keyboard")
	}
	press(m, "1", "q") // typed into the filter, not a screen switch or quit
	if m.overview.Filter() != "poolup1q" || m.Active() != ScreenOverview {
		t.Fatalf("filter %q, screen %d", m.overview.Filter(), m.Active())
	}
	press(m, "backspace", "backspace", "enter")
	if f := m.overview.Selected(); f == nil || f.Code != "PoolUpdating" {
		t.Fatalf("filter %q selects %+v", m.overview.Filter(), f)
	}
	want := fmt.Sprintf(`filter "poolup": 2 of %d`, len(m.session.Snapshot.Findings))
	if !strings.Contains(m.View(), want) {
		t.Fatalf("the filter does not say %q:\n%s", want, m.View())
	}
	press(m, "esc")
	if m.overview.Filter() != "" || !strings.Contains(m.overview.View(), "FINDINGS") {
		t.Fatal("esc did not clear the filter")
	}
}

// TestEveryScreenFitsEverySize: at every size from 80×24 up, every screen and the
// help fill the terminal exactly, so nothing scrolls the real terminal.
func TestEveryScreenFitsEverySize(t *testing.T) {
	m := newTestModel(t, liveSession(t, &fakeRunner{}), 80, 24)
	for _, w := range []int{80, 81, 99, 119, 120, 139, 140, 200} {
		for _, h := range []int{24, 25, 39, 40, 60} {
			send(m, teaSize(w, h))
			for _, k := range []string{"1", "2", "3", "4", "?"} {
				press(m, k)
				checkFrame(t, m.View(), w, h)
				if k == "?" {
					press(m, "?")
				}
			}
		}
	}
}

// TestNoColor: NO_COLOR gives frames without a single escape sequence; the same
// terminal without it gets colour.
func TestNoColor(t *testing.T) {
	render := func(env []string) string {
		r := lipgloss.NewRenderer(io.Discard, termenv.WithTTY(true), termenv.WithEnvironment(environ(env)))
		m := New(liveSession(t, &fakeRunner{}), Options{Styles: styles.New(r)})
		send(m, teaSize(100, 30))
		return m.View()
	}
	if v := render([]string{"TERM=xterm-256color", "NO_COLOR=1"}); strings.Contains(v, "\x1b[") {
		t.Errorf("NO_COLOR frame has escape sequences:\n%q", v)
	}
	if v := render([]string{"TERM=xterm-256color"}); !strings.Contains(v, "\x1b[") {
		t.Error("a colour terminal got no colour")
	}
}

// environ is a fixed environment for termenv.
type environ []string

func (e environ) Environ() []string { return e }
func (e environ) Getenv(k string) string {
	for _, kv := range e {
		if name, v, ok := strings.Cut(kv, "="); ok && name == k {
			return v
		}
	}
	return ""
}

// TestReloadFollowsTheCluster: ctrl+r re-reads the cluster; the header's CVO state
// follows the snapshot unless this session's run explains it.
func TestReloadFollowsTheCluster(t *testing.T) {
	zero := int32(0)
	scaledDown := func(context.Context) (*inspect.Snapshot, error) {
		s := incidentSnapshot(t)
		s.CVO.Replicas = &zero
		s.ClusterVersion.Status.Desired.Version = "4.4.4"
		inspect.Refresh(s)
		return s, nil
	}
	s := liveSession(t, &fakeRunner{})
	s.Reload = scaledDown
	m := newTestModel(t, s, 80, 24)
	d := newDriver(t, m)
	d.press("ctrl+r")
	d.until("the reload", func() bool { return strings.Contains(m.header.Claimed, "4.4.4") })
	if got := m.state.CVO.Text(); got != "found scaled to 0" {
		t.Fatalf("after a reload with the CVO at 0 and no run: %q", got)
	}

	// After this session's run disabled it, the same finding is "disabled by recover".
	f := &fakeRunner{}
	s2 := liveSession(t, f)
	s2.Options.IHaveABackup = true
	s2.Reload = scaledDown
	m2 := newTestModel(t, s2, 80, 24)
	d2 := newDriver(t, m2)
	d2.press("4", "a")
	d2.answer("y")
	d2.asked(s2.Plan.Steps[0].ID)
	d2.press("y")
	d2.asked(s2.Plan.Steps[1].ID)
	d2.press("q")
	d2.answer("y")
	d2.finished()
	d2.press("ctrl+r")
	d2.until("the reload", func() bool { return strings.Contains(m2.header.Claimed, "4.4.4") })
	if got := m2.state.CVO.Text(); !strings.HasPrefix(got, "DISABLED by recover") {
		t.Fatalf("after the run disabled the CVO, a reload says %q", got)
	}
}
