// Package stages is the stage view of a staged plan (recover plan --to,
// formatVersion 1.4), shown at the top of the Plan screen: one row per hop
// (from -> to, the edge, whether the worker pools follow or stay paused, the
// stage's state in the run) and the current stage expanded with its steps,
// each marked with its status, its warnings, and for a later stage that it is
// planned again against the cluster once the stage before it lands.
//
// The current stage is derived, never asked for: the stage of the step the
// run is at, from the plan's own step -> stage mapping (plan.Plan.StageOf,
// StageSteps) and the session's run state (tui/state), which the engine's
// events feed. ] and [ expand another stage; the view follows the run again
// when the plan changes.
package stages
