package apply

import (
	"context"
)

// Decision is a Decider's answer.
type Decision string

// The decisions.
const (
	// Proceed runs the step (only for RequestStep).
	Proceed Decision = "proceed"
	// Skip skips the step or the failed gate: the step is journaled as skipped.
	Skip Decision = "skip"
	// Retry runs the failed step again or waits for the gate again.
	Retry Decision = "retry"
	// Abort stops the run; the journal stays resumable.
	Abort Decision = "abort"
)

// RequestKind says what the engine asks about.
type RequestKind string

// The request kinds.
const (
	// RequestStep: confirm a step before it changes the cluster (only when
	// Options.Confirm is set). Options: proceed, skip (not for CVO steps), abort.
	RequestStep RequestKind = "step"
	// RequestGate: the step's gate timed out or failed. Options: retry, skip, abort.
	RequestGate RequestKind = "gate"
	// RequestError: the step's mutation failed. Options: retry, skip, abort.
	RequestError RequestKind = "error"
)

// Request is what the engine asks a Decider.
type Request struct {
	Kind RequestKind `json:"kind"`
	Step StepInfo    `json:"step"`
	// Message says what happened or what the step will do.
	Message string `json:"message"`
	// Change is the prepared change, for RequestStep.
	Change *ChangeInfo `json:"change,omitempty"`
	// Gate is the gate's last progress, for RequestGate.
	Gate *GateInfo `json:"gate,omitempty"`
	// Options are the decisions the engine accepts, the safest first.
	Options []Decision `json:"options"`
}

// Allows reports whether d is one of the request's options.
func (r Request) Allows(d Decision) bool {
	for _, o := range r.Options {
		if o == d {
			return true
		}
	}
	return false
}

// Decider answers the engine's questions. The engine calls it from its own
// goroutine and waits for the answer; an error or a context cancellation aborts the
// run. An answer that is not among the request's options counts as Abort.
type Decider interface {
	Decide(ctx context.Context, req Request) (Decision, error)
}

// DeciderFunc adapts a function to a Decider.
type DeciderFunc func(ctx context.Context, req Request) (Decision, error)

// Decide calls f.
func (f DeciderFunc) Decide(ctx context.Context, req Request) (Decision, error) { return f(ctx, req) }

// AutoDecider answers as a scripted run (--yes) must: proceed with every step, and
// stop the run (resumable) when a gate or a step fails.
type AutoDecider struct{}

// Decide proceeds with steps and aborts on failures.
func (AutoDecider) Decide(_ context.Context, req Request) (Decision, error) {
	if req.Kind == RequestStep {
		return Proceed, nil
	}
	return Abort, nil
}
