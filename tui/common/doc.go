// Package common holds what every TUI component shares: the screen size, the
// styles, the keymap and the clock, and small text helpers that measure by
// terminal cells (ANSI-aware), so layouts hold at any width down to 80 columns.
package common
