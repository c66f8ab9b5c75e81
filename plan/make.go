package plan

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/dirdigest"
	"github.com/openshift-recover/recover/plan/graph"
	"github.com/openshift-recover/recover/plan/payload"
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/plan/policy"
)

// Options are everything a plan is made from. (The plan document's own Inputs
// record where each came from and its digest.)
type Options struct {
	// Snapshot is the cluster's state (recover inspect); SnapshotSource names where
	// it came from for the plan's inputs ("" derives "<kind>:<location>").
	Snapshot       *inspect.Snapshot
	SnapshotSource string
	// Graph is the update graph, already filtered to its channel.
	Graph *graph.Result
	// Policy is the transition policy (nil: policy.Default()); PolicySource and
	// PolicyDigest name the file it came from ("": the built-in policy).
	Policy       *policy.Policy
	PolicySource string
	PolicyDigest string
	// Accept are the conditional-update risk names the user accepts (--accept).
	Accept []string
	// ForceReason, when set, makes set-desired-update force the update and is
	// recorded as why; a target that needs force requires it.
	ForceReason string
	// Payload loads the chosen target's payload.
	Payload PayloadSource
	// VerifyRelease, when set, verifies the chosen target's release image (its
	// by-digest pull spec) before its payload is loaded, and returns the plan's
	// Inputs.SignatureVerification record ("verified: ..." or "skipped: ...");
	// an error stops the plan (plan/payload/signature.Record does this).
	VerifyRelease func(ctx context.Context, pullSpec string) (string, error)
	// ReleaseSignatures are release signatures the admin supplied, verified
	// against the release keyring before planning: a release the CVO cannot
	// verify gets the signature remedy (remedy_signature.go).
	ReleaseSignatures ReleaseSignatures
	// Decision, when set, is Decide's decision for this Snapshot: Make plans
	// from the facts it read instead of reading them again (one read of the
	// planner's facts per plan, the mode decision included). A decision made
	// for another snapshot is not used; without one Make decides (Decide).
	Decision *Decision
	// TakeOver is the admin's reason for taking the wheel from the CVO
	// (--take-over): the Decision's admin-takes-over rule.
	TakeOver string
	// Now is the clock (default time.Now); Generator names the program that makes
	// the plan (default "recover"). Tests fix both for golden files.
	Now       func() time.Time
	Generator string
	// StageTarget, set by MakeStaged for stage 1, is the one release the
	// plan may target: the staged path chose it (stage.go).
	StageTarget string
	// Hold, set by MakeStaged for an EUS path whose first hop is paused, are
	// the worker pools held paused from this hop until the path's last stage
	// unpauses them. A push plan pauses them inside its CVO bracket (after
	// disable-cvo, once each is Updated) and never unpauses them; no plan
	// pauses them for the skew or waits on them.
	Hold *PoolHold
}

// PoolHold is what a staged plan holds paused across its hops: the worker
// pools of an EUS path, until the control plane reaches Until.
type PoolHold struct {
	Pools []string
	Until string
}

// PayloadSource loads the chosen target's release payload, with the cluster's
// inclusion inputs and the target's pull spec as the release image the CVO's own
// manifests are rendered with. It returns the payload and the plan's input record
// for it.
type PayloadSource interface {
	LoadPayload(ctx context.Context, target planfile.Target, in payload.Inclusion) (*payload.Payload, planfile.InputRef, error)
}

// PayloadDir is an extracted payload directory (--payload DIR). Version is the
// release version of a bare manifest tree without release-metadata.
type PayloadDir struct {
	Dir     string
	Version string
	// CacheDir is the decoded-payload cache (payload.Options.CacheDir); "" disables it.
	CacheDir string
}

