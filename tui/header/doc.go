// Package header renders the TUI's top two lines: the session (source, the
// cluster's claimed version, the plan's target, the CVO's state, read-only) and the
// screen tabs. The CVO's state is the one fact that never drops out: when the line
// is too narrow, the lower-priority parts go first.
package header
