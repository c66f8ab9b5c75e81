package common

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/openshift-recover/recover/tui/keymap"
	"github.com/openshift-recover/recover/tui/styles"
)

// Common is embedded (by pointer) in every component.
type Common struct {
	// Width and Height are the component's size in cells.
	Width, Height int
	Styles        *styles.Styles
	Keys          *keymap.KeyMap
	// Now is the clock (fixed in tests, so elapsed times render the same).
	Now func() time.Time
}

// Component is what every screen implements: it reacts to messages (Update gets
// the keys the session does not take itself, and returns the screen's intents
// as commands: a diff request, an accept), renders itself at its size, and
// names the keys it understands for the footer and the ? overlay.
type Component interface {
	Update(msg tea.Msg) tea.Cmd
	SetSize(width, height int)
	View() string
	ShortHelp() []key.Binding
	FullHelp() [][]key.Binding
}

// Truncate cuts s to width cells, ending with "…" when it was cut.
func Truncate(s string, width int) string {
	if width <= 0 {
		return ""
	}
	return ansi.Truncate(s, width, "…")
}

// Wrap word-wraps s to width cells at spaces only (names like
// kube-controller-manager or --plan stay whole), hard-wrapping words longer than
// the width. Existing line breaks are kept.
func Wrap(s string, width int) string {
	if width <= 0 {
		return s
	}
	var out []string
	for _, para := range strings.Split(s, "\n") {
		rest := strings.TrimLeft(para, " ")
		lead := para[:len(para)-len(rest)]
		line, lw := lead, len(lead)
		for i, w := range strings.Split(rest, " ") {
			ww := ansi.StringWidth(w)
			switch {
			case i == 0:
				line, lw = line+w, lw+ww
			case lw+1+ww <= width:
				line, lw = line+" "+w, lw+1+ww
			default:
				out = append(out, line)
				line, lw = w, ww
			}
			for lw > width {
				out = append(out, ansi.Cut(line, 0, width))
				line = ansi.Cut(line, width, lw)
				lw = ansi.StringWidth(line)
			}
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// WrapIndent wraps s to width and indents every line after the first by indent
// spaces (the first line is expected after a label of that width).
func WrapIndent(s string, width, indent int) string {
	lines := strings.Split(Wrap(s, width-indent), "\n")
	pad := strings.Repeat(" ", indent)
	for i := 1; i < len(lines); i++ {
		lines[i] = pad + lines[i]
	}
	return strings.Join(lines, "\n")
}

// Pad pads s with spaces to exactly width cells (truncating when longer).
func Pad(s string, width int) string {
	w := lipgloss.Width(s)
	if w > width {
		return Truncate(s, width)
	}
	return s + strings.Repeat(" ", width-w)
}

// Fit makes s exactly height lines of exactly width cells: longer lines are
// truncated, missing lines are blank. Every screen's View ends with it, so the
// frame never exceeds the terminal.
func Fit(s string, width, height int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > height {
		lines = lines[:height]
	}
	for i := range lines {
		lines[i] = Pad(lines[i], width)
	}
	for len(lines) < height {
		lines = append(lines, strings.Repeat(" ", width))
	}
	return strings.Join(lines, "\n")
}

// Lines counts the lines of s.
func Lines(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(s, "\n") + 1
}

// OrDash returns s, or "-" when it is empty.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Cursor is the marker in front of the selected row: it survives NO_COLOR, where
// the reverse-video highlight does not.
func Cursor(selected bool) string {
	if selected {
		return "> "
	}
	return "  "
}

// ShortImage shortens a pull spec by digest to repository@sha256:<12 hex>.
func ShortImage(image string) string {
	repo, digest, ok := strings.Cut(image, "@sha256:")
	if !ok || len(digest) <= 12 {
		return image
	}
	return repo + "@sha256:" + digest[:12]
}

// Duration renders a duration the way the apply screen shows elapsed times:
// 4s, 1m05s, 1h02m.
func Duration(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return d.String()
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	default:
		return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
}
