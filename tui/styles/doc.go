// Package styles holds the TUI's lipgloss styles, built from one renderer so that
// the colour profile is decided once: the terminal's, Ascii when NO_COLOR is set
// (termenv's EnvColorProfile), or a fixed profile in tests. Colour is never the
// only signal: every coloured state also has a word or a marker.
package styles
