package common

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/openshift-recover/recover/tui/keymap"
)

// Input is a one-line text input: runes append, backspace deletes, ctrl+u
// clears. (bubbles/textinput would pull a clipboard module for a filter that
// never pastes.)
type Input struct {
	Prompt string
	Value  string
	Limit  int
}

// Update applies a key; it reports whether the value changed.
func (in *Input) Update(k tea.KeyMsg) bool {
	before := in.Value
	switch k.Type {
	case tea.KeyRunes, tea.KeySpace:
		r := string(k.Runes)
		if k.Type == tea.KeySpace {
			r = " "
		}
		if in.Limit == 0 || len([]rune(in.Value))+len([]rune(r)) <= in.Limit {
			in.Value += r
		}
	case tea.KeyBackspace:
		if rs := []rune(in.Value); len(rs) > 0 {
			in.Value = string(rs[:len(rs)-1])
		}
	case tea.KeyCtrlU:
		in.Value = ""
	}
	return in.Value != before
}

// View renders the prompt, the value and a block cursor.
func (in *Input) View() string {
	return in.Prompt + in.Value + "█"
}

// Filter is a list filter as k9s has it: / starts typing (the input then has
// the keyboard), enter keeps the filter, esc while typing or afterwards clears it.
type Filter struct {
	Input
	// Typing is set while the input has the keyboard.
	Typing bool
}

// NewFilter returns an empty filter whose prompt is the filter key ("/").
func NewFilter(keys *keymap.KeyMap) Filter {
	return Filter{Input: Input{Prompt: keymap.Name(keys.Filter), Limit: 80}}
}

// Key handles a key for the filter: every key while typing, and outside typing
// the filter key (start) and back (clear). It reports whether the key was the
// filter's; changed says whether the filter text changed.
func (f *Filter) Key(k tea.KeyMsg, keys *keymap.KeyMap) (handled, changed bool) {
	before := f.Value
	switch {
	case f.Typing:
		switch k.Type {
		case tea.KeyEnter:
			f.Typing = false
		case tea.KeyEsc:
			f.Typing, f.Value = false, ""
		default:
			f.Update(k)
		}
	case key.Matches(k, keys.Filter):
		f.Typing = true
	case key.Matches(k, keys.Back) && f.Value != "":
		f.Value = ""
	default:
		return false, false
	}
	return true, f.Value != before
}
