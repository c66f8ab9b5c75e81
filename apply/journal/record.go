package journal

import (
	"encoding/json"
	"time"

	"github.com/openshift-recover/recover/plan/planfile"
)

// FormatVersion is the journal format. Readers refuse a major version they do not
// know; a minor bump only adds fields.
const FormatVersion = "1.2"

// RecordType says what a Record holds.
type RecordType string

// The record types, in the order they usually appear.
const (
	// TypeHeader is the first record of every journal.
	TypeHeader RecordType = "header"
	// TypeBackup records the etcd backup the run relies on.
	TypeBackup RecordType = "backup"
	// TypeResume marks the start of a resumed run in the same journal.
	TypeResume RecordType = "resume"
	// TypeIntent is written (and fsync'd) before a mutation.
	TypeIntent RecordType = "intent"
	// TypeOutcome is written after a mutation, successful or not.
	TypeOutcome RecordType = "outcome"
	// TypeGate records a gate's result.
	TypeGate RecordType = "gate"
	// TypeStep finishes a step: done or skipped.
	TypeStep RecordType = "step"
	// TypeStop records why a run stopped before the end of the plan.
	TypeStop RecordType = "stop"
	// TypeFinish records that the whole plan ran.
	TypeFinish RecordType = "finish"
	// TypeReverted records that the engine undid a temporary change (Step names
	// the step that made it) because the run stopped before the plan's own revert
	// step: the change's pre-image was written back. A resume makes the change
	// again (formatVersion 1.1).
	TypeReverted RecordType = "reverted"
	// TypeStage marks a stage of a staged plan starting or landing
	// (formatVersion 1.2): the steps after a stage's "running" record belong
	// to it, until the next stage's.
	TypeStage RecordType = "stage"
)

// Record is one line of the journal. Type says which of the optional fields is set.
type Record struct {
	Type RecordType `json:"type"`
	// Seq numbers the records from 1; Time is when the record was written.
	Seq  int       `json:"seq"`
	Time time.Time `json:"time"`
	// Step and Action name the plan step the record belongs to.
	Step   string `json:"step,omitempty"`
	Action string `json:"action,omitempty"`

	Header  *Header     `json:"header,omitempty"`
	Backup  *Backup     `json:"backup,omitempty"`
	Resume  *Resume     `json:"resume,omitempty"`
	Intent  *Intent     `json:"intent,omitempty"`
	Outcome *Outcome    `json:"outcome,omitempty"`
	Gate    *GateResult `json:"gate,omitempty"`
	// Status is set on step records.
	Status StepStatus `json:"status,omitempty"`
	Stop   *Stop      `json:"stop,omitempty"`
	// StageMark is set on stage records.
	StageMark *StageMark `json:"stage,omitempty"`
	// Message is a human sentence (why a step was skipped, ...).
	Message string `json:"message,omitempty"`
}

// Header identifies the run and the plan it executes.
type Header struct {
	FormatVersion string `json:"formatVersion"`
	// RunID identifies the run; the apply lock carries it too, so a resume of this
	// journal can take over the lock its dead predecessor left.
	RunID string `json:"runID"`
	// Plan references the plan document; resume loads it from Path and refuses it
	// unless its digest is Digest.
	Plan PlanRef `json:"plan"`
	// Server is the API server the run talks to; ClusterID the ClusterVersion's.
	Server    string `json:"server,omitempty"`
	ClusterID string `json:"clusterID,omitempty"`
	// Holder is the identity recorded in the lock.
	Holder string `json:"holder,omitempty"`
	// Generator is the recover version that wrote the journal.
	Generator string    `json:"generator,omitempty"`
	StartedAt time.Time `json:"startedAt"`
	// StartVersion is the release the cluster ran when the plan was made;
	// Goal and Stages are a staged plan's (formatVersion 1.2), so that the
	// journal alone says which hops the run takes and which one holds it.
	StartVersion string     `json:"startVersion,omitempty"`
	Goal         string     `json:"goal,omitempty"`
	Stages       []StageRef `json:"stages,omitempty"`
}

// StageRef is one stage of a staged plan as the journal names it.
type StageRef struct {
	Index int    `json:"index"`
	From  string `json:"from"`
	To    string `json:"to"`
	// Workers is the plan's: follow, or paused (the EUS hop).
	Workers string `json:"workers,omitempty"`
	// Steps counts the stage's steps.
	Steps int `json:"steps"`
}

// StageMark is a stage record: the stage starts running (again, on a
// resume) or has landed (every step of it done or skipped).
type StageMark struct {
	Index int        `json:"index"`
	State StageState `json:"state"`
}

// StageState is where a stage is.
type StageState string

// The stage states. Records carry Running and Landed; Pending and Stopped
// are derived.
const (
	StagePending StageState = "pending"
	StageRunning StageState = "running"
	StageLanded  StageState = "landed"
	// StageStopped: the stage was running when the run stopped.
	StageStopped StageState = "stopped"
)