// LoadPayload loads the directory.
func (d PayloadDir) LoadPayload(_ context.Context, t planfile.Target, in payload.Inclusion) (*payload.Payload, planfile.InputRef, error) {
	pl, err := payload.LoadDir(d.Dir, payload.Options{Inclusion: in, ReleaseImage: t.Image, Version: d.Version, CacheDir: d.CacheDir, DirDigest: true})
	if err != nil {
		return nil, planfile.InputRef{}, err
	}
	digest := pl.DirDigest
	if digest == "" { // a file the loader did not need could not be read: say which
		if digest, err = dirdigest.Sum(d.Dir); err != nil {
			return nil, planfile.InputRef{}, &InputError{Msg: fmt.Sprintf("payload %s: %v", d.Dir, err)}
		}
	}
	return pl, planfile.InputRef{Source: d.Dir, Digest: digest}, nil
}

// PayloadImage pulls a release image: PullSpec, or when empty the chosen
// target's pull spec from the graph.
type PayloadImage struct {
	PullSpec string
	Pull     payload.PullOptions
	// CacheDir is the decoded-payload cache (payload.Options.CacheDir); "" disables it.
	CacheDir string
}

// LoadPayload pulls (or finds in the cache) and loads the image.
func (p PayloadImage) LoadPayload(ctx context.Context, t planfile.Target, in payload.Inclusion) (*payload.Payload, planfile.InputRef, error) {
	spec := p.PullSpec
	if spec == "" {
		spec = t.Image
	}
	pl, err := payload.Load(ctx, spec, payload.Options{Inclusion: in, ReleaseImage: t.Image, CacheDir: p.CacheDir}, p.Pull)
	if err != nil {
		return nil, planfile.InputRef{}, err
	}
	return pl, planfile.InputRef{Source: spec, Digest: pl.Digest}, nil
}

// PayloadFunc adapts a function to PayloadSource (for callers that already hold
// a payload, such as tests and the TUI).
type PayloadFunc func(ctx context.Context, target planfile.Target, in payload.Inclusion) (*payload.Payload, planfile.InputRef, error)

// LoadPayload calls f.
func (f PayloadFunc) LoadPayload(ctx context.Context, t planfile.Target, in payload.Inclusion) (*payload.Payload, planfile.InputRef, error) {
	return f(ctx, t, in)
}

// Make makes the plan. With a Graph it is an update plan (ModeUpdate): it
// chooses the nearest safe target, loads its payload, orders the steps with the
// remedies first where they unblock, checks the plan against a model of the
// cluster, and returns the document. Without a Graph it is a remediation plan
// (ModeRemediation): the remedies and the CVO hand-back, no new release; a
// snapshot that needs one (TargetNeeded) is an *InputError that says so.
//
// It returns a *NoTargetError (with every candidate) when nothing qualifies, a
// *PayloadMismatchError when the payload given is not the target's, a
// *ForceRequiredError when the target needs force and no reason was given, a
// *RemedyRefusedError when something holds the update and every remedy for it
// is refused, an *AcceptError for a malformed --accept name, and a *CheckError
// if the checker refuses the plan.
func Make(ctx context.Context, in Options) (*planfile.Plan, error) {
	if in.Snapshot == nil {
		return nil, &InputError{Msg: "no snapshot"}
	}
	if err := ValidateAccept(in.Accept); err != nil {
		return nil, err
	}
	pol := in.Policy
	if pol == nil {
		pol = policy.Default()
	}
	now := time.Now
	if in.Now != nil {
		now = in.Now
	}
	created := now().UTC().Truncate(time.Second)
	d := in.decision()
	if d == nil {
		d = Decide(in.Snapshot, DecideInput{Accept: in.Accept, Signatures: in.ReleaseSignatures, TakeOver: in.TakeOver})
		in.Decision = d
	}
	p, err := makeOutcome(ctx, in, pol, created, d.Outcome)
	if err != nil {
		return nil, err
	}
	o := d.Outcome
	p.Outcome = &o
	// The writer validates what the reader validates (recover apply --plan).
	if err := planfile.Validate(p); err != nil {
		return nil, fmt.Errorf("the planner made a plan apply would refuse (a bug in recover): %w", err)
	}
	return p, nil
}

