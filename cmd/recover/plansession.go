package main

import (
	"context"
	"strings"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/graph"
)

// planSession is how a snapshot becomes a plan, decided in one place for
// `recover plan` and `recover tui`: the mode (remediation only, or an update
// that needs a graph), the planner's options (the clock, the generator, the
// policy, the force reason, signature verification, the verified release
// signatures) and Make. The TUI keeps it and re-plans from the snapshot it
// holds now (after a reload, the re-read one).
type planSession struct {
	inputs      *planInputFlags
	policy      *policyFlag
	signatures  *signatureFlags
	forceReason string
}

// planMode is what a snapshot asks of the planner when no --graph or --payload
// chooses for it.
type planMode struct {
	// Remediation: no new release is needed and there is something to remedy.
	Remediation bool
	// Needs are why a new release is needed ("" none); NothingToRemedy is set
	// when none is needed and no wedge is answered either.
	Needs           []string
	NothingToRemedy bool
}

// graphGiven reports whether the flags name a graph or a payload: the plan is
// then an update plan.
func (ps *planSession) graphGiven() bool { return ps.inputs.Graph != "" || ps.inputs.Payload != "" }

// mode decides, without --graph and --payload, between a remediation-only plan
// and an update (plan.TargetNeeded, plan.Remedial).
func (ps *planSession) mode(snap *inspect.Snapshot, accept []string, sigs plan.ReleaseSignatures) planMode {
	var m planMode
	for _, n := range plan.TargetNeeded(snap) {
		m.Needs = append(m.Needs, n.Reason)
	}
	switch {
	case len(m.Needs) > 0:
	case plan.Remedial(snap, accept, sigs):
		m.Remediation = true
	default:
		m.NothingToRemedy = true
	}
	return m
}

// needsText joins why a new release is needed.
func (m planMode) needsText() string { return strings.Join(m.Needs, "; ") }

// options are the planner's options for snap: a remediation plan when g is
// nil, an update plan over g (with the payload flags) otherwise.
func (ps *planSession) options(snap *inspect.Snapshot, g *graph.Result, accept []string, sigs plan.ReleaseSignatures) plan.Options {
	in := plan.Options{
		Snapshot: snap, Accept: accept, ForceReason: ps.forceReason,
		Generator: "recover " + currentVersion().Version, Now: clock(),
		VerifyRelease: ps.signatures.verifier(), ReleaseSignatures: sigs,
	}
	if g != nil {
		in.Graph, in.Payload = g, ps.inputs.payloadSource()
	}
	ps.policy.setOn(&in)
	return in
}

// replanner returns the TUI's Replan: the same session's plan, from the
// snapshot the TUI holds when it asks, with the names it accepts; g is the
// graph of an update session (nil: remediation only, re-decided per snapshot).
func (ps *planSession) replanner(g *graph.Result) func(ctx context.Context, snap *inspect.Snapshot, accept []string) (*plan.Plan, error) {
	return func(ctx context.Context, snap *inspect.Snapshot, accept []string) (*plan.Plan, error) {
		if g == nil {
			if m := ps.mode(snap, accept, nil); !m.Remediation {
				if len(m.Needs) > 0 {
					return nil, usageError{msg: "the re-read cluster needs a new release, not only remedies (" + m.needsText() + "): " + planHint}
				}
				return nil, usageError{msg: "the re-read cluster shows nothing to remedy: " + planHint}
			}
		}
		return plan.Make(ctx, ps.options(snap, g, accept, nil))
	}
}
