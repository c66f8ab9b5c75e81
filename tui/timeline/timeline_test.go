package timeline

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/mustgather"
	"github.com/openshift-recover/recover/internal/testing/golden"
	"github.com/openshift-recover/recover/tui/common"
	"github.com/openshift-recover/recover/tui/keymap"
	"github.com/openshift-recover/recover/tui/styles"
)

func newScreen(s *inspect.Snapshot, w, h int) *Model {
	m := New(&common.Common{Styles: styles.Plain(), Keys: keymap.Default(), Now: time.Now})
	m.SetSnapshot(s)
	m.SetSize(w, h)
	return m
}

// example reads the BZ1838497 example: the CVO's, the installers' and the
// daemons' logs beside incident 1's objects.
func example(t *testing.T) *inspect.Snapshot {
	t.Helper()
	// go test runs in the package's directory (and -trimpath leaves runtime.Caller
	// no absolute path to start from).
	root := filepath.Join("..", "..")
	s, err := mustgather.New(filepath.Join(root, "examples", "bz1838497-logs", "must-gather")).Collect(context.Background())
	if err != nil {
		t.Fatalf("reading the example must-gather: %v", err)
	}
	return s
}

func keyMsg(s string) tea.KeyMsg {
	switch s {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// TestViews renders the example at two sizes, with an entry selected and with
// a filter, against golden files.
func TestViews(t *testing.T) {
	s := example(t)
	for _, tc := range []struct {
		name string
		w, h int
		keys []string
	}{
		{"top", 100, 30, nil},
		{"narrow", 80, 24, nil},
		{"reconciling-selected", 120, 30, []string{"/", "Reconciling", "enter"}},
		{"bottom", 120, 30, []string{"G"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newScreen(s, tc.w, tc.h)
			for _, k := range tc.keys {
				m.Update(keyMsg(k))
			}
			v := m.View()
			if got := len(strings.Split(v, "\n")); got != tc.h {
				t.Errorf("the view has %d lines, want %d", got, tc.h)
			}
			golden.Assert(t, golden.Path(t), []byte(v))
		})
	}
}

// TestSelectedEntrySaysWhatItProves: the Reconciling sync of the abandoned update
// is marked, its detail names its log line and the cause that cites it.
func TestSelectedEntrySaysWhatItProves(t *testing.T) {
	s := example(t)
	m := newScreen(s, 140, 40)
	for _, k := range []string{"/", "in state Reconciling", "enter"} {
		m.Update(keyMsg(k))
	}
	e := m.Selected()
	if e == nil || !strings.Contains(e.Text, "Reconciling") {
		t.Fatalf("selected %+v", e)
	}
	v := m.View()
	for _, want := range []string{"◆ ", "cluster-version-operator/current.log:15", "proves: CVOAbandonedUpdate clusterversion/version", "cause #1 CVOAbandonedUpdate"} {
		if !strings.Contains(v, want) {
			t.Errorf("missing %q in\n%s", want, v)
		}
	}
}

// TestSetSnapshotChangesNothing: the screen shows what inspect computed.
func TestSetSnapshotChangesNothing(t *testing.T) {
	s := &inspect.Snapshot{}
	v := newScreen(s, 80, 10).View()
	if s.Timeline != nil || s.Findings != nil {
		t.Fatal("the screen computed the timeline")
	}
	if !strings.Contains(v, "not analyzed") {
		t.Fatalf("an unanalyzed snapshot is not said to be:\n%s", v)
	}
}
