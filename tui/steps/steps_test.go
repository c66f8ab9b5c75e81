package steps

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/internal/testing/stagedplan"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/internal/testing/golden"
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/tui/internal/tuitest"
	"github.com/openshift-recover/recover/tui/state"
)

// The steps of testPlan.
const (
	stepDisable = "001-disable-cvo"
	stepApply   = "002-apply-namespace-openshift-etcd-operator"
	stepRelax   = "003-relax-pdb-deck"
	stepWait    = "004-wait-drain"
	stepRevert  = "005-revert-deck"
	stepRestore = "006-restore-cvo"
)

// testPlan has a step of each kind the screen tells apart: the CVO's, a
// manifest's, a temporary change (a relaxed PDB) with its revert, and a wait.
func testPlan() *planfile.Plan {
	b := applytest.NewPlan().DisableCVO().
		Apply(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"openshift-etcd-operator"}}`, nil).
		RelaxPDB("ci", "deck", "9f1c", applytest.NodesSettled("worker-0"))
	relax := b.LastID()
	p := b.Wait("drain", &planfile.Gate{Kind: planfile.GateNodesSettled, Nodes: []string{"worker-0"}, Description: "worker-0 drained"}).
		Revert(relax).RestoreCVO().Plan()
	p.Steps[1].Component, p.Steps[1].RunLevel = "etcd-operator", "12"
	p.Steps[2].Change.Before = json.RawMessage(`{"spec":{"minAvailable":2}}`)
	p.Remediations = []planfile.Remediation{{Remedy: planfile.RemedyRelaxPDB, Finding: "DrainBlockedByPDB", Subject: "poddisruptionbudget/ci/deck", Steps: []string{stepRelax, stepWait, stepRevert}}}
	return p
}

// newScreen is the Plan screen over testPlan at w×h, diffs available.
func newScreen(t *testing.T, w, h int) (*Model, *state.Run) {
	t.Helper()
	run := state.New(nil)
	m := New(tuitest.Common(), run)
	m.SetPlan(testPlan())
	m.SetDiffAvailable(true, "")
	m.SetSize(w, h)
	if m.Selected() == nil || m.Selected().ID != stepDisable {
		t.Fatalf("the test plan changed: first step %v", m.Selected())
	}
	return m, run
}

// press sends the keys and returns the messages of the commands they returned.
func press(m *Model, ks ...string) []tea.Msg { return tuitest.Press(m, ks...) }

func selected(m *Model) string {
	if s := m.Selected(); s != nil {
		return s.ID
	}
	return ""
}

// TestCursor: the list keys move the cursor within the list, never past its
// ends; a page is the list's height less its two heading lines.
func TestCursor(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys []string
		want string
	}{
		{"down", []string{"j"}, stepApply},
		{"down twice, up", []string{"j", "j", "k"}, stepApply},
		{"up at the top", []string{"k"}, stepDisable},
		{"bottom", []string{"G"}, stepRestore},
		{"down at the bottom", []string{"G", "j"}, stepRestore},
		{"top", []string{"G", "g"}, stepDisable},
		{"page down", []string{"pgdown"}, stepRevert}, // 80×15: list 6 rows, page 4
		{"page down twice", []string{"pgdown", "pgdown"}, stepRestore},
		{"page up", []string{"G", "pgup"}, stepApply},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := newScreen(t, 80, 15)
			press(m, tc.keys...)
			if got := selected(m); got != tc.want {
				t.Fatalf("selected %s, want %s", got, tc.want)
			}
		})
	}
}

// TestFilter: / gives the filter the keyboard; what is typed matches a step's ID,
// action, component, object, gate kind, remedy or finding; enter keeps it; esc
// clears it.
func TestFilter(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"revert", []string{stepRevert}},
		{"etcd-operator", []string{stepApply}},         // component (and object)
		{"relax-pdb", []string{stepRelax, stepRevert}}, // the remedy both carry
		{"drainblocked", []string{stepRelax}},          // the finding, in any case
		{"nodes-settled", []string{stepRelax, stepWait}},
		{"poddisruptionbudget ci/deck", []string{stepRelax}}, // the object
		{"no such step", nil},
	} {
		t.Run(tc.query, func(t *testing.T) {
			m, _ := newScreen(t, 80, 24)
			press(m, "/")
			press(m, strings.Split(tc.query, "")...)
			if !m.Capturing() {
				t.Fatal("the filter does not have the keyboard while typing")
			}
			press(m, "enter")
			if m.Capturing() {
				t.Fatal("enter did not give the keyboard back")
			}
			var got []string
			for range tc.want {
				got = append(got, selected(m))
				press(m, "j")
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) || (len(tc.want) > 0 && selected(m) != tc.want[len(tc.want)-1]) {
				t.Fatalf("filter %q shows %v, want %v", tc.query, got, tc.want)
			}
			v := m.View()
			if !strings.Contains(v, fmt.Sprintf("filter %q: %d shown", tc.query, len(tc.want))) {
				t.Errorf("the heading does not say the filter:\n%s", v)
			}
			if len(tc.want) == 0 && (m.Selected() != nil || !strings.Contains(v, "no step matches the filter")) {
				t.Errorf("an empty filter result selects %s:\n%s", selected(m), v)
			}
			press(m, "esc")
			if m.Selected() == nil || strings.Contains(m.View(), "shown") {
				t.Fatalf("esc did not clear the filter:\n%s", m.View())
			}
		})
	}
}

// TestPair: the pair key jumps between a temporary change and its revert, clears
// a filter that hides the other one, is offered only where there is a pair, and
// the detail pane names the key.
func TestPair(t *testing.T) {
	for _, tc := range []struct {
		name   string
		keys   []string
		offers bool
		want   string
	}{
		{"no pair", nil, false, stepDisable},
		{"change to revert", []string{"j", "j"}, true, stepRevert},
		{"revert to change", []string{"G", "k"}, true, stepRelax},
		{"filter hides the revert", []string{"/", "d", "r", "a", "i", "n", "b", "enter"}, true, stepRevert},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := newScreen(t, 200, 40)
			press(m, tc.keys...)
			if m.Keys.Pair.Enabled() != tc.offers {
				t.Fatalf("pair offered %v on %s", m.Keys.Pair.Enabled(), selected(m))
			}
			if jumps := strings.Contains(m.View(), "p jumps there"); jumps != tc.offers {
				t.Errorf("the detail pane says the pair key %v, want %v:\n%s", jumps, tc.offers, m.View())
			}
			press(m, "p")
			if got := selected(m); got != tc.want {
				t.Fatalf("after p: %s, want %s", got, tc.want)
			}
			if tc.offers && m.filter.Value != "" {
				t.Errorf("the filter %q still hides steps after the jump", m.filter.Value)
			}
		})
	}
}

// TestDiffRequest: d asks the session for a dry run of the selected step, once
// while it runs; not for a wait step, nor when the session cannot preview.
func TestDiffRequest(t *testing.T) {
	for _, tc := range []struct {
		name    string
		canDiff bool
		keys    []string
		want    []tea.Msg
	}{
		{"apply step", true, []string{"j", "d"}, []tea.Msg{DiffRequestMsg{StepID: stepApply}}},
		{"asked once while loading", true, []string{"j", "d", "d"}, []tea.Msg{DiffRequestMsg{StepID: stepApply}}},
		{"wait step", true, []string{"j", "j", "j", "d"}, nil},
		{"no live cluster", false, []string{"j", "d"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := newScreen(t, 80, 24)
			m.SetDiffAvailable(tc.canDiff, "no diff: this session reads a must-gather")
			got := press(m, tc.keys...)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("messages %v, want %v", got, tc.want)
			}
			if m.Keys.Diff.Enabled() != (tc.want != nil) {
				t.Errorf("diff key enabled %v", m.Keys.Diff.Enabled())
			}
		})
	}
}

// TestDetail: the detail pane says what the selected step does, its status from
// the run state, and its diff as the session reports it.
func TestDetail(t *testing.T) {
	relaxDone := apply.Event{Type: apply.EventStepDone, Step: &apply.StepInfo{ID: stepRelax}}
	for _, tc := range []struct {
		name     string
		keys     []string
		setup    func(m *Model, run *state.Run)
		want     []string
		not      []string
		canDiff  bool
		noDiffIs string
	}{
		{"disable-cvo", nil, nil, []string{"STEP 1/6 001-disable-cvo", "gate      cvo-scaled-down: ", "status    pending",
			"press d for a server-side dry run"}, []string{"MANIFEST"}, true, ""},
		{"manifest", []string{"j"}, nil, []string{"component etcd-operator · level 12", "MANIFEST ", "kind: Namespace"}, nil, true, ""},
		{"temporary change", []string{"j", "j"}, nil, []string{"remedy    relax-pdb: answers DrainBlockedByPDB poddisruptionbudget/ci/deck",
			"object    PodDisruptionBudget ci/deck uid 9f1c", "temporary restored by step 005; p jumps there",
			"change    spec.minAvailable: 2 -> 0", "spec.maxUnavailable: (absent) -> (absent)"}, []string{"reverts"}, true, ""},
		{"revert", []string{"G", "k"}, nil, []string{"reverts   restores what step 003 changed", "restores "}, []string{"temporary"}, true, ""},
		{"wait has no diff", []string{"j", "j", "j"}, nil, []string{"STEP 4/6 004-wait-drain"}, []string{"DIFF AGAINST THE LIVE OBJECT"}, true, ""},
		{"no live cluster", []string{"j"}, nil, []string{"no diff: this session reads a must-gather"}, []string{"press d"}, false, "no diff: this session reads a must-gather"},
		{"status from the run", []string{"j", "j"}, func(_ *Model, run *state.Run) {
			run.Apply(apply.Event{Type: apply.EventRunStarted})
			run.Apply(relaxDone)
		}, []string{"status    done", "STEPS 6 · 1 done"}, []string{"status    pending"}, true, ""},
		{"diff loading", []string{"j"}, func(m *Model, _ *state.Run) { m.SetDiff(stepApply, &Diff{Loading: true}) },
			[]string{"server-side dry run ..."}, []string{"press d"}, true, ""},
		{"diff shown", []string{"j"}, func(m *Model, _ *state.Run) {
			m.SetDiff(stepApply, &Diff{Change: &apply.ChangeInfo{Operation: "create", Object: "Namespace openshift-etcd-operator",
				Diff: "--- live\n+++ plan\n@@ -0,0 +1 @@\n+name: openshift-etcd-operator\n"}})
		}, []string{"create Namespace openshift-etcd-operator (prepared by a server-side dry run)", "+name: openshift-etcd-operator"}, nil, true, ""},
		{"diff failed", []string{"j"}, func(m *Model, _ *state.Run) { m.SetDiff(stepApply, &Diff{Err: "forbidden"}) },
			[]string{"forbidden"}, []string{"press d"}, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, run := newScreen(t, 200, 60)
			m.SetDiffAvailable(tc.canDiff, tc.noDiffIs)
			press(m, tc.keys...)
			if tc.setup != nil {
				tc.setup(m, run)
				m.StatusChanged()
			}
			tuitest.Shows(t, m.View(), tc.want, tc.not)
		})
	}
}

// TestView pins the screen at the two layouts: the list above the details below
// 140 columns, side by side from 140; the temporary change selected.
func TestView(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {160, 30}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			m, _ := newScreen(t, sz[0], sz[1])
			press(m, "j", "j")
			v := m.View()
			lines := strings.Split(v, "\n")
			if len(lines) != sz[1] {
				t.Fatalf("%d lines, want %d", len(lines), sz[1])
			}
			wide := strings.Contains(lines[0], "│")
			if wide != (sz[0] >= wideWidth) {
				t.Errorf("side by side %v at %d columns", wide, sz[0])
			}
			golden.Assert(t, golden.Path(t), []byte(v))
		})
	}
}

// TestStagedPlanShowsItsStages: a staged plan's stages sit above the steps
// (the current one expanded, at most half the screen), the list and the
// details share what is left, and ] expands the next stage; the frame keeps
// the screen's size at both layouts.
func TestStagedPlanShowsItsStages(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {160, 40}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			run := state.New(nil)
			m := New(tuitest.Common(), run)
			p := stagedplan.EUS()
			m.SetPlan(p)
			m.SetDiffAvailable(true, "")
			m.SetSize(sz[0], sz[1])
			first := p.StageSteps(1)[0].ID
			run.Apply(apply.Event{Type: apply.EventStepStarted, Step: &apply.StepInfo{ID: first}})
			m.StatusChanged()
			v := m.View()
			if lines := strings.Split(v, "\n"); len(lines) != sz[1] {
				t.Fatalf("%d lines, want %d", len(lines), sz[1])
			}
			tuitest.Shows(t, v, []string{"STAGES to 4.20.3", "stage 1 of 3 running", "4.18.9  →  4.19.14", "paused", "STEPS 2"}, nil)
			golden.Assert(t, golden.Path(t), []byte(v))
			press(m, "]")
			tuitest.Shows(t, m.View(), []string{"stage2-002-pause-pool-worker", "planned again against the cluster once stage 1 lands"}, nil)
			if selected(m) != p.Steps[0].ID {
				t.Errorf("] moved the step cursor to %s", selected(m))
			}
		})
	}
}
