package header

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"

	"github.com/openshift-recover/recover/tui/common"
	"github.com/openshift-recover/recover/tui/internal/tuitest"
	"github.com/openshift-recover/recover/tui/state"
)

// newHeader is a read-only session's header with every segment, at width w.
func newHeader(w int) *Model {
	return &Model{
		Common:   withWidth(tuitest.Common(), w),
		Source:   "must-gather ./mg",
		Claimed:  "4.4.3 Completed",
		Target:   "4.4.4",
		Run:      &state.Run{CVO: state.CVO{State: state.CVORunning, Replicas: 1}},
		ReadOnly: "must-gather session",
		Tabs:     []string{"Overview", "Target", "Plan", "Apply"},
	}
}

func withWidth(c *common.Common, w int) *common.Common { c.Width = w; return c }

// lines renders the header, checks that both lines are exactly its width, and
// returns them without the padding.
func lines(t *testing.T, m *Model) (top, tabs string) {
	t.Helper()
	ls := strings.Split(m.View(), "\n")
	if len(ls) != Height {
		t.Fatalf("%d lines, want %d", len(ls), Height)
	}
	for i, l := range ls {
		if w := lipgloss.Width(l); w != m.Width {
			t.Errorf("line %d is %d cells, want %d: %q", i+1, w, m.Width, l)
		}
	}
	return strings.TrimRight(ls[0], " "), strings.TrimRight(ls[1], " ")
}

// TestSegmentsDropByPriority: as the terminal narrows the source goes first, then
// the claim, the target, the title and READ-ONLY; the CVO's state stays to the
// last, cut when nothing else is left. The order never changes.
func TestSegmentsDropByPriority(t *testing.T) {
	for _, tc := range []struct {
		width int
		want  string
	}{
		{120, "recover │ claims 4.4.3 Completed │ target 4.4.4 │ CVO running (1) │  READ-ONLY  │ must-gather ./mg"},
		{98, "recover │ claims 4.4.3 Completed │ target 4.4.4 │ CVO running (1) │  READ-ONLY  │ must-gather ./mg"},
		{97, "recover │ claims 4.4.3 Completed │ target 4.4.4 │ CVO running (1) │  READ-ONLY"},
		{79, "recover │ claims 4.4.3 Completed │ target 4.4.4 │ CVO running (1) │  READ-ONLY"},
		{78, "recover │ target 4.4.4 │ CVO running (1) │  READ-ONLY"},
		{54, "recover │ target 4.4.4 │ CVO running (1) │  READ-ONLY"},
		{53, "recover │ CVO running (1) │  READ-ONLY"},
		{39, "recover │ CVO running (1) │  READ-ONLY"},
		{38, "CVO running (1) │  READ-ONLY"},
		{29, "CVO running (1) │  READ-ONLY"},
		{28, "CVO running (1)"},
		{15, "CVO running (1)"},
		{10, "CVO runni…"},
	} {
		top, _ := lines(t, newHeader(tc.width))
		if top != tc.want {
			t.Errorf("at %d cells:\n got %q\nwant %q", tc.width, top, tc.want)
		}
	}
}

// TestTopLine: the CVO's state as the run state says it, the target or the
// remediation, READ-ONLY only in a read-only session; the order stays the same
// whichever segments are there.
func TestTopLine(t *testing.T) {
	orig := int32(1)
	for _, tc := range []struct {
		name string
		edit func(m *Model)
		want string
	}{
		{"everything", func(*Model) {}, "recover │ claims 4.4.3 Completed │ target 4.4.4 │ CVO running (1) │  READ-ONLY  │ must-gather ./mg"},
		{"may apply", func(m *Model) { m.ReadOnly = "" }, "recover │ claims 4.4.3 Completed │ target 4.4.4 │ CVO running (1) │ must-gather ./mg"},
		{"no plan", func(m *Model) { m.Target = "" }, "recover │ claims 4.4.3 Completed │ CVO running (1) │  READ-ONLY  │ must-gather ./mg"},
		{"no claim, no plan", func(m *Model) { m.Claimed, m.Target = "", "" }, "recover │ CVO running (1) │  READ-ONLY  │ must-gather ./mg"},
		{"remediation", func(m *Model) { m.Target, m.Remediation = "", true },
			"recover │ claims 4.4.3 Completed │ remediation (no new release) │ CVO running (1) │  READ-ONLY  │ must-gather ./mg"},
		{"disabled by recover", func(m *Model) { m.Run.CVO = state.CVO{State: state.CVODisabled, Original: &orig} },
			"recover │ claims 4.4.3 Completed │ target 4.4.4 │  CVO DISABLED by recover, ran 1 before  │  READ-ONLY  │ must-gather ./mg"},
		{"found disabled", func(m *Model) { m.Run.CVO = state.CVO{State: state.CVOFoundDisabled} },
			"recover │ claims 4.4.3 Completed │ target 4.4.4 │  CVO found scaled to 0  │  READ-ONLY  │ must-gather ./mg"},
		{"restoring", func(m *Model) { m.Run.CVO = state.CVO{State: state.CVORestoring, Replicas: 1} },
			"recover │ claims 4.4.3 Completed │ target 4.4.4 │ CVO restoring (recover) │  READ-ONLY  │ must-gather ./mg"},
		{"unknown", func(m *Model) { m.Run.CVO = state.CVO{} }, "recover │ claims 4.4.3 Completed │ target 4.4.4 │ CVO unknown │  READ-ONLY  │ must-gather ./mg"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newHeader(160)
			tc.edit(m)
			if top, _ := lines(t, m); top != tc.want {
				t.Errorf("\n got %q\nwant %q", top, tc.want)
			}
		})
	}
}

// TestTabLine: the tabs are labelled with the keymap's screen keys, the shown
// one bracketed; a notice follows; the temporary changes in place are named as
// fully as the width allows, down to their count.
func TestTabLine(t *testing.T) {
	temp := []string{"PodDisruptionBudget ci/deck relaxed by step 005 — restored by step 007", "PodDisruptionBudget ci/web relaxed by step 006 — restored by step 008"}
	for _, tc := range []struct {
		name  string
		width int
		edit  func(m *Model)
		want  string
	}{
		{"overview shown", 120, func(*Model) {}, "[1 Overview]  2 Target   3 Plan   4 Apply"},
		{"apply shown", 120, func(m *Model) { m.Active = 3 }, " 1 Overview   2 Target   3 Plan  [4 Apply]"},
		{"notice", 120, func(m *Model) { m.Active, m.Notice = 1, "decision pending: 4" },
			" 1 Overview  [2 Target]  3 Plan   4 Apply    decision pending: 4"},
		{"temporary in full", 140, func(m *Model) { m.Temporary = temp },
			"[1 Overview]  2 Target   3 Plan   4 Apply    TEMPORARY PodDisruptionBudget ci/deck relaxed by step 005 — restored by step 007 +1"},
		{"temporary shortened", 90, func(m *Model) { m.Temporary = temp },
			"[1 Overview]  2 Target   3 Plan   4 Apply    TEMP PodDisruptionBudget ci/deck +1"},
		{"temporary counted", 60, func(m *Model) { m.Temporary = temp },
			"[1 Overview]  2 Target   3 Plan   4 Apply    2 TEMP"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newHeader(tc.width)
			tc.edit(m)
			if _, tabs := lines(t, m); tabs != tc.want {
				t.Errorf("\n got %q\nwant %q", tabs, tc.want)
			}
		})
	}
}
