package tuitest

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/openshift-recover/recover/tui/common"
	"github.com/openshift-recover/recover/tui/keymap"
	"github.com/openshift-recover/recover/tui/styles"
)

// Now is the clock of Common: a fixed time, so elapsed times render the same.
var Now = time.Date(2020, 5, 24, 17, 10, 0, 0, time.UTC)

// named are the keys Key knows by name; any other string is typed as runes.
var named = map[string]tea.KeyType{
	"tab": tea.KeyTab, "shift+tab": tea.KeyShiftTab, "enter": tea.KeyEnter, "esc": tea.KeyEsc,
	"up": tea.KeyUp, "down": tea.KeyDown, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown,
	"backspace": tea.KeyBackspace, "ctrl+c": tea.KeyCtrlC, "ctrl+r": tea.KeyCtrlR,
}

// Key is a key press as bubbletea delivers it: a named key ("enter", "esc",
// "pgdown", "ctrl+r", ...) or the runes typed ("j", "G", "?").
func Key(k string) tea.KeyMsg {
	if t, ok := named[k]; ok {
		return tea.KeyMsg{Type: t}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// Press sends the keys to a screen in turn and returns the messages of the
// commands it answered with, each run at once (a screen's commands only carry
// an intent; none blocks).
func Press(screen interface{ Update(tea.Msg) tea.Cmd }, keys ...string) []tea.Msg {
	var msgs []tea.Msg
	for _, k := range keys {
		if cmd := screen.Update(Key(k)); cmd != nil {
			msgs = append(msgs, cmd())
		}
	}
	return msgs
}

// Shows fails t unless view holds every text of want and none of not.
func Shows(t testing.TB, view string, want, not []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(view, w) {
			t.Errorf("missing %q in\n%s", w, view)
		}
	}
	for _, w := range not {
		if strings.Contains(view, w) {
			t.Errorf("unexpected %q in\n%s", w, view)
		}
	}
}

// Common is what a screen renders with in a pure test: plain styles (no escape
// sequences), a fresh default keymap and the fixed clock Now.
func Common() *common.Common {
	return &common.Common{Styles: styles.Plain(), Keys: keymap.Default(), Now: func() time.Time { return Now }}
}