// makeOutcome makes the plan that carries out the outcome: none for advice,
// nothing or a refusal; a remediation plan for remedies (with or without a
// graph); an update plan when a release is needed and a graph was given.
func makeOutcome(ctx context.Context, in Options, pol *policy.Policy, created time.Time, o planfile.Outcome) (*planfile.Plan, error) {
	if !o.Kind.Makes() {
		if o.Kind == planfile.OutcomeRefused {
			if e := in.Decision.stage.refusedError(); e != nil {
				return nil, e
			}
		}
		return nil, &NoPlanError{Outcome: o}
	}
	if in.Graph == nil && o.Rule == RuleAdminTakesOver && len(hardNeeds(in.Decision.needs)) == 0 {
		return nil, &InputError{Msg: "--take-over pushes a target release's manifests: no update graph was given to choose it from", Hint: "pass --graph FILE|URL and --payload DIR|PULLSPEC with --take-over"}
	}
	if in.Graph == nil || o.Kind == planfile.OutcomeRemediation {
		return makeRemediation(in, pol, created)
	}
	if in.Payload == nil {
		return nil, &InputError{Msg: "no payload source", Hint: "pass --payload DIR|PULLSPEC, or let recover pull the target's image"}
	}
	sel, err := selectTarget(in.Snapshot, in.facts(), in.Graph, pol, in.Accept, in.StageTarget)
	if err != nil {
		return nil, err
	}
	if in.ForceReason != "" {
		sel.Target.Force, sel.Target.ForceReason = true, in.ForceReason
		sel.Target.Reasons = append(sel.Target.Reasons, "Forced (--force-reason): "+in.ForceReason+".")
	} else if len(sel.Force) > 0 {
		return nil, &ForceRequiredError{Target: sel.Target.Version, Why: sel.Force}
	}
	sigRecord := ""
	if in.VerifyRelease != nil {
		if sigRecord, err = in.VerifyRelease(ctx, sel.Target.Image); err != nil {
			return nil, err
		}
	}
	pl, plRef, err := in.Payload.LoadPayload(ctx, sel.Target, Inclusion(in.Snapshot))
	if err != nil {
		return nil, err
	}
	if pl.Release.Version != sel.Target.Version {
		return nil, &PayloadMismatchError{Given: plRef.Source, GivenVersion: pl.Release.Version, Target: sel.Target.Version, TargetImage: sel.Target.Image}
	}
	rs := newRemedyStage(in.Snapshot, sel.facts, in.Accept, in.ReleaseSignatures, created)
	if !sel.minorHop() {
		// The admin's promises hold minor updates only: a target within the
		// minor does not need them.
		for i := range rs.refused {
			if isPromise(rs.refused[i].Remedy) {
				rs.refused[i].blocking = false
			}
		}
	}
	hop := pushSteps
	mode, format := planfile.ModeUpdate, planfile.FormatVersion
	if o.Kind == planfile.OutcomeDriveCVO {
		hop, mode, format = driveSteps, planfile.ModeDriveCVO, planfile.FormatVersionDriveCVO
	}
	b := hop(sel, pl, rs)
	if err := blockingError(rs.refused, rs.groups); err != nil {
		return nil, err
	}
	gen := in.Generator
	if gen == "" {
		gen = "recover"
	}
	p := &planfile.Plan{
		APIVersion: planfile.APIVersion, Kind: planfile.Kind, FormatVersion: format,
		CreatedAt: created, Generator: gen, Mode: mode,
		Cluster: sel.facts.summary(), Target: sel.Target, Alternatives: sel.Alternatives(),
		Steps: b.steps, Skipped: sortedSkipped(b.skipped), Invariants: Invariants,
		Remediations: b.remediations,
	}
	if r := sel.retargetRemediation(p.Steps); r != nil {
		p.Remediations = append(p.Remediations, *r)
	}
	p.Inputs, err = inputs(in, &plRef, sigRecord)
	if err != nil {
		return nil, err
	}
	if sel.Target.Distance.Components == 0 && mode == planfile.ModeUpdate {
		p.Warnings = append(p.Warnings, fmt.Sprintf("every ClusterOperator already runs %s: the plan only re-applies what is not verified at %s and hands the CVO %s", sel.Target.Version, sel.Target.Version, sel.Target.Version))
	}
	p.Warnings = append(p.Warnings, b.warnings...)
	p.Warnings = append(p.Warnings, rs.warnings...)
	var refusedWarnings []string
	p.Refused, refusedWarnings = refusedList(rs.refused)
	p.Warnings = append(p.Warnings, refusedWarnings...)
	for _, name := range sel.facts.unknown {
		p.Warnings = append(p.Warnings, fmt.Sprintf("clusteroperator/%s reports no version and none could be verified: it was left out of target selection", name))
	}
	for _, w := range InclusionAssumptions(in.Snapshot, FeatureGated(pl)) {
		p.Warnings = append(p.Warnings, "payload inclusion: "+w)
	}
	for _, w := range pl.Warnings {
		p.Warnings = append(p.Warnings, "payload: "+w)
	}
	if err := check(p, in.Snapshot, pol, sel.facts); err != nil {
		return nil, err
	}
	return p, nil
}

