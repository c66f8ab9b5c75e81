// Package applyview is the Apply screen: the run of the plan as the engine reports
// it. It shows the current step and its change, the engine's question when it
// asks one (y apply, s skip, r retry, q abort: only the answers the engine
// accepts), the gate being waited for with a spinner, elapsed time and a progress
// bar against its timeout, a log of every event, and at the end the outcome with
// the CVO's state and the engine's exact next commands.
//
// The screen renders events; it decides nothing. The session sends the answers
// to the engine's Decider.
package applyview
