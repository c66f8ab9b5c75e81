// Package shell renders copy-pasteable POSIX shell command lines: the one
// quoting rule that every "next command" recover prints (apply's result,
// the journal, the runbook, the TUI) goes through.
package shell
