// Package printer renders the apply engine's events: Plain for people and logs (one
// line per finished step, a progress line while a gate waits; redrawn in place on a
// terminal), JSON for programs (JSON lines whose first line names the events
// version, as Terraform's -json UI does).
//
// # JSON lines
//
// The first line is
//
//	{"type":"version","eventsVersion":"1.1","generator":"<recover version>"}
//
// and every other line is one apply.Event as JSON: "type" and "time" always, "step"
// for step events, and the object named by the type (run, preflight, lock, change,
// gate, cvo, request, result). The last line has type "done" and a result. See
// docs/apply.md for every field.
package printer
