package apply

import (
	"encoding/json"
	"time"

	"github.com/openshift-recover/recover/apply/gate"
	"github.com/openshift-recover/recover/plan/planfile"
)

// EventsVersion is the version of the event stream's JSON form (the JSON-lines
// printer's first line). Minor bumps add fields or event types; major bumps break.
const EventsVersion = "1.2"

// EventType says what happened.
type EventType string

// The event types, roughly in the order a run emits them.
const (
	// EventRunStarted: the run begins (Run is set).
	EventRunStarted EventType = "run-started"
	// EventPreflight: one preflight check finished (Preflight is set).
	EventPreflight EventType = "preflight"
	// EventLock: the apply lock was taken (Lock is set).
	EventLock EventType = "lock"
	// EventStepStarted: a step begins (Step is set).
	EventStepStarted EventType = "step-started"
	// EventDiff: the step's change was prepared and dry-run (Change is set).
	EventDiff EventType = "diff"
	// EventAwaitingConfirmation: the engine asks its Decider (Request is set).
	EventAwaitingConfirmation EventType = "awaiting-confirmation"
	// EventApplied: the step's mutation was made, or dry-run (Change is set).
	EventApplied EventType = "applied"
	// EventWaiting: progress of the step's gate, on every change and heartbeat
	// (Gate is set).
	EventWaiting EventType = "waiting"
	// EventGatePassed and EventGateFailed end a gate (Gate is set).
	EventGatePassed EventType = "gate-passed"
	EventGateFailed EventType = "gate-failed"
	// EventSkipped: a step or gate was skipped (Message says why).
	EventSkipped EventType = "skipped"
	// EventStepDone: the step is done and journaled.
	EventStepDone EventType = "step-done"
	// EventCVO: the CVO's state changed (CVO is set).
	EventCVO EventType = "cvo"
	// EventWarning: something the user should know that does not stop the run.
	EventWarning EventType = "warning"
	// EventError: a step failed (Error is set); a Decider decides what next.
	EventError EventType = "error"
	// EventReverting and EventReverted: the run stopped before a temporary
	// change's revert step, and the engine writes the change's journaled
	// pre-image back (Change is set, with Reverts); EventReverted carries the
	// outcome, or Error when it could not be reverted (events 1.1).
	EventReverting EventType = "reverting"
	EventReverted  EventType = "reverted"
	// EventStage: a stage of a staged plan starts (or, resumed, goes on) or
	// lands (Stage is set; events 1.2).
	EventStage EventType = "stage"
	// EventDone: the run ended (Result is set). Always the last event.
	EventDone EventType = "done"
)

// Event is one thing the engine did or saw. Type says which optional field is set.
type Event struct {
	Type EventType `json:"type"`
	Time time.Time `json:"time"`
	// Step is the step the event belongs to, if any.
	Step *StepInfo `json:"step,omitempty"`
	// Message is a one-line human summary.
	Message string `json:"message,omitempty"`

	Run       *RunInfo        `json:"run,omitempty"`
	Preflight *PreflightCheck `json:"preflight,omitempty"`
	Lock      *LockInfo       `json:"lock,omitempty"`
	Change    *ChangeInfo     `json:"change,omitempty"`
	Gate      *GateInfo       `json:"gate,omitempty"`
	CVO       *CVOInfo        `json:"cvo,omitempty"`
	Request   *Request        `json:"request,omitempty"`
	Error     string          `json:"error,omitempty"`
	Result    *Result         `json:"result,omitempty"`
	Stage     *StageInfo      `json:"stage,omitempty"`
}

// StageInfo is a stage of a staged plan in events (events 1.2).
type StageInfo struct {
	// Index counts from 1; Of is the number of stages.
	Index int    `json:"index"`
	Of    int    `json:"of"`
	From  string `json:"from"`
	To    string `json:"to"`
	// Workers is follow, or paused (the EUS control-plane-only hop).
	Workers string `json:"workers,omitempty"`
	// State is running or landed.
	State string `json:"state"`
}

// StepInfo identifies a step in events.
type StepInfo struct {
	ID string `json:"id"`
	// Index counts from 1; Total is the number of steps in the plan.
	Index     int             `json:"index"`
	Total     int             `json:"total"`
	Action    planfile.Action `json:"action"`
	Component string          `json:"component,omitempty"`
	Reason    string          `json:"reason,omitempty"`
	// Object names the step's object ("Deployment openshift-etcd/etcd-operator").
	Object string `json:"object,omitempty"`
	// Remedy is the remedy of a remediation step; RevertedBy, on a temporary
	// change, the step that restores it; Reverts, on a revert, the step it
	// undoes (events 1.1).
	Remedy     string `json:"remedy,omitempty"`
	RevertedBy string `json:"revertedBy,omitempty"`
	Reverts    string `json:"reverts,omitempty"`
	// Stage is the step's stage in a staged plan (from 1; events 1.2).
	Stage int `json:"stage,omitempty"`
}

