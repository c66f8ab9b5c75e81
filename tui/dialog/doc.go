// Package dialog is the TUI's modal confirmation: a title, a body that explains
// what saying yes does, and y / n. Nothing is the default: enter does nothing, so
// a change is never confirmed by a stray key.
package dialog