// makeRemediation makes a remediation-only plan: no new release, the remedies
// and the CVO hand-back.
func makeRemediation(in Options, pol *policy.Policy, created time.Time) (*planfile.Plan, error) {
	s := in.Snapshot
	needs := TargetNeeded(s)
	if d := in.decision(); d != nil {
		needs = d.needs
	}
	if hard := hardNeeds(needs); len(hard) > 0 {
		return nil, targetNeededError(hard)
	}
	f := in.facts()
	rs := newRemedyStage(s, f, in.Accept, in.ReleaseSignatures, created)
	var retarget []string
	for _, n := range needs {
		if n.Retarget {
			retarget = append(retarget, n.Reason)
			rs.refused = append(rs.refused, refusal{RefusedRemedy: planfile.RefusedRemedy{Remedy: planfile.RemedyRetarget, Finding: n.Finding, Subject: n.Subject,
				Reason: n.Reason + "; no update graph was given: pass --graph FILE|URL (and --payload) to let recover consider a retarget"}, findingSubject: n.Subject})
		}
	}
	if len(rs.groups) == 0 {
		// Nothing to do but what is refused: say what is refused, and why.
		var refused []planfile.RefusedRemedy
		for _, r := range rs.refused {
			if r.Remedy != planfile.RemedyRetarget {
				refused = append(refused, r.RefusedRemedy)
			}
		}
		if len(refused) > 0 {
			return nil, &planfile.RemedyRefusedError{Refused: refused, All: refused}
		}
		why := "the snapshot shows nothing recover can remedy in place"
		if len(retarget) > 0 {
			why = strings.Join(retarget, "; ")
		}
		return nil, &InputError{Msg: "no remediation plan: " + why, Hint: "pass --graph FILE|URL (and --payload) to plan an update"}
	}
	if err := blockingError(rs.refused, rs.groups); err != nil {
		return nil, err
	}
	gen := in.Generator
	if gen == "" {
		gen = "recover"
	}
	steps, rems := remediationPlanSteps(s, rs)
	p := &planfile.Plan{
		APIVersion: planfile.APIVersion, Kind: planfile.Kind, FormatVersion: planfile.FormatVersion,
		CreatedAt: created, Generator: gen, Mode: planfile.ModeRemediation,
		Cluster: f.summary(), Target: remediationTarget(s), Steps: steps, Invariants: Invariants,
		Remediations: rems,
	}
	var err error
	if p.Inputs, err = inputs(in, nil, ""); err != nil {
		return nil, err
	}
	p.Warnings = append(p.Warnings, fmt.Sprintf("remediation only: no new release (no --graph); the plan unblocks the cluster and the restored CVO resumes its desired update %s", orWord(s.DesiredRelease().Version, "(unknown)")))
	if why := rs.stillRefused; why != "" {
		p.Warnings = append(p.Warnings, fmt.Sprintf("after this plan the CVO still refuses %s: %s; recover does not remedy that (see the findings)", orWord(s.DesiredRelease().Version, "its desired update"), why))
	}
	p.Warnings = append(p.Warnings, rs.warnings...)
	var refusedWarnings []string
	p.Refused, refusedWarnings = refusedList(rs.refused)
	p.Warnings = append(p.Warnings, refusedWarnings...)
	if err := check(p, s, pol, f); err != nil {
		return nil, err
	}
	return p, nil
}

