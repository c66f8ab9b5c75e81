package main

import (
	"context"
	"sync"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/graph"
)

// planSession is how a snapshot becomes a plan, decided in one place for
// `recover plan` and `recover tui`: the release signatures the admin supplied,
// verified once per snapshot; the mode (remediation only, or an update that
// needs a graph: plan.Decide, whose facts the plan is then made from); the
// planner's options (the clock, the generator, the policy, the force reason,
// signature verification) and Make. The TUI keeps it and re-plans from the
// snapshot it holds now (after a reload, the re-read one).
type planSession struct {
	inputs      *planInputFlags
	policy      *policyFlag
	signatures  *signatureFlags
	forceReason string
	// to and eus make a staged plan to a goal (plan.MakeStaged).
	to  string
	eus bool

	// sigs are the verified release signatures of the snapshot sigsOf.
	mu     sync.Mutex
	sigsOf *inspect.Snapshot
	sigs   plan.ReleaseSignatures
}

// graphGiven reports whether the flags name a graph or a payload: the plan is
// then an update plan.
func (ps *planSession) graphGiven() bool { return ps.inputs.Graph != "" || ps.inputs.Payload != "" }

// releaseSignatures are the release signatures the admin supplied for the
// releases snap's CVO cannot verify, verified against the release keyring
// (signatureFlags.releaseSignatures): once per snapshot, however often the
// session re-plans it.
func (ps *planSession) releaseSignatures(ctx context.Context, snap *inspect.Snapshot) (plan.ReleaseSignatures, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.sigsOf == snap {
		return ps.sigs, nil
	}
	sigs, err := ps.signatures.releaseSignatures(ctx, snap)
	if err != nil {
		return nil, err
	}
	ps.sigsOf, ps.sigs = snap, sigs
	return sigs, nil
}

// decide decides, without --graph and --payload, between a remediation-only
// plan and an update (plan.Decide), with the accepted names and the supplied
// signatures.
func (ps *planSession) decide(ctx context.Context, snap *inspect.Snapshot, accept []string) (*plan.Decision, error) {
	sigs, err := ps.releaseSignatures(ctx, snap)
	if err != nil {
		return nil, err
	}
	return plan.Decide(snap, accept, sigs), nil
}

// make makes snap's plan: a remediation plan when g is nil, an update plan
// over g (with the payload flags) otherwise; d is the decision made for snap,
// whose facts the plan is made from (nil: none was made).
func (ps *planSession) make(ctx context.Context, snap *inspect.Snapshot, g *graph.Result, accept []string, d *plan.Decision) (*plan.Plan, error) {
	sigs, err := ps.releaseSignatures(ctx, snap)
	if err != nil {
		return nil, err
	}
	in := plan.Options{
		Snapshot: snap, Accept: accept, ForceReason: ps.forceReason,
		Generator: "recover " + currentVersion().Version, Now: clock(),
		VerifyRelease: ps.signatures.verifier(), ReleaseSignatures: sigs, Decision: d,
	}
	if g != nil {
		in.Graph, in.Payload = g, ps.inputs.payloadSource()
	}
	ps.policy.setOn(&in)
	if ps.to != "" && g != nil {
		return plan.MakeStaged(ctx, plan.StagedOptions{Options: in, To: ps.to, EUS: ps.eus})
	}
	return plan.Make(ctx, in)
}

// replanner returns the TUI's Replan: the same session's plan, from the
// snapshot the TUI holds when it asks, with the names it accepts; g is the
// graph of an update session (nil: remediation only, re-decided per snapshot).
func (ps *planSession) replanner(g *graph.Result) func(ctx context.Context, snap *inspect.Snapshot, accept []string) (*plan.Plan, error) {
	return func(ctx context.Context, snap *inspect.Snapshot, accept []string) (*plan.Plan, error) {
		var d *plan.Decision
		if g == nil {
			var err error
			if d, err = ps.decide(ctx, snap, accept); err != nil {
				return nil, err
			}
			if err := replanError(d); err != nil {
				return nil, err
			}
		}
		return ps.make(ctx, snap, g, accept, d)
	}
}

// replanError says why a session without a graph cannot re-plan: the re-read
// snapshot needs a new release, or shows nothing to remedy (nil: it can).
func replanError(d *plan.Decision) error {
	switch {
	case d.Remediation:
		return nil
	case len(d.Needs) > 0:
		return usageError{msg: "the re-read cluster needs a new release, not only remedies (" + d.NeedsText() + "): " + planHint}
	}
	return usageError{msg: "the re-read cluster shows nothing to remedy: " + planHint}
}
