package state

// StepStatus is where a plan step is in the session's run, as the engine's events
// (or the resumed journal) say.
type StepStatus string

// The step statuses.
const (
	StepPending  StepStatus = ""
	StepRunning  StepStatus = "running"
	StepAwaiting StepStatus = "awaiting"
	StepApplied  StepStatus = "applied"
	StepWaiting  StepStatus = "waiting"
	StepDone     StepStatus = "done"
	StepSkipped  StepStatus = "skipped"
	StepFailed   StepStatus = "failed"
	// StepReverted: the step's temporary change was undone by the engine because
	// the run stopped before its revert step (a resume makes it again).
	StepReverted StepStatus = "reverted"
)

// Glyph is the one-cell marker of a status in step lists.
func (s StepStatus) Glyph() string {
	switch s {
	case StepRunning, StepApplied:
		return "▶"
	case StepAwaiting:
		return "?"
	case StepWaiting:
		return "…"
	case StepDone:
		return "✓"
	case StepSkipped:
		return "-"
	case StepFailed:
		return "✗"
	case StepReverted:
		return "↺"
	}
	return "·"
}

// Word is the status in words ("pending" for StepPending).
func (s StepStatus) Word() string {
	if s == StepPending {
		return "pending"
	}
	return string(s)
}
