package tui

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/inspect"

	"github.com/charmbracelet/bubbles/key"

	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/tui/keymap"
)

// reboundKeys is the default keymap with every key that screen text names bound
// to another one: a sentence, footer, tab or help that spells a key instead of
// asking the keymap still shows the default one.
func reboundKeys() *keymap.KeyMap {
	k := keymap.Default()
	for b, name := range map[*key.Binding]string{
		&k.Overview: "!", &k.Target: "@", &k.Plan: "#", &k.Apply: "$",
		&k.Help: "H", &k.Quit: "Q", &k.Back: "E", &k.Filter: "F",
		&k.AcceptRisk: "A", &k.Diff: "D", &k.Pair: "P",
		&k.Start: "Z", &k.Confirm: "Y", &k.Skip: "S", &k.Retry: "T", &k.Abort: "X",
		&k.Yes: "O", &k.No: "N",
	} {
		*b = key.NewBinding(key.WithKeys(name), key.WithHelp(name, b.Help().Desc))
	}
	return k
}

// naming is screen text that names keys: format has a %s for each binding,
// given by its KeyMap field name.
type naming struct {
	format string
	keys   []string
}

func names(format string, keys ...string) naming { return naming{format, keys} }

// in is the text as it reads with keymap k.
func (n naming) in(k *keymap.KeyMap) string {
	v := reflect.ValueOf(k).Elem()
	args := make([]any, len(n.keys))
	for i, f := range n.keys {
		args[i] = keymap.Name(v.FieldByName(f).Interface().(key.Binding))
	}
	return fmt.Sprintf(n.format, args...)
}

// checkNames asserts that view names the rebound keys, and nowhere the default
// ones, in each text.
func checkNames(t *testing.T, what, view string, rebound *keymap.KeyMap, ns ...naming) {
	t.Helper()
	view = flat(view)
	for _, n := range ns {
		if want := n.in(rebound); !strings.Contains(view, want) {
			t.Errorf("%s does not say %q:\n%s", what, want, view)
		}
		if old := n.in(keymap.Default()); strings.Contains(view, old) {
			t.Errorf("%s still says %q, the default key:\n%s", what, old, view)
		}
	}
}

// TestScreensNameTheKeymapsKeys: with every key rebound, every screen, tab,
// footer, help overlay and dialog names the new keys, the keys act, and no text
// names a default key: a key is spelled in one place, the keymap.
func TestScreensNameTheKeymapsKeys(t *testing.T) {
	for _, tc := range []struct {
		name    string
		session func(t *testing.T) *Session
		keys    []string
		names   []naming
	}{
		{"overview", func(t *testing.T) *Session { return liveSession(t, &fakeRunner{}) }, nil,
			[]naming{names("%s Overview", "Overview"), names("%s Target", "Target"), names("%s Plan", "Plan"), names("%s Apply", "Apply"),
				names("%s quit", "Quit"), names("%s help", "Help")}},
		{"filter typed", func(t *testing.T) *Session { return liveSession(t, &fakeRunner{}) }, []string{"F", "k", "u", "b"},
			[]naming{names("%skub█", "Filter")}},
		{"filter kept", func(t *testing.T) *Session { return liveSession(t, &fakeRunner{}) }, []string{"F", "k", "u", "b", "enter"},
			[]naming{names("(%s clears)", "Back")}},
		{"risky alternative", replanSession, []string{"@"},
			[]naming{names("press %s to re-plan accepting AWSOldBootImages", "AcceptRisk"), names("%s accept risk", "AcceptRisk")}},
		{"refused promise", func(t *testing.T) *Session { return remediationSession(t, adminAckExample, nil) }, []string{"@"},
			[]naming{names("press %s to accept the promise and re-plan", "AcceptRisk"), names("%s accept promise", "AcceptRisk")}},
		{"plan step", func(t *testing.T) *Session { return liveSession(t, &fakeRunner{}) }, []string{"#", "j", "j"},
			[]naming{names("press %s for a server-side dry run", "Diff"), names("%s diff vs live", "Diff")}},
		{"temporary change", func(t *testing.T) *Session { return remediationSession(t, pdbExample, &fakeRunner{}) }, []string{"#", "j"},
			[]naming{names("; %s jumps there", "Pair"), names("%s paired step", "Pair")}},
		{"apply before a run", func(t *testing.T) *Session { return liveSession(t, &fakeRunner{}) }, []string{"$"},
			[]naming{names("Press %s to start applying", "Start"), names("%s apply, %s skip, %s abort", "Confirm", "Skip", "Abort"),
				names("offer %s retry", "Retry"), names("%s start apply", "Start")}},
		{"help", func(t *testing.T) *Session { return liveSession(t, &fakeRunner{}) }, []string{"$", "H"},
			[]naming{names("%s or %s closes", "Help", "Back"), names("%s start apply", "Start"), names("%s target", "Target")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keys := reboundKeys()
			m := newTestModelWith(t, tc.session(t), 160, 48, Options{Keys: keys})
			press(m, tc.keys...)
			checkNames(t, tc.name, m.View(), keys, tc.names...)
		})
	}
}

// replanSession is a live session that can re-plan (the Target screen offers to
// accept a risk).
func replanSession(t *testing.T) *Session {
	s := liveSession(t, &fakeRunner{})
	s.Replan = func(context.Context, *inspect.Snapshot, []string) (*planfile.Plan, error) { return incidentPlan(), nil }
	return s
}

// TestRunNamesTheKeymapsKeys: through a run with every key rebound, the start
// dialog, the question, the tab notice and the resume offer name the new keys.
func TestRunNamesTheKeymapsKeys(t *testing.T) {
	keys := reboundKeys()
	s := liveSession(t, &fakeRunner{})
	m := newTestModelWith(t, s, 160, 48, Options{Keys: keys})
	d := newDriver(t, m)
	d.press("$", "Z")
	if m.dialog == nil {
		t.Fatalf("the rebound start key did not open the start dialog:\n%s", m.View())
	}
	checkNames(t, "the start dialog", m.dialog.View(), keys,
		names("Answering %s also acknowledges", "Yes"), names("answer %s and take one first", "No"),
		names("(%s apply, %s skip, %s abort)", "Confirm", "Skip", "Abort"), names("%s start applying", "Yes"), names("%s cancel", "No"))
	d.answer("O")
	d.asked(s.Plan.Steps[0].ID)
	checkNames(t, "the question", m.View(), keys, names("%s apply · %s abort", "Confirm", "Abort"), names("%s abort run", "Abort"))
	d.press("!")
	checkNames(t, "another screen while the engine asks", m.View(), keys, names("decision pending: %s", "Apply"))
	d.press("$", "X")
	d.answer("O")
	d.finished()
	checkNames(t, "the aborted run", m.View(), keys,
		names("press %s to resume here, or %s to quit", "Start", "Quit"), names("%s resume run", "Start"))
}
