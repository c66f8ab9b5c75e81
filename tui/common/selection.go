package common

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/openshift-recover/recover/tui/keymap"
)

// Selection is a cursor over a list of n items.
type Selection struct {
	Index int
}

// Move handles the list keys (up, down, page up/down, top, bottom) for a list of
// n items showing page rows at a time; it reports whether the key was one of them.
func (s *Selection) Move(k tea.KeyMsg, keys *keymap.KeyMap, n, page int) bool {
	page = max(page, 1)
	switch {
	case key.Matches(k, keys.Up):
		s.Index--
	case key.Matches(k, keys.Down):
		s.Index++
	case key.Matches(k, keys.PageUp):
		s.Index -= page
	case key.Matches(k, keys.PageDown):
		s.Index += page
	case key.Matches(k, keys.Top):
		s.Index = 0
	case key.Matches(k, keys.Bottom):
		s.Index = n - 1
	default:
		return false
	}
	s.Clamp(n)
	return true
}

// Clamp keeps the cursor within a list of n items.
func (s *Selection) Clamp(n int) {
	s.Index = max(0, min(s.Index, n-1))
}

// Window returns the first row to show so that the cursor stays visible in a
// list of n rows showing height at a time, given the previous first row.
func Window(cursor, first, height, n int) int {
	if height <= 0 {
		return 0
	}
	if cursor < first {
		first = cursor
	}
	if cursor >= first+height {
		first = cursor - height + 1
	}
	return max(0, min(first, n-height))
}
