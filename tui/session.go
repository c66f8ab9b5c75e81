package tui

import (
	"context"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan/planfile"
)

// Runner is the engine as the session uses it; *apply.Engine is one. Run runs a
// plan and streams its events (the channel is closed after EventDone, and the
// caller drains it); Preview prepares one step's change as a server-side dry run
// against the live object, changing nothing.
type Runner interface {
	Run(ctx context.Context, p *planfile.Plan, opts apply.Options) <-chan apply.Event
	Preview(ctx context.Context, p *planfile.Plan, stepID string) (*apply.ChangeInfo, error)
}

// Session is what one TUI session shows and may do. cmd/recover builds it from
// its flags; tests build it by hand.
type Session struct {
	// Source describes where the snapshot was read, for the header
	// ("live https://api.example:6443", "must-gather ./must-gather").
	Source string
	// Snapshot is the cluster's state (nil: none could be read).
	Snapshot *inspect.Snapshot

	// Plan is the plan shown and applied (nil: none). PlanPath and PlanDigest
	// identify its file when it was loaded from one (plan.Load); a plan
	// computed in the session has none until SavePlan writes it.
	Plan       *planfile.Plan
	PlanPath   string
	PlanDigest string
	// PlanErr is why there is no plan, or why the last re-plan failed.
	PlanErr error
	// Candidates are the planner's candidate table when it found no target
	// (plan.NoTargetError): the Target screen shows them and offers to accept
	// a risky one.
	Candidates []planfile.Candidate
	// PlanHint tells the user how to get a plan when there is none.
	PlanHint string
	// Outcome is the decision the session's plan carries out, or why there is
	// none (plan.Decide); nil with a saved plan made before formatVersion 1.3.
	Outcome *planfile.Outcome
	// Accepted are the risk names the plan was computed with (--accept).
	Accepted []string
	// Replan computes a new plan from snap, the session's snapshot when it asks
	// (after a reload, the re-read one), that accepts the given names, through
	// the planner; nil when the plan came from a file.
	Replan func(ctx context.Context, snap *inspect.Snapshot, accept []string) (*planfile.Plan, error)
	// SavePlan writes a plan computed in the session to a file before it is
	// applied, because the journal refers to the plan by path and digest, and
	// returns them with the plan as read back from the file (plan.Load): the
	// session applies what it saved, as recover apply --plan would. Required
	// for applying a computed plan.
	SavePlan func(p *planfile.Plan) (path, digest string, saved *planfile.Plan, err error)

	// ReadOnly strips every key that changes the cluster; ReadOnlyReason says why
	// ("must-gather session", "--read-only").
	ReadOnly       bool
	ReadOnlyReason string
	// Engine runs the plan, and previews a step's diff as a server-side dry run.
	// Nil in an offline session.
	Engine Runner
	// Options are the engine options the session starts runs with: journal path,
	// backup, fingerprint, timeouts, lock settings. The session sets Confirm,
	// Decider, PlanPath, PlanDigest and Resume itself.
	Options apply.Options
	// Resume is set when Options.JournalPath is an interrupted run to resume;
	// Journal is its state as recorded.
	Resume  bool
	Journal *journal.State

	// Reload reads the cluster again (the live source); nil for offline sources,
	// which do not change.
	Reload func(ctx context.Context) (*inspect.Snapshot, error)

	// Notices are lines from below the engine (the API server's warnings, client
	// logs) that would otherwise be written over the screen; the Apply screen's
	// log shows them. Nil when there are none.
	Notices <-chan string
}

// readOnlyReason is the reason shown for a read-only session.
func (s *Session) readOnlyReason() string {
	if !s.ReadOnly {
		return ""
	}
	if s.ReadOnlyReason == "" {
		return "read-only"
	}
	return s.ReadOnlyReason
}
