// Package state is the TUI session's run state: the run's phase, the engine's
// open question and its result, the CVO's state and every plan step's status.
// It is fed only by the engine's events (Run.Apply), the journal being resumed
// (Run.FromJournal), the snapshot (New, Run.Reloaded) and the user's answers
// (Run.Answered); the screens read it and never write it, and the session model
// reads it instead of reading its screens back.
package state