// decision is in.Decision when it was made for in.Snapshot, else nil.
func (in Options) decision() *Decision {
	if d := in.Decision; d != nil && d.snapshot == in.Snapshot && d.facts != nil {
		return d
	}
	return nil
}

// facts are the planner's facts of in.Snapshot: the decision's, or read now.
func (in Options) facts() *facts {
	if d := in.decision(); d != nil {
		return withHeld(d.facts, in.Hold)
	}
	return withHeld(newFacts(in.Snapshot), in.Hold)
}

// withHeld are f with the pools a staged plan holds (Options.Hold) marked
// Held; f itself (the decision's) is not changed.
func withHeld(f *facts, h *PoolHold) *facts {
	if h == nil || len(h.Pools) == 0 {
		return f
	}
	hf := *f
	hf.hold = h
	hf.pools = slices.Clone(f.pools)
	for i := range hf.pools {
		hf.pools[i].Held = slices.Contains(h.Pools, hf.pools[i].Name)
	}
	return &hf
}

// isPromise reports whether a remedy is one of the admin's promises that only
// minor updates need.
func isPromise(remedy string) bool {
	switch remedy {
	case planfile.RemedyAdminAck, planfile.RemedyRemoveOverrides, planfile.RemedyUpgradeableTo:
		return true
	}
	return false
}

// inputs records the plan's inputs with their digests (no graph, payload and
// signature record in a remediation plan: plRef is nil).
func inputs(in Options, plRef *planfile.InputRef, sigRecord string) (planfile.Inputs, error) {
	var out planfile.Inputs
	src := in.SnapshotSource
	if src == "" {
		src = string(in.Snapshot.Source.Kind) + ":" + in.Snapshot.Source.Location
	}
	data, err := json.Marshal(in.Snapshot)
	if err != nil {
		return out, fmt.Errorf("digesting the snapshot: %w", err)
	}
	out.Snapshot = planfile.InputRef{Source: src, Digest: planfile.DigestBytes(data)}
	ps, pd := in.PolicySource, in.PolicyDigest
	if ps == "" {
		ps, pd = "builtin", policy.DefaultDigest()
	}
	out.Policy = &planfile.InputRef{Source: ps, Digest: pd}
	out.Accepted = append([]string(nil), in.Accept...)
	sort.Strings(out.Accepted)
	if plRef == nil {
		return out, nil
	}
	out.Graph = planfile.InputRef{Source: in.Graph.Source, Digest: in.Graph.Digest}
	if in.Graph.GraphData != "" {
		// graph.Load digested the directory in the pass that read it; the
		// digest is "" when a file the graph did not need could not be read
		// (or the graph was not loaded by graph.Load): say which.
		d := in.Graph.GraphDataDigest
		if d == "" {
			var err error
			if d, err = dirdigest.Sum(in.Graph.GraphData); err != nil {
				return out, &InputError{Msg: fmt.Sprintf("graph-data %s: %v", in.Graph.GraphData, err)}
			}
		}
		out.GraphData = &planfile.InputRef{Source: in.Graph.GraphData, Digest: d}
	}
	out.Channel = in.Graph.Channel
	out.Payload = *plRef
	out.SignatureVerification = "skipped: recover plan does not verify release signatures; the CVO verifies the target when it starts"
	if sigRecord != "" {
		out.SignatureVerification = sigRecord
	}
	if in.ForceReason != "" && !strings.HasPrefix(out.SignatureVerification, "verified") {
		out.SignatureVerification += ", unless force is set (it is: " + in.ForceReason + ")"
	}
	return out, nil
}
