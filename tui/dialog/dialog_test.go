package dialog

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/key"

	"github.com/openshift-recover/recover/tui/common"
	"github.com/openshift-recover/recover/tui/internal/tuitest"
	"github.com/openshift-recover/recover/tui/keymap"
	"github.com/openshift-recover/recover/tui/styles"
)

func newDialog() *Model {
	c := &common.Common{Width: 80, Height: 24, Styles: styles.Plain(), Keys: keymap.Default(), Now: time.Now}
	return &Model{Common: c, Kind: Abort, Title: "Abort the run?", Body: []string{"The run stops."}, YesText: "abort", NoText: "keep running", Data: 7}
}

func TestUpdateAnswers(t *testing.T) {
	for _, tc := range []struct {
		key      string
		answered bool
		yes      bool
	}{
		{"y", true, true},
		{"n", true, false},
		{"esc", true, false},
		{"enter", false, false}, // nothing is the default
		{"q", false, false},
	} {
		t.Run(tc.key, func(t *testing.T) {
			cmd := newDialog().Update(tuitest.Key(tc.key))
			if (cmd != nil) != tc.answered {
				t.Fatalf("answered %v, want %v", cmd != nil, tc.answered)
			}
			if cmd == nil {
				return
			}
			a, ok := cmd().(AnswerMsg)
			if !ok || a.Yes != tc.yes || a.Kind != Abort || a.Data != 7 {
				t.Fatalf("answer %+v", a)
			}
		})
	}
}

// TestViewNamesTheKeymapsKeys: the answer line says the keys the keymap binds.
func TestViewNamesTheKeymapsKeys(t *testing.T) {
	m := newDialog()
	if v := m.View(); !strings.Contains(v, "y abort") || !strings.Contains(v, "n/esc keep running") {
		t.Fatalf("default keys missing from\n%s", v)
	}
	m.Keys.Yes = key.NewBinding(key.WithKeys("Y"), key.WithHelp("Y", "yes"))
	if v := m.View(); !strings.Contains(v, "Y abort") {
		t.Fatalf("a rebound yes key is not what the dialog says:\n%s", v)
	}
}
