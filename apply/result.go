package apply

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Outcome is how a run ended.
type Outcome string

// The outcomes. The CLI maps each to an exit code (docs/apply.md).
const (
	// OutcomeCompleted: every selected step is done.
	OutcomeCompleted Outcome = "completed"
	// OutcomeStopped: the run stopped after --until-step, as asked.
	OutcomeStopped Outcome = "stopped"
	// OutcomeBadInput: the plan, journal or backup record is malformed.
	OutcomeBadInput Outcome = "bad-input"
	// OutcomeRefused: preflight refused to start.
	OutcomeRefused Outcome = "refused"
	// OutcomeLocked: another run holds the lock.
	OutcomeLocked Outcome = "locked"
	// OutcomeGateFailed: a gate failed or timed out; resumable.
	OutcomeGateFailed Outcome = "gate-failed"
	// OutcomeStepFailed: a step's mutation failed; resumable.
	OutcomeStepFailed Outcome = "step-failed"
	// OutcomeAborted: the user or a signal stopped the run; resumable.
	OutcomeAborted Outcome = "aborted"
	// OutcomeLostLock: the lock was lost (taken over, or not renewable); resumable.
	OutcomeLostLock Outcome = "lost-lock"
	// OutcomeStepRefused: the engine refused a remediation step because the
	// live cluster is not what the plan was made for (a recreated object, a CSR
	// that changed or that nobody vouches for); nothing was changed for it;
	// resumable once repaired, or with a new plan.
	OutcomeStepRefused Outcome = "step-refused"
	// OutcomeError: anything else (the cluster failed to answer, the journal
	// could not be written).
	OutcomeError Outcome = "error"
)

// Resumable reports whether the journal can be resumed after this outcome.
func (o Outcome) Resumable() bool {
	switch o {
	case OutcomeStopped, OutcomeGateFailed, OutcomeStepFailed, OutcomeAborted, OutcomeLostLock, OutcomeError, OutcomeStepRefused:
		return true
	}
	return false
}

// Result is how a run ended, with what the user must know and do next.
type Result struct {
	Outcome Outcome `json:"outcome"`
	// Message is the one-line summary; Error is the error, if the run failed.
	Message string `json:"message"`
	Error   string `json:"error,omitempty"`
	DryRun  bool   `json:"dryRun,omitempty"`
	// Journal is the journal's path ("" for a dry run).
	Journal string `json:"journal,omitempty"`
	// StepsDone and StepsSkipped count this run's steps; StepsTotal the plan's.
	StepsDone    int `json:"stepsDone"`
	StepsSkipped int `json:"stepsSkipped"`
	StepsTotal   int `json:"stepsTotal"`
	// StoppedAt is the step the run stopped at, if it stopped early.
	StoppedAt string `json:"stoppedAt,omitempty"`
	// CVODisabled is true when the run leaves the CVO scaled down;
	// CVOReplicas is what it ran with before.
	CVODisabled bool   `json:"cvoDisabled"`
	CVOReplicas *int32 `json:"cvoReplicas,omitempty"`
	// Next are the commands to run next, in order of preference.
	Next []string `json:"next,omitempty"`
	// Reverted are the temporary changes the engine undid because the run
	// stopped before their revert steps; NotReverted those it could not undo,
	// each with the command to restore it by hand (result 1.1).
	Reverted    []RevertInfo `json:"reverted,omitempty"`
	NotReverted []RevertInfo `json:"notReverted,omitempty"`
	// Stage is, for a staged plan, the stage the run ended in; Holds says,
	// when it did not complete, which stage holds it and how to continue it
	// or hand the cluster back (result 1.2).
	Stage int    `json:"stage,omitempty"`
	Holds string `json:"holds,omitempty"`

	// Err is the error behind a failed run (nil when completed or stopped).
	Err error `json:"-"`
}

// RevertInfo is one temporary change the engine reverted, or could not, when a
// run stopped.
type RevertInfo struct {
	// Step made the change; RevertedBy is the plan's step that would have
	// restored it.
	Step       string `json:"step"`
	RevertedBy string `json:"revertedBy,omitempty"`
	Object     string `json:"object"`
	// PreImage is what was (or is to be) written back.
	PreImage map[string]json.RawMessage `json:"preImage,omitempty"`
	// Result is reverted or unchanged (already at its pre-image); Error says
	// why not, and Command restores it by hand.
	Result  string `json:"result,omitempty"`
	Error   string `json:"error,omitempty"`
	Command string `json:"command,omitempty"`
}

// Error is a failed run's error: it carries the outcome, which the CLI maps to an
// exit code.
type Error struct {
	Outcome Outcome
	Err     error
}

func (e *Error) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// OutcomeOf returns the outcome an error carries (OutcomeError when none).
func OutcomeOf(err error) Outcome {
	var e *Error
	if errors.As(err, &e) {
		return e.Outcome
	}
	return OutcomeError
}

func fail(o Outcome, format string, args ...any) *Error {
	return &Error{Outcome: o, Err: fmt.Errorf(format, args...)}
}

// BadInput marks bad-input errors for the CLI.
func (e *Error) BadInput() bool { return e.Outcome == OutcomeBadInput }
