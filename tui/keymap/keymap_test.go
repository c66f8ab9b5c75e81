package keymap

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
)

// bindings returns every binding of the keymap by field name.
func bindings(k *KeyMap) map[string]*key.Binding {
	out := map[string]*key.Binding{}
	v := reflect.ValueOf(k).Elem()
	for i := 0; i < v.NumField(); i++ {
		if !v.Type().Field(i).IsExported() {
			continue
		}
		if b, ok := v.Field(i).Addr().Interface().(*key.Binding); ok {
			out[v.Type().Field(i).Name] = b
		}
	}
	return out
}

func TestClearDangerRemovesExactlyTheMutatingKeys(t *testing.T) {
	k := Default()
	k.ClearDanger()
	dangerous := map[string]bool{"Start": true, "Confirm": true, "Skip": true, "Retry": true, "Abort": true}
	for name, b := range bindings(k) {
		if b.Enabled() == dangerous[name] {
			t.Errorf("%s: enabled %v after ClearDanger", name, b.Enabled())
		}
		k.Enable(b, true)
		if b.Enabled() == dangerous[name] {
			t.Errorf("%s: Enable(true) gives %v in a read-only keymap", name, b.Enabled())
		}
	}
}

// TestDocsListEveryKey keeps docs/tui.md's key table in step with the keymap.
func TestDocsListEveryKey(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "tui.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	_, keys, ok := strings.Cut(doc, "## Keys")
	if !ok {
		t.Fatal("docs/tui.md has no Keys section")
	}
	keys, _, _ = strings.Cut(keys, "\n## ")
	for name, b := range bindings(Default()) {
		h := b.Help()
		if !strings.Contains(keys, "`"+h.Key+"`") {
			t.Errorf("%s: key %q is not in docs/tui.md's Keys table", name, h.Key)
		}
		if !strings.Contains(keys, h.Desc) {
			t.Errorf("%s: %q is not in docs/tui.md's Keys table", name, h.Desc)
		}
	}
}

// TestDescribeKeepsTheKey: re-describing a binding keeps the key it is shown as,
// so a rebinding reaches the footer of a screen that changes the description.
func TestDescribeKeepsTheKey(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    key.Binding
		want string
	}{
		{"default", Default().Start, "a"},
		{"rebound", key.NewBinding(key.WithKeys("Z"), key.WithHelp("Z", "start apply")), "Z"},
		{"two keys", Default().No, "n/esc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.b
			Describe(&b, "resume run")
			if h := b.Help(); h.Key != tc.want || h.Desc != "resume run" {
				t.Fatalf("help %q %q, want %q %q", h.Key, h.Desc, tc.want, "resume run")
			}
		})
	}
}

// TestTabsAreTheScreenKeysInOrder: the header labels tab i with Tabs()[i] and
// the session switches to screen i on it, so the order is the screens'.
func TestTabsAreTheScreenKeysInOrder(t *testing.T) {
	k := Default()
	var got []string
	for _, b := range k.Tabs() {
		got = append(got, b.Help().Desc)
	}
	if want := []string{"overview", "target", "plan", "apply", "timeline"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Tabs are %v, want %v", got, want)
	}
	screens := k.Screens()
	if len(screens) != 2+len(got) || screens[0].Help().Desc != "next screen" || screens[2].Help().Desc != "overview" {
		t.Fatalf("Screens do not end with the tabs: %v", screens)
	}
}
