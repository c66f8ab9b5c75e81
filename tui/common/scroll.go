package common

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/openshift-recover/recover/tui/keymap"

	"github.com/openshift-recover/recover/tui/styles"
)

// Follow scrolls the viewport so that lines from..to (a selected item) are
// visible, its top first when it is taller than the viewport.
func Follow(vp *viewport.Model, from, to int) {
	if from < 0 {
		return
	}
	off := vp.YOffset
	if from < off || to-from+1 > vp.Height {
		off = from
	} else if to >= off+vp.Height {
		off = to - vp.Height + 1
	}
	vp.SetYOffset(off)
}

// Row renders a list row: the cursor marker, cut to width, and highlighted
// across the whole width when selected.
func Row(st *styles.Styles, text string, selected bool, width int) string {
	row := Truncate(Cursor(selected)+text, width)
	if selected {
		return st.Selected.Render(Pad(row, width))
	}
	return row
}

// ScrollKeys scrolls a detail viewport by half a page on the scroll keys; it
// reports whether the key was one of them.
func ScrollKeys(k tea.KeyMsg, keys *keymap.KeyMap, vp *viewport.Model) bool {
	switch {
	case key.Matches(k, keys.ScrollDown):
		vp.HalfViewDown()
	case key.Matches(k, keys.ScrollUp):
		vp.HalfViewUp()
	default:
		return false
	}
	return true
}
