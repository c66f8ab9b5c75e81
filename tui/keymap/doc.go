// Package keymap is the TUI's one keymap: every key the session understands, with
// its help text. The footer and the ? overlay are rendered from these bindings, so
// help can never disagree with what a key does.
//
// Bindings that change the cluster (start a run, confirm, skip or retry a step,
// abort a run) are registered as dangerous, as k9s marks its mutating actions; a
// read-only session (--read-only, or a must-gather, Insights or snapshot source)
// strips them with ClearDanger, so they neither match nor appear in help.
package keymap
