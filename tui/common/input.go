package common

import (
	tea "github.com/charmbracelet/bubbletea"
)

// Input is a one-line text input for filters: runes append, backspace deletes,
// ctrl+u clears. (bubbles/textinput would pull a clipboard module for a filter
// that never pastes.)
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
