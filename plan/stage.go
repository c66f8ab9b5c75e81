package plan

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/graph"
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/plan/policy"
)

// StagedOptions are a staged plan's inputs: the per-hop planner's Options (its
// Graph the whole graph) and the goal.
type StagedOptions struct {
	Options
	// To is the goal release.
	To string
	// EUS plans the control-plane-only path: the worker pools are paused
	// before the first minor hop and unpaused once the control plane is at To.
	EUS bool
}

// StageRefusedError says why no staged plan was made: the stage that cannot
// be taken and the rule that refuses it.
type StageRefusedError struct {
	Stage    int
	From, To string
	Rule     string
	Reason   string
	Hint     string
}

func (e *StageRefusedError) Error() string {
	where := ""
	if e.Stage > 0 {
		where = fmt.Sprintf("stage %d (%s -> %s): ", e.Stage, e.From, e.To)
	}
	msg := fmt.Sprintf("no staged plan: %s%s: %s", where, e.Rule, e.Reason)
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

// ExitCode is 6, as a NoTargetError's: no safe target for a stage.
func (e *StageRefusedError) ExitCode() int { return planfile.ExitNoSafeTarget }

// RuleStagedGoal is the outcome rule of a staged plan's first hop: the admin
// named the goal (recover plan --to), so the CVO is driven there.
const RuleStagedGoal = "staged-goal"

// The StageRefusedError rules beside policy's.
const (
	StageRuleNoPath       = "no-staged-path"
	StageRuleOLMMaxOCP    = "olm-max-openshift-version"
	StageRulePoolAdmin    = "pool-paused-by-admin"
	StageRulePoolUpdating = "pool-not-updated"
)

// pausedPoolCAMargin is how long before the kube-apiserver-to-kubelet-signer
// expires a paused pool stops being safe: the MCO's
// MachineConfigControllerPausedPoolKubeletCA alert turns critical 14 days
// before it (MCO #2802; update-wedges.md W11), because a paused pool does not
// receive the rotated kubelet CA bundle.
const pausedPoolCAMargin = 14 * 24 * time.Hour

// MakeStaged makes a staged plan from the cluster to in.To: one stage per
// minor (and a patch stage first when the cluster's release leads nowhere),
// each target the release graph.StagedPath names and the per-hop rules accept
// (edges, risks, Upgradeable, kubelet skew, the operators' maximum OpenShift).
// Stage 1 is planned by Make, on the graph restricted to its target; later
// stages are checked against the cluster as it will be then (every operator at
// the stage's From, the workers where they are when paused) and outlined.
func MakeStaged(ctx context.Context, in StagedOptions) (*planfile.Plan, error) {
	if in.Snapshot == nil {
		return nil, &InputError{Msg: "no snapshot"}
	}
	if in.Graph == nil || in.Graph.Graph == nil {
		return nil, &InputError{Msg: "no update graph", Hint: "pass --graph FILE|URL: a staged plan follows its edges"}
	}
	perStage, common, err := splitStageAccept(in.Accept)
	if err != nil {
		return nil, err
	}
	pol := in.Policy
	if pol == nil {
		pol = policy.Default()
	}
	f := in.facts()
	if len(f.present) == 0 {
		return nil, &InputError{Msg: "the snapshot has no ClusterOperator with a version: nothing tells where the cluster is", Hint: "inspect it with 'recover inspect' and check that clusteroperators were collected"}
	}
	// From the oldest release any operator runs: a cluster wedged mid-update
	// finishes that hop as its first stage when the path goes through it (the
	// per-hop planner checks the edges from every release it runs).
	from := f.present[0]
	g := in.Graph.Graph
	var accepted []string
	accepted = append(accepted, common...)
	for _, a := range perStage {
		accepted = append(accepted, a...)
	}
	// The risks the cluster already accepts (spec.desiredUpdate.acceptRisks)
	// open conditional edges too, as evaluate counts them (plan/risks.go).
	accepted = withClusterAccepted(in.Snapshot, accepted)
	path, err := g.StagedPath(from, in.To, accepted...)
	if err != nil {
		var qe *graph.QueryError
		if errors.As(err, &qe) {
			return nil, &InputError{Msg: err.Error(), Hint: "name a release of the graph newer than the cluster's with --to"}
		}
		return nil, &StageRefusedError{From: from, To: in.To, Rule: StageRuleNoPath, Reason: err.Error(),
			Hint: "pick another --to, or another --channel whose graph has the edges"}
	}
	for n := range perStage {
		if n > len(path.Stages) {
			return nil, &InputError{Msg: fmt.Sprintf("--accept %d:... names stage %d, but the path to %s has %d stage(s)", n, n, path.To, len(path.Stages)),
				Hint: "number the stages as the plan lists them, from 1"}
		}
	}
	stages := make([]planfile.Stage, len(path.Stages))
	for i, h := range path.Stages {
		st := planfile.Stage{Index: i + 1, From: h.From, To: stripBuild(h.To), Image: h.Image, Edge: string(h.Edge.State), Workers: planfile.WorkersFollow, Passed: h.Passed}
		st.Accept = append(slices.Clone(common), perStage[i+1]...)
		if in.EUS && minorOf(st.From) != minorOf(st.To) && i < len(path.Stages)-1 {
			st.Workers = planfile.WorkersPaused
		}
		stages[i] = st
	}
	if in.EUS {
		if err := checkPoolsForEUS(f, stages); err != nil {
			return nil, err
		}
	}
	// Later stages: the rules on the cluster as it will be.
	for i := range stages {
		st := &stages[i]
		if err := checkOLMMax(in.Snapshot, st); err != nil {
			return nil, err
		}
		sf := f
		if i > 0 {
			sf = stageFacts(f, st.From, in.EUS && stages[i-1].Workers == planfile.WorkersPaused)
		}
		e := evaluate(sf, g, pol, st.Accept, candidate{version: st.To, image: st.Image, node: nodeOf(g, path.Stages[i].To)})
		if i > 0 && e.class() == 2 {
			v := e.violations[0]
			return nil, &StageRefusedError{Stage: st.Index, From: st.From, To: st.To, Rule: string(v.Rule), Reason: v.Reason,
				Hint: stageHint(v.Rule, in.EUS)}
		}
		st.Reasons = stageReasons(path, i, st, e, in.EUS)
	}
	// Stage 1, by the per-hop planner. The admin asked for the goal (--to):
	// unless the decision already replaces the CVO, stage 1 is a hop the CVO
	// drives (issue 31's drive-cvo), even where nothing holds the cluster.
	first := in.Options
	first.Accept = stages[0].Accept
	first.StageTarget = path.Stages[0].To
	if in.EUS && stages[0].Workers == planfile.WorkersPaused {
		first.Hold = &PoolHold{Pools: workerPools(f), Until: path.To}
	}
	first.Decision = Decide(in.Snapshot, DecideInput{Accept: first.Accept, Signatures: in.ReleaseSignatures, TakeOver: in.TakeOver, Goal: path.To})
	first.Graph = &graph.Result{Graph: g.Restrict(append(slices.Clone(f.present), path.Stages[0].To)...), Digest: in.Graph.Digest, GraphDataDigest: in.Graph.GraphDataDigest}
	p, err := Make(ctx, first)
	if err != nil {
		var nt *NoTargetError
		if errors.As(err, &nt) {
			reason := err.Error()
			if c := candidateOfVersion(nt, stages[0].To); c != nil {
				reason = c.Reason
				return nil, &StageRefusedError{Stage: 1, From: stages[0].From, To: stages[0].To, Rule: c.Rule, Reason: reason, Hint: stageHint(policy.Rule(c.Rule), in.EUS)}
			}
		}
		return nil, err
	}
	if p.Target.Version != stages[0].To {
		return nil, &StageRefusedError{Stage: 1, From: stages[0].From, To: stages[0].To, Rule: StageRuleNoPath,
			Reason: fmt.Sprintf("the per-hop planner chose %s, not the stage's %s", p.Target.Version, stages[0].To)}
	}
	if p.FormatVersion != planfile.FormatVersionDriveCVO { // 1.5 has the stages too
		p.FormatVersion = planfile.FormatVersionStages
	}
	p.Goal = path.To
	if path.Direct != "" {
		p.GoalReasons = append(p.GoalReasons, "Not in one hop: "+path.Direct+".")
	}
	p.GoalReasons = append(p.GoalReasons, fmt.Sprintf("%d stage(s): %s.", len(stages), stageChain(stages)))
	for i := range stages {
		st := &stages[i]
		if i > 0 {
			st.Steps = stageOutline(st, acceptedEdgeRisks(path.Stages[i].Edge, st.Accept))
		}
		if st.Workers == planfile.WorkersPaused {
			st.Warnings = append(st.Warnings, pausedPoolWarning(in.Snapshot, f, time.Now))
		}
	}
	if in.EUS {
		pauseAndUnpause(f, stages, path.To, p.Steps)
	}
	for i := range stages {
		numberSteps(stages[i].Steps)
		for j := range stages[i].Steps {
			stages[i].Steps[j].ID = fmt.Sprintf("stage%d-%s", stages[i].Index, stages[i].Steps[j].ID)
		}
	}
	p.Stages = stages
	// The writer validates what the reader validates (recover apply --plan).
	if err := planfile.Validate(p); err != nil {
		return nil, fmt.Errorf("the planner made a staged plan apply would refuse (a bug in recover): %w", err)
	}
	return p, nil
}

// ValidateStagedAccept checks --accept for a staged plan: every name as
// ValidateAccept reads it, with an optional "N:" naming the stage it holds for.
func ValidateStagedAccept(accept []string) error {
	_, _, err := splitStageAccept(accept)
	return err
}

// splitStageAccept splits --accept into the names for every stage and those
// of one stage ("2:admin-ack:ack-4.19-kube-1.32-api-removals-in-4.20").
func splitStageAccept(accept []string) (map[int][]string, []string, error) {
	per := map[int][]string{}
	var common []string
	for _, a := range accept {
		n, rest, ok := strings.Cut(a, ":")
		idx := 0
		if ok {
			if _, err := fmt.Sscanf(n, "%d", &idx); err != nil || fmt.Sprint(idx) != n {
				idx = 0
			}
		}
		if idx > 0 {
			if err := ValidateAccept([]string{rest}); err != nil {
				return nil, nil, err
			}
			per[idx] = append(per[idx], rest)
			continue
		}
		if err := ValidateAccept([]string{a}); err != nil {
			return nil, nil, err
		}
		common = append(common, a)
	}
	return per, common, nil
}

// stageFacts are the cluster's facts as they will be when a stage starts:
// every operator at at, the control plane's kubelets at at's Kubernetes, the
// workers' where they are when their pools stayed paused (else at at's too).
func stageFacts(f *facts, at string, workersPaused bool) *facts {
	sf := &facts{s: f.s, history: f.history, operands: map[string]map[string]string{}}
	for _, o := range f.operators {
		sf.operators = append(sf.operators, operatorFact{Name: o.Name, Version: at, Claimed: at, Verified: true, Evidence: "stage start"})
	}
	sf.present = []string{at}
	kube := kubeForRelease(at)
	if kube != "" {
		sf.kas, sf.kasOK = inspect.KubeAPIServerVersion{Version: kube}, true
	}
	for _, n := range f.nodes {
		nn := nodeFact{Name: n.Name, ControlPlane: n.ControlPlane, Pool: n.Pool, Kubelet: "v" + kube}
		if !n.ControlPlane && workersPaused || kube == "" {
			nn.Kubelet = maxKube(n.Kubelet, n.UpdatingKube)
		}
		sf.nodes = append(sf.nodes, nn)
	}
	return sf
}

// checkPoolsForEUS refuses an EUS path whose worker pools recover cannot own:
// one the admin paused (recover does not unpause what it did not pause) or,
// when stage 1 pauses, one not Updated (pausing it would freeze it half-rolled:
// oran-o2ims checks this too). A later stage's pause waits for the pool to be
// Updated (its pool-updated gate) instead.
func checkPoolsForEUS(f *facts, stages []planfile.Stage) error {
	paused := false
	for _, st := range stages {
		paused = paused || st.Workers == planfile.WorkersPaused
	}
	if !paused {
		return nil
	}
	st := stages[0]
	for _, p := range f.pools {
		if p.Name == "master" || isControlPlanePool(f, p) {
			continue
		}
		switch {
		case p.Paused:
			return &StageRefusedError{Stage: 1, From: st.From, To: st.To, Rule: StageRulePoolAdmin,
				Reason: fmt.Sprintf("machineconfigpool/%s is already paused, and not by recover: recover does not unpause what it did not pause", p.Name),
				Hint:   fmt.Sprintf("unpause it yourself once you are done with it (oc patch mcp %s --type merge -p '{\"spec\":{\"paused\":false}}'), let it update, and plan again", p.Name)}
		case p.Rolling && stages[0].Workers == planfile.WorkersPaused:
			return &StageRefusedError{Stage: 1, From: st.From, To: st.To, Rule: StageRulePoolUpdating,
				Reason: fmt.Sprintf("machineconfigpool/%s is not Updated (machines are still moving to its configuration): pausing it now would freeze it half-rolled", p.Name),
				Hint:   fmt.Sprintf("wait for oc get mcp %s to show UPDATED True, and plan again", p.Name)}
		}
	}
	return nil
}

// isControlPlanePool reports whether every node of a pool is a control-plane node.
func isControlPlanePool(f *facts, p poolFact) bool {
	if len(p.Nodes) == 0 {
		return false
	}
	for _, name := range p.Nodes {
		for _, n := range f.nodes {
			if n.Name == name && !n.ControlPlane {
				return false
			}
		}
	}
	return true
}

// workerPools are the pools an EUS path pauses: every pool but the control plane's.
func workerPools(f *facts) []string {
	var out []string
	for _, p := range f.pools {
		if p.Name != "master" && !isControlPlanePool(f, p) {
			out = append(out, p.Name)
		}
	}
	return out
}

// checkOLMMax refuses a stage into a minor newer than an installed operator's
// olm.maxOpenShiftVersion: OLM reports Upgradeable=False
// (IncompatibleOperatorsInstalled) before that minor update, and the CVO
// refuses it (OLM #2081).
func checkOLMMax(s *inspect.Snapshot, st *planfile.Stage) error {
	to, err := inspect.ParseVersion(st.To)
	if err != nil || minorOf(st.From) == minorOf(st.To) {
		return nil
	}
	for _, o := range s.OLMOperators {
		max, err := inspect.ParseVersion(normalizeMinor(o.MaxOpenShiftVersion))
		if err != nil {
			continue
		}
		if max.Major < to.Major || max.Major == to.Major && max.Minor < to.Minor {
			return &StageRefusedError{Stage: st.Index, From: st.From, To: st.To, Rule: StageRuleOLMMaxOCP,
				Reason: fmt.Sprintf("the operator %s/%s declares olm.maxOpenShiftVersion %s: OLM holds the update to %d.%d (IncompatibleOperatorsInstalled)", o.Namespace, o.Name, o.MaxOpenShiftVersion, to.Major, to.Minor),
				Hint:   fmt.Sprintf("update %s to a version that supports %d.%d, or uninstall it, then plan again", o.Name, to.Major, to.Minor)}
		}
	}
	return nil
}

// normalizeMinor turns "4.19" into "4.19.0" for parsing.
func normalizeMinor(v string) string {
	v = strings.Trim(strings.TrimSpace(v), `"`)
	if strings.Count(v, ".") == 1 {
		return v + ".0"
	}
	return v
}

// minorOf is "4.19" of "4.19.3".
func minorOf(v string) string {
	pv, err := inspect.ParseVersion(v)
	if err != nil {
		return v
	}
	return fmt.Sprintf("%d.%d", pv.Major, pv.Minor)
}

func nodeOf(g *graph.Graph, v string) *graph.Node {
	n, ok := g.Node(v)
	if !ok {
		return nil
	}
	return &n
}

func candidateOfVersion(nt *NoTargetError, v string) *planfile.Candidate {
	if nt.Selection == nil {
		return nil
	}
	for i := range nt.Selection.Candidates {
		if nt.Selection.Candidates[i].Version == v {
			return &nt.Selection.Candidates[i]
		}
	}
	return nil
}

// stageHint says what to do about a refused stage.
func stageHint(r policy.Rule, eus bool) string {
	switch r {
	case policy.RuleKubeletSkew:
		if eus {
			return "the workers cannot stay paused across this path: plan without --eus (the workers follow every stage), or to a nearer --to"
		}
		return "update the lagging pools first, then plan again"
	case policy.RuleUpgradeableFalse:
		return "clear the Upgradeable=False cause (recover inspect shows it), then plan again"
	case policy.RuleUnacceptedRisk:
		return "name the risk for this stage with --accept N:RISK once you have judged it"
	}
	return "see recover inspect, then plan again"
}

// stageReasons say why a stage's target was chosen.
func stageReasons(path *graph.StagePath, i int, st *planfile.Stage, e *evaluation, eus bool) []string {
	var out []string
	h := path.Stages[i]
	if i == len(path.Stages)-1 {
		out = append(out, fmt.Sprintf("The goal, over the edge %s -> %s (%s).", h.From, h.To, h.Edge.State))
	} else if minorOf(h.From) == minorOf(h.To) {
		out = append(out, fmt.Sprintf("%s has no usable edge into a %s release that leads to %s: first %s, in its own minor, which does.", h.From, nextMinorName(h.To), path.To, h.To))
	} else {
		out = append(out, fmt.Sprintf("The newest %s release with an edge from %s and one onward to %s.", minorOf(h.To), h.From, path.To))
	}
	for _, p := range h.Passed {
		if p.Rule == graph.PassedNoEdgeOnward {
			out = append(out, fmt.Sprintf("Not %s: %s.", p.Version, p.Reason))
		}
	}
	if st.Workers == planfile.WorkersPaused {
		out = append(out, fmt.Sprintf("Workers stay paused (EUS control-plane-only): %s allows kubelets %d minor(s) behind.", minorOf(h.To), lagOf(h.To)))
	}
	for _, v := range e.violations {
		if v.Class == policy.ClassAcceptable {
			out = append(out, fmt.Sprintf("Needs for this stage: %s (%s).", v.Reason, v.Rule))
		}
	}
	if len(e.edges) > 0 {
		out = append(out, "Edges: "+strings.Join(e.edges, "; ")+".")
	}
	return out
}

func nextMinorName(v string) string {
	pv, err := inspect.ParseVersion(v)
	if err != nil {
		return "next-minor"
	}
	return fmt.Sprintf("%d.%d", pv.Major, pv.Minor+1)
}

// lagOf is the kubelet lag a release's kube-apiserver allows (inspect's rule).
func lagOf(v string) int {
	pv, err := inspect.ParseVersion(v)
	if err != nil {
		return 1
	}
	return inspect.KubeletLagAllowed(pv.Major, pv.Minor)
}

func stageChain(stages []planfile.Stage) string {
	parts := []string{stages[0].From}
	for _, s := range stages {
		parts = append(parts, s.To)
	}
	return strings.Join(parts, " -> ")
}

// pauseAndUnpause puts the worker pools' pause before the first paused stage's
// desiredUpdate and their unpause after the last stage's: journaled changes
// that apply's revert-on-stop undoes (unpause-pool reverts pause-pool). A
// first hop that recover pushes holds them inside its own CVO bracket
// (Options.Hold): first are its steps, and a pool they pause already is not
// paused again.
func pauseAndUnpause(f *facts, stages []planfile.Stage, goal string, first []planfile.Step) {
	workers := workerPools(f)
	firstPaused := slices.IndexFunc(stages, func(st planfile.Stage) bool { return st.Workers == planfile.WorkersPaused })
	if firstPaused < 0 || len(workers) == 0 {
		return
	}
	var pause []planfile.Step
	for _, pool := range workers {
		if firstPaused == 0 && slices.ContainsFunc(first, func(s planfile.Step) bool { return s.Action == planfile.ActionPausePool && s.Pool == pool }) {
			continue
		}
		pause = append(pause, holdSteps(pool, goal)...)
	}
	st := &stages[firstPaused]
	st.Steps = append(pause, st.Steps...)
	last := &stages[len(stages)-1]
	for _, pool := range workers {
		last.Steps = append(last.Steps, planfile.Step{Action: planfile.ActionUnpausePool, Pool: pool, Reason: fmt.Sprintf("the control plane is at %s: pool %s updates straight to it", goal, pool),
			Gate: &planfile.Gate{Kind: planfile.GatePoolUpdated, Pool: pool, Description: fmt.Sprintf("pool %s reports Updated at %s", pool, goal)}})
	}
}

// holdSteps pause a worker pool for an EUS path once it is Updated (a pause
// freezes a pool half-rolled), until the control plane reaches goal.
func holdSteps(pool, goal string) []planfile.Step {
	return []planfile.Step{
		{Action: planfile.ActionWait, Reason: fmt.Sprintf("pool %s is paused only once it is Updated: a pause freezes a pool half-rolled", pool),
			Gate: &planfile.Gate{Kind: planfile.GatePoolUpdated, Pool: pool, Description: fmt.Sprintf("pool %s reports Updated", pool)}},
		{Action: planfile.ActionPausePool, Pool: pool, Reason: fmt.Sprintf("EUS control-plane-only path: pool %s (Updated) keeps its kubelets until the control plane reaches %s", pool, goal)},
	}
}

// stageOutline is a later stage's outline: hand the CVO the stage's target and
// wait until it reports it (planned again in full once the stage starts).
func stageOutline(st *planfile.Stage, acceptRisks []string) []planfile.Step {
	return handToCVO(cvoHop{to: st.To, image: st.Image, acceptRisks: acceptRisks,
		why:   fmt.Sprintf("stage %d: the CVO carries the cluster from %s to %s", st.Index, st.From, st.To),
		lands: fmt.Sprintf("stage %d lands when the control plane runs %s", st.Index, st.To)})
}

// acceptedEdgeRisks are the names of an edge's conditional-update risks the
// admin accepted: what the stage's desired update carries in acceptRisks.
func acceptedEdgeRisks(e graph.Edge, accept []string) []string {
	var out []string
	for _, r := range e.Risks {
		if slices.Contains(accept, r.Name) && !slices.Contains(out, r.Name) {
			out = append(out, r.Name)
		}
	}
	return out
}

// cvoHop is a hop the CVO carries out itself: the target recover hands it and
// what the steps say.
type cvoHop struct {
	to, image string
	force     bool
	// acceptRisks are the conditional-update risks the admin accepted for it.
	acceptRisks []string
	// why is set-desired-update's reason; lands the landing wait's.
	why, lands string
	// landing are the versions the target's machine-config ClusterOperator
	// declares (its payload manifest's status.versions); nil: operator at
	// to. noLanding: the target declares no machine-config ClusterOperator
	// (a reduced payload), so nothing but the CVO marks its landing.
	landing   []planfile.OperandVersion
	noLanding bool
}

// handToCVO is the one way recover hands the CVO a target and waits for it,
// with the CVO running: set-desired-update (by digest, with the risks the
// admin accepted) gated on ClusterVersion showing the CVO working on the
// target, then a wait for the control plane at the target. The first step is
// always the set-desired-update; the rest are waits.
func handToCVO(h cvoHop) []planfile.Step {
	steps := []planfile.Step{{Action: planfile.ActionSetDesiredUpdate, Reason: h.why,
		DesiredUpdate: &planfile.DesiredUpdate{Version: h.to, Image: h.image, Force: h.force, AcceptRisks: h.acceptRisks},
		Gate:          &planfile.Gate{Kind: planfile.GateCVORunning, Description: fmt.Sprintf("ClusterVersion shows the CVO working on %s", h.to)}}}
	if h.noLanding {
		return steps
	}
	landing := h.landing
	if len(landing) == 0 {
		landing = []planfile.OperandVersion{{Name: "operator", Version: h.to}}
	}
	// The machine-config operator is the last of the CVO's run levels
	// (0000_80_machine-config): at the target, the control plane is there.
	return append(steps, planfile.Step{Action: planfile.ActionWait, Reason: h.lands,
		Gate: &planfile.Gate{Kind: planfile.GateClusterOperator, ClusterOperator: openshift.MachineConfigOperator, Versions: landing,
			Description: fmt.Sprintf("%s reports %s, Available, not Degraded", openshift.MachineConfigOperator, h.to)}})
}

// pausedPoolWarning names how long a paused pool stays safe.
func pausedPoolWarning(s *inspect.Snapshot, f *facts, now func() time.Time) string {
	base := "a paused pool does not get the rotated kubelet CA bundle (MCO #2802): the MachineConfigControllerPausedPoolKubeletCA alert warns after 1h paused and turns critical 14 days before the kube-apiserver-to-kubelet-signer expires"
	for _, c := range s.Certificates {
		if strings.Contains(c.Name, "kube-apiserver-to-kubelet-signer") && !c.NotAfter.IsZero() {
			safe := c.NotAfter.Add(-pausedPoolCAMargin)
			return fmt.Sprintf("%s: this cluster's signer expires %s, so the pools must be unpaused before %s", base, c.NotAfter.UTC().Format(time.RFC3339), safe.UTC().Format(time.RFC3339))
		}
	}
	return base + "; the snapshot does not show the signer's expiry: check the secret's auth.openshift.io/certificate-not-after before pausing for long"
}
