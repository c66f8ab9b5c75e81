package main

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/spf13/pflag"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/nextcmd"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/graph"
	"github.com/openshift-recover/recover/plan/planfile"
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
	// takeOver is the admin's reason for taking the wheel from the CVO
	// (--take-over), the decision's admin-takes-over rule.
	takeOver string
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

// decide makes the one decision for snap (plan.Decide: the Outcome every
// consumer prints), with the accepted names, the supplied signatures and the
// admin's --take-over.
func (ps *planSession) decide(ctx context.Context, snap *inspect.Snapshot, accept []string) (*plan.Decision, error) {
	sigs, err := ps.releaseSignatures(ctx, snap)
	if err != nil {
		return nil, err
	}
	return plan.Decide(snap, plan.DecideInput{Accept: accept, Signatures: sigs, TakeOver: ps.takeOver}), nil
}

// make makes the plan that carries out d, snap's decision: a remediation plan,
// or an update plan over g (with the payload flags) when the outcome needs a
// release; a *plan.NoPlanError when the outcome makes none.
func (ps *planSession) make(ctx context.Context, snap *inspect.Snapshot, g *graph.Result, accept []string, d *plan.Decision) (*planfile.Plan, error) {
	sigs, err := ps.releaseSignatures(ctx, snap)
	if err != nil {
		return nil, err
	}
	in := plan.Options{
		Snapshot: snap, Accept: accept, ForceReason: ps.forceReason, TakeOver: ps.takeOver,
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
// snapshot the TUI holds when it asks, with the names it accepts, re-decided
// per snapshot; g is the graph of an update session (nil: none was given).
func (ps *planSession) replanner(g *graph.Result) func(ctx context.Context, snap *inspect.Snapshot, accept []string) (*planfile.Plan, error) {
	return func(ctx context.Context, snap *inspect.Snapshot, accept []string) (*planfile.Plan, error) {
		d, err := ps.decide(ctx, snap, accept)
		if err != nil {
			return nil, err
		}
		return ps.make(ctx, snap, g, accept, d)
	}
}

// addGoalFlags registers --to and --eus, the staged plan's goal (recover plan,
// and recover inspect --save-plan, which stores the same plan in the cluster).
func addGoalFlags(fs *pflag.FlagSet, to *string, eus *bool) {
	fs.StringVar(to, nextcmd.FlagTo, "", "Plan stages to this release: one hop per minor, each intermediate named with why (--accept N:NAME accepts for stage N only).")
	fs.BoolVar(eus, nextcmd.FlagEUS, false, "With --to: the EUS control-plane-only path: the worker pools stay paused across the intermediate minor and are unpaused at the end.")
}

// graph loads the update graph: --graph, or the cluster's own update service
// (its upstream and channel, plan.ResolveGraphSource); what it chose is said
// on errOut, prefixed with the command's name.
func (ps *planSession) graph(ctx context.Context, snap *inspect.Snapshot, errOut io.Writer, cmd string) (*graph.Result, error) {
	src := plan.ResolveGraphSource(snap, ps.inputs.Channel, ps.inputs.Graph)
	ps.inputs.Channel, ps.inputs.Graph = src.Channel, src.Graph
	if src.ChannelFromCluster {
		fmt.Fprintf(errOut, "%s: no --channel given; using the cluster's channel %s\n", cmd, src.Channel)
	}
	if src.Unnarrowed() {
		fmt.Fprintf(errOut, "%s: no --channel given and the cluster names none; every release in the graph is a candidate\n", cmd)
	}
	g, err := ps.inputs.loadGraph(ctx)
	if err != nil {
		return nil, fmt.Errorf("loading the update graph: %w", err)
	}
	return g, nil
}

// staged makes the staged plan to ps.to for snap, as recover plan --to does:
// the decision, the update graph (ps.graph), then plan.MakeStaged.
func (ps *planSession) staged(ctx context.Context, snap *inspect.Snapshot, accept []string, errOut io.Writer, cmd string) (*planfile.Plan, error) {
	d, err := ps.decide(ctx, snap, accept)
	if err != nil {
		return nil, err
	}
	g, err := ps.graph(ctx, snap, errOut, cmd)
	if err != nil {
		return nil, err
	}
	return ps.make(ctx, snap, g, accept, d)
}