// RunInfo describes a run as it starts.
type RunInfo struct {
	RunID         string `json:"runID,omitempty"`
	PlanPath      string `json:"planPath,omitempty"`
	PlanDigest    string `json:"planDigest,omitempty"`
	TargetVersion string `json:"targetVersion"`
	TargetImage   string `json:"targetImage"`
	Steps         int    `json:"steps"`
	Journal       string `json:"journal,omitempty"`
	DryRun        bool   `json:"dryRun,omitempty"`
	Resume        bool   `json:"resume,omitempty"`
	// Server is the API server.
	Server string `json:"server,omitempty"`
	// Mode is the plan's mode (update, or remediation: no new release).
	Mode string `json:"mode,omitempty"`
	// Goal and Stages are a staged plan's goal and how many stages it runs
	// (events 1.2); TargetVersion is then stage 1's.
	Goal   string `json:"goal,omitempty"`
	Stages int    `json:"stages,omitempty"`
}

// PreflightCheck is one preflight check's result.
type PreflightCheck struct {
	// Name is plan, cluster, rbac, staleness or backup.
	Name     string   `json:"name"`
	OK       bool     `json:"ok"`
	Message  string   `json:"message"`
	Problems []string `json:"problems,omitempty"`
}

// LockInfo describes the apply lock this run holds.
type LockInfo struct {
	Namespace string    `json:"namespace"`
	Name      string    `json:"name"`
	Holder    string    `json:"holder"`
	Since     time.Time `json:"since"`
	// TookOver names the holder the lease was taken from.
	TookOver string `json:"tookOver,omitempty"`
}

// ChangeInfo is a step's change: prepared (EventDiff) or made (EventApplied).
type ChangeInfo struct {
	// Operation is create, update, unchanged, exists, delete, absent, deleting,
	// scale, patch.
	Operation string `json:"operation"`
	Object    string `json:"object"`
	// Diff is a unified diff, Secret values hashed; empty when nothing changes.
	Diff string `json:"diff,omitempty"`
	// DryRun is true when the change was only sent as a dry run.
	DryRun bool `json:"dryRun,omitempty"`
	// Result is the past-tense outcome on EventApplied (created, updated, ...).
	Result          string `json:"result,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`

	// The remediation facts (events 1.1).

	// Remedy is the remedy a remediation step belongs to (relax-pdb, ...).
	Remedy string `json:"remedy,omitempty"`
	// Fields are the fields the change sets, each from its live value to its
	// new one (for a revert: from the changed value back to the pre-image).
	Fields []FieldChange `json:"fields,omitempty"`
	// PreImage is the journaled pre-image of the change (dotted path -> JSON
	// value, null for absent): what a revert writes back.
	PreImage map[string]json.RawMessage `json:"preImage,omitempty"`
	// RevertedBy, on a temporary change, is the step that restores it
	// ("temporary: restored by step 007"); Reverts, on a revert, is the step
	// whose change it undoes.
	RevertedBy string `json:"revertedBy,omitempty"`
	Reverts    string `json:"reverts,omitempty"`
	// VouchedBy, on an approve-csr, says which Node or Machine vouches for the
	// request.
	VouchedBy string `json:"vouchedBy,omitempty"`
	// Note explains a no-op ("carries its pre-image already").
	Note string `json:"note,omitempty"`
}

// FieldChange is one field a remediation step changes.
type FieldChange struct {
	// Path is the dotted field path ("spec.minAvailable").
	Path string `json:"path"`
	// From and To are JSON values; null means absent.
	From json.RawMessage `json:"from"`
	To   json.RawMessage `json:"to"`
}

// GateInfo is a gate's progress.
type GateInfo struct {
	Kind        planfile.GateKind `json:"kind"`
	Subject     string            `json:"subject"`
	Description string            `json:"description"`
	gate.Progress
	ElapsedSeconds float64 `json:"elapsedSeconds"`
	TimeoutSeconds float64 `json:"timeoutSeconds,omitempty"`
}

// CVOState is the CVO's state as the engine left it.
type CVOState string

// The CVO states.
const (
	CVOScalingDown CVOState = "scaling-down"
	CVODisabled    CVOState = "disabled"
	CVORestoring   CVOState = "restoring"
	CVORunning     CVOState = "running"
)

// CVOInfo is a CVO state change.
type CVOInfo struct {
	State    CVOState `json:"state"`
	Replicas int32    `json:"replicas"`
	// OriginalReplicas is what the CVO ran with before the run disabled it.
	OriginalReplicas *int32 `json:"originalReplicas,omitempty"`
}
