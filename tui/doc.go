// Package tui is recover's interactive front end (bubbletea): one session that
// shows the truth about a cluster, the chosen target and the plan, and applies
// the plan step by step with the user deciding every change.
//
// # Screens
//
//	1 Overview  why the cluster is stuck (inspect's ranked wedges, the next
//	            command); the cluster's claim beside the reality; operators by
//	            version, marked by their distance to the target; nodes by kubelet
//	            version; static pods whose claim differs; findings with their
//	            class (BLOCKS or informs) and evidence (/ filters)
//	2 Target    the chosen release and why, or for a remediation plan why none is
//	            needed; the remediations and the refused remedies; the
//	            alternatives with rule and reason; a accepts a named
//	            conditional-update risk or an admin's promise (confirmed, then
//	            re-planned)
//	3 Plan      a staged plan's stages first (one row per hop, the current
//	            one expanded with its steps; ] and [ expand another), then
//	            the steps (level, component or remedy, action, gate, status; a
//	            temporary change and its revert marked →007/←005, p jumps between
//	            them); the selected step's reason, the finding it answers, its
//	            Change (before -> patch), gate, diff against the live object (d)
//	            and manifest
//	4 Apply     the run: the current step and its change, the engine's question
//	            (y apply, s skip, r retry, q abort), the gate being waited for with
//	            spinner, elapsed time and progress, the event log, the result
//
// The header always shows the CVO's state (running, disabled by recover,
// restored), the claimed version, the target and READ-ONLY when nothing may
// change, and every temporary change in place (a relaxed PodDisruptionBudget)
// until its revert step or the engine's revert on stop restores it.
//
// # Components
//
// Each screen is its own small component (tui/overview, tui/target, tui/steps
// with tui/stages, tui/applyview, tui/timeline) over a shared common.Common (size, styles, keymap, clock); the
// header (tui/header) and the modal confirmation (tui/dialog) are components too.
// The run's state (phase, the engine's open question, the result, the CVO's
// state, every step's status) is one tui/state.Run, fed only by the engine's
// events, the resumed journal, the snapshot and the user's answers: the header,
// the Plan and the Apply screens render it, and the Model decides from it, never
// from what a screen shows.
// One keymap (tui/keymap) drives the footer and the ? overlay; keys that change the
// cluster are marked dangerous and stripped in a read-only session, as k9s does.
//
// # No recovery logic here
//
// The Model renders the Session's inspect.Snapshot and plan.Plan and the apply
// engine's events. It runs the engine with Options.Confirm and a Decider that
// waits for the user's key (engine.go); it previews a step's diff with the
// engine's Preview (a server-side dry run of that one step); it re-plans through the
// Session's Replan function (the planner). Aborting while the engine waits on a
// gate cancels the run's context: the engine journals the stop, releases the lock
// and reports the exact commands to resume or restore the CVO.
//
// Update and View are plain methods: tests drive them with messages and compare
// the rendered frames with golden files (go test ./tui/... -update refreshes
// them).
package tui
