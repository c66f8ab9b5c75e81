package apply

import (
	"context"
	"time"

	"github.com/openshift-recover/recover/plan"
)

// Options configure one run.
type Options struct {
	// PlanPath and PlanDigest identify the plan file (LoadPlan returns the
	// digest); the journal references the plan by them.
	PlanPath   string
	PlanDigest string
	// JournalPath is the journal to create, or with Resume the journal to resume.
	// Required unless DryRun.
	JournalPath string
	// Resume continues the run recorded in JournalPath: steps it records as done
	// are skipped, and the step in flight is re-checked against the cluster.
	Resume bool
	// DryRun sends every change as a server-side dry run and changes nothing: no
	// lock, no journal, gates are checked once and not waited for.
	DryRun bool
	// FromStep and UntilStep limit the run to a range of steps (inclusive).
	// Steps before FromStep are journaled as skipped.
	FromStep  string
	UntilStep string

	// AllowStale runs a plan whose cluster fingerprint no longer matches.
	AllowStale bool
	// Fingerprint computes the live cluster's fingerprint (inspect's
	// Snapshot.Fingerprint); nil means staleness cannot be checked, which
	// preflight refuses unless AllowStale.
	Fingerprint func(ctx context.Context) (string, error)
	// BackupRecordFile is a backup record (path, sha256, etcdRevision,
	// clusterVersion); IHaveABackup acknowledges a backup instead. One of them is
	// required unless DryRun or Resume (the journal holds the record).
	BackupRecordFile string
	IHaveABackup     bool

	// BreakLock takes the apply lock even from a live holder.
	BreakLock bool
	// Holder is the lock's holder identity (default user@host pid N).
	Holder string
	// LeaseDuration is the lock's lease duration (default 60s).
	LeaseDuration time.Duration

	// Timeouts override the gate timeouts per kind (over the plan's and the
	// defaults in gate.DefaultTimeouts).
	Timeouts map[plan.GateKind]time.Duration
	// Heartbeat repeats a waiting event this often while a gate's progress does
	// not change (default 15s; negative: never).
	Heartbeat time.Duration

	// Decider answers the engine's questions (default AutoDecider).
	Decider Decider
	// Confirm asks the Decider before every step that changes the cluster.
	Confirm bool

	// RevertTimeout bounds the reverts of temporary changes when a run stops
	// before their revert steps (default DefaultRevertTimeout); they run even
	// when ctx was cancelled.
	RevertTimeout time.Duration

	// Generator is the recover version, recorded in the journal.
	Generator string
}
