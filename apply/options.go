package apply

import (
	"context"
	"time"

	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/plan/planfile"
)

// Options configure one run.
type Options struct {
	// PlanPath and PlanDigest identify the plan file (LoadPlan returns the
	// digest); the journal references the plan by them. PlanPath is made
	// absolute unless PlanNotAFile says it names a plan kept elsewhere (the
	// ConfigMaps of a run inside the cluster).
	PlanPath     string
	PlanDigest   string
	PlanNotAFile bool
	// JournalPath is the journal file to create, or with Resume the journal to
	// resume. Journal, when set, is the journal's store instead (a journal kept
	// in the cluster). One of them is required unless DryRun.
	JournalPath string
	Journal     journal.Store
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
	// UntilStage runs a staged plan until stage UntilStage has landed (its
	// last step in plan.RunOrder, as UntilStep would name it) and stops,
	// OutcomeStopped: the pools recover paused for the later stages stay
	// paused, and a resume goes on with stage UntilStage+1. 0: no limit.
	UntilStage int

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
	// LockWait waits, when another run holds the apply lock, until its lease
	// expires and takes it then (lock.Options.WaitExpiry): a run that cannot
	// prove its predecessor dead, such as a Job's next pod, resumes after at
	// most one lease duration instead of failing.
	LockWait bool
	// Holder is the lock's holder identity (default user@host pid N).
	Holder string
	// LeaseDuration is the lock's lease duration (default 60s).
	LeaseDuration time.Duration

	// Timeouts override the gate timeouts per kind (over the plan's and the
	// defaults in gate.DefaultTimeouts).
	Timeouts map[planfile.GateKind]time.Duration
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
