// Package nextcmd renders the commands recover tells people to run next: the
// resume of a stopped apply, giving the CVO back its replicas, a merge patch
// that restores or makes a change by hand. apply's result, the journal
// summary, the Markdown runbook and the TUI all print these, so they are
// spelled once here, with one flag spelling and one quoting (internal/shell).
package nextcmd