// PlanRef references a plan document by path and digest.
type PlanRef struct {
	Path   string `json:"path"`
	Digest string `json:"digest"`
	// TargetVersion and TargetImage summarise the plan for readers of the journal.
	TargetVersion string `json:"targetVersion,omitempty"`
	TargetImage   string `json:"targetImage,omitempty"`
	Steps         int    `json:"steps"`
	// Mode is the plan's mode (update, remediation, drive-cvo), and Outcome
	// the decision it carries out (plan.Decide's: kind, rule, why, evidence),
	// as the plan records them; absent in journals before formatVersion 1.2
	// and for plans made before outcomes.
	Mode    string            `json:"mode,omitempty"`
	Outcome *planfile.Outcome `json:"outcome,omitempty"`
}

// Backup is the etcd backup a run relies on: a verified record, or the user's
// acknowledgement that one exists.
type Backup struct {
	// Acknowledged is set when the user passed --i-have-a-backup instead of a record.
	Acknowledged bool   `json:"acknowledged,omitempty"`
	RecordFile   string `json:"recordFile,omitempty"`
	// Path, SHA256, EtcdRevision and ClusterVersion come from the record.
	Path           string    `json:"path,omitempty"`
	SHA256         string    `json:"sha256,omitempty"`
	EtcdRevision   int64     `json:"etcdRevision,omitempty"`
	ClusterVersion string    `json:"clusterVersion,omitempty"`
	TakenAt        time.Time `json:"takenAt,omitzero"`
	// Verified says how the record was checked ("sha256 of the local file
	// matches", "file not on this machine: not verified").
	Verified string `json:"verified,omitempty"`
}

// Resume marks a resumed run.
type Resume struct {
	RunID  string `json:"runID"`
	Holder string `json:"holder,omitempty"`
	// InFlight is the step that had an intent and no finish when the run resumed.
	InFlight string `json:"inFlight,omitempty"`
}

// ObjectRef names a Kubernetes object: the plan's (the same fields, the same
// JSON), so that a journaled object is named as the plan names it
// (plan.ObjectRef.String).
type ObjectRef = planfile.ObjectRef

// Intent is what a step is about to change.
type Intent struct {
	// Operation is what will be done: create, update, delete, scale, patch.
	Operation string    `json:"operation"`
	Object    ObjectRef `json:"object"`
	// ManifestDigest is the plan manifest's digest, for apply and delete.
	ManifestDigest string `json:"manifestDigest,omitempty"`
	// LiveUID and LiveResourceVersion identify the live object the change is
	// based on.
	LiveUID             string `json:"liveUID,omitempty"`
	LiveResourceVersion string `json:"liveResourceVersion,omitempty"`
	// CVOReplicas is the CVO Deployment's replicas before disable-cvo scales it
	// down, and the replicas restore-cvo sets.
	CVOReplicas *int32 `json:"cvoReplicas,omitempty"`
	// Before and After are small values the step changes (a pool's paused flag,
	// the previous desiredUpdate), as JSON.
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// Diff is the redacted unified diff of the change (Secret values are hashed).
	Diff string `json:"diff,omitempty"`
	// PreImage is the live value of every field a remediation step's Change sets,
	// read just before the change, as a JSON object of dotted path -> value (null
	// when the field was absent): what a revert writes back (formatVersion 1.1).
	PreImage map[string]json.RawMessage `json:"preImage,omitempty"`
	// Temporary is true when a revert step of the plan undoes the change.
	Temporary bool `json:"temporary,omitempty"`
	// RevertOf, on a revert's intent, names the step whose change it undoes.
	RevertOf string `json:"revertOf,omitempty"`
}

// Outcome is what the API server did.
type Outcome struct {
	// Result is created, updated, unchanged, deleted, absent, deleting,
	// exists (create-only), scaled, patched, or failed.
	Result          string `json:"result"`
	UID             string `json:"uid,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	Error           string `json:"error,omitempty"`
}

// GateResult is how a step's gate ended.
type GateResult struct {
	Kind string `json:"kind"`
	// Result is passed, failed, timeout or skipped.
	Result   string        `json:"result"`
	Message  string        `json:"message,omitempty"`
	Duration time.Duration `json:"duration"`
}

// StepStatus is the state of a step in the journal.
type StepStatus string

// The step states. Records carry only Done and Skipped; the others are derived.
const (
	StepPending StepStatus = "pending"
	// StepInFlight: an intent is recorded and no outcome.
	StepInFlight StepStatus = "in-flight"
	// StepApplied: the mutation's outcome is recorded; the gate has not passed.
	StepApplied StepStatus = "applied"
	// StepFailed: the mutation or the gate failed; the step is not done.
	StepFailed  StepStatus = "failed"
	StepDone    StepStatus = "done"
	StepSkipped StepStatus = "skipped"
	// StepReverted: a temporary change the engine undid when the run stopped;
	// the step is not complete, so a resume makes the change again.
	StepReverted StepStatus = "reverted"
)

// Stop records why a run stopped before the end of its plan.
type Stop struct {
	// Reason is the engine's outcome (gate-failed, step-failed, step-refused, aborted, stopped,
	// lost-lock, error).
	Reason  string `json:"reason"`
	Message string `json:"message,omitempty"`
	// CVODisabled is true when the run leaves the CVO scaled down; CVOReplicas is
	// what to restore it to.
	CVODisabled bool   `json:"cvoDisabled"`
	CVOReplicas *int32 `json:"cvoReplicas,omitempty"`
}
