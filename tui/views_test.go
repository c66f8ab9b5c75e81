package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"

	"github.com/openshift-recover/recover/internal/testing/golden"
)

// sizes are the terminal sizes every golden is rendered at: the smallest the TUI
// supports and a large one.
var sizes = [][2]int{{80, 24}, {160, 48}}

// checkFrame asserts what every frame must be: exactly the terminal's size.
func checkFrame(t *testing.T, view string, w, h int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != h {
		t.Errorf("frame has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if lw := lipgloss.Width(l); lw != w {
			t.Errorf("line %d is %d cells wide, want %d: %q", i+1, lw, w, l)
		}
	}
}

func incidentSession(t testing.TB) *Session {
	return &Session{
		Source:   "must-gather examples/reconciled-4.3-to-4.4/must-gather",
		Snapshot: incidentSnapshot(t),
		Plan:     incidentPlan(),
		PlanPath: "plan.json",
		ReadOnly: true, ReadOnlyReason: "must-gather session",
	}
}

// TestViews renders every screen in its main states at both sizes and compares
// the frames with the golden files (go test ./tui/ -update rewrites them).
func TestViews(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, m *Model)
	}{
		{"overview", func(*testing.T, *Model) {}},
		{"overview-finding-selected", func(_ *testing.T, m *Model) { press(m, "j", "j") }},
		{"overview-filtered", func(_ *testing.T, m *Model) { press(m, "/", "k", "u", "b", "e", "l", "e", "t", "enter") }},
		{"target", func(_ *testing.T, m *Model) { press(m, "2") }},
		{"target-alternative", func(_ *testing.T, m *Model) { press(m, "2", "j") }},
		{"plan", func(_ *testing.T, m *Model) { press(m, "3", "j", "j") }},
		{"apply-read-only", func(_ *testing.T, m *Model) { press(m, "4") }},
		{"help-read-only", func(_ *testing.T, m *Model) { press(m, "4", "?") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, sz := range sizes {
				t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
					m := newTestModel(t, incidentSession(t), sz[0], sz[1])
					tc.setup(t, m)
					v := m.View()
					checkFrame(t, v, sz[0], sz[1])
					golden.Assert(t, golden.Path(t), []byte(v))
				})
			}
		})
	}
}
