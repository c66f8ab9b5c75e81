package tuitest

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// TestOnlyTestsImportIt: no file of the tui packages but a test imports this
// package (Go's internal rule keeps every package outside tui/ from importing
// it at all). It reads the files itself, so the test cache sees them change.
func TestOnlyTestsImportIt(t *testing.T) {
	const self = `"github.com/openshift-recover/recover/tui/internal/tuitest"`
	checked := 0
	err := filepath.WalkDir(filepath.Join("..", ".."), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			if imp.Path.Value == self {
				t.Errorf("%s imports the test helpers", path)
			}
		}
		return nil
	})
	if err != nil || checked < 20 {
		t.Fatalf("checked %d files: %v", checked, err)
	}
}

// TestKey: named keys and runes match what bubbletea reports for them, which is
// what a keymap binding is matched against.
func TestKey(t *testing.T) {
	for k, want := range map[string]string{"enter": "enter", "esc": "esc", "pgdown": "pgdown", "ctrl+r": "ctrl+r", "j": "j", "G": "G", "?": "?", "kub": "kub"} {
		if got := Key(k).String(); got != want {
			t.Errorf("Key(%q) is %q, want %q", k, got, want)
		}
	}
}

// TestPress returns the messages of the commands in order, and none for a key
// that answers nothing.
func TestPress(t *testing.T) {
	var seen []string
	echo := updater(func(msg tea.Msg) tea.Cmd {
		k := msg.(tea.KeyMsg).String()
		seen = append(seen, k)
		if k == "x" {
			return nil
		}
		return func() tea.Msg { return k }
	})
	got := Press(echo, "a", "x", "enter")
	if strings.Join(seen, ",") != "a,x,enter" || len(got) != 2 || got[0] != "a" || got[1] != "enter" {
		t.Fatalf("seen %v, messages %v", seen, got)
	}
}

type updater func(tea.Msg) tea.Cmd

func (u updater) Update(msg tea.Msg) tea.Cmd { return u(msg) }
