package plan

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/openshift-recover/recover/internal/nextcmd"
	"github.com/openshift-recover/recover/internal/openshift"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan/payload"
	"github.com/openshift-recover/recover/plan/planfile"
)

// controlPlaneOperands are the static-pod operands that must be verified at the
// target on every master before a pool may roll a newer kubelet.
var controlPlaneOperands = []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler"}

// builder assembles a plan's steps from the selection and the target payload.
type builder struct {
	f      *facts
	sel    *Selection
	pl     *payload.Payload
	target string
	image  string
	force  bool

	comps    map[string]*componentInfo
	steps    []planfile.Step
	skipped  []planfile.SkippedComponent
	warnings []string
	// pausedByPlan are the pools the plan pauses, in order.
	pausedByPlan []string
	// pauseReasons explain each pause.
	pauseReasons map[string]string

	// rs is the remediation stage; remedyPools are the user-paused pools it
	// unpauses, deferred those whose unpause must wait, like the plan's own, for
	// the control plane to reach the target; rolled the static-pod components the
	// target rolls anyway.
	rs           *remedyStage
	remedyPools  map[string]bool
	deferred     map[string]bool
	rolled       map[string]bool
	remediations []planfile.Remediation
}

// componentInfo is what the builder knows of one payload component.
type componentInfo struct {
	name      string
	manifests int
	// cos are its ClusterOperator manifests.
	cos []*payload.Manifest
	// skip is set when the snapshot verifies it at the target; why says how, or
	// why it cannot be skipped.
	skip bool
	why  string
}

// buildSteps turns the target payload into steps, with the remedies placed
// where they unblock: inside disable-cvo and before the pool pauses and the
// manifests, the admin's promises before set-desired-update, and the waits for
// what the CVO computes after restore-cvo.
func buildSteps(sel *Selection, pl *payload.Payload, force bool, rs *remedyStage) *builder {
	b := &builder{f: sel.facts, sel: sel, pl: pl, target: sel.Target.Version, image: sel.Target.Image, force: force,
		comps: map[string]*componentInfo{}, pauseReasons: map[string]string{}, rs: rs, deferred: map[string]bool{}}
	b.analyzeComponents()
	b.remedyPools = map[string]bool{}
	for _, g := range rs.groups {
		if g.pool != "" {
			b.remedyPools[g.pool] = true
		}
	}
	b.decidePauses()
	manifestSteps := b.manifestSteps()
	b.dropRemediesTheTargetMakes(manifestSteps)
	b.steps = append(b.steps, planfile.Step{Action: planfile.ActionDisableCVO, Reason: disableReason(b.f.s, false),
		Gate: &planfile.Gate{Kind: planfile.GateCVOScaledDown, Description: "no cluster-version operator pod is left running"}})
	b.steps = placeGroups(b.steps, rs.groups, func(g *remedyGroup) bool {
		return g.phase < phasePromises && !b.deferred[g.pool] && !b.dropped(g)
	})
	if h := b.f.hold; h != nil {
		for _, pool := range h.Pools {
			b.steps = append(b.steps, holdSteps(pool, h.Until)...)
		}
	}
	for _, pool := range b.pausedByPlan {
		b.steps = append(b.steps, planfile.Step{Action: planfile.ActionPausePool, Pool: pool, Reason: b.pauseReasons[pool]})
	}
	b.steps = b.withUnpauses(b.steps, manifestSteps)
	b.steps = append(b.steps, b.endWaits()...)
	b.steps = placeGroups(b.steps, rs.groups, func(g *remedyGroup) bool { return g.phase == phasePromises })
	b.steps = append(b.steps, planfile.Step{Action: planfile.ActionSetDesiredUpdate,
		DesiredUpdate: &planfile.DesiredUpdate{Version: b.target, Image: b.image, Force: force},
		Reason:        b.desiredReason()})
	b.steps = append(b.steps, planfile.Step{Action: planfile.ActionRestoreCVO, Reason: b.restoreReason(),
		Gate: &planfile.Gate{Kind: planfile.GateCVORunning, Description: fmt.Sprintf("the CVO Deployment is available again and ClusterVersion shows it working on %s", b.target)}})
	b.steps = placePosts(b.steps, rs.groups)
	numberSteps(b.steps)
	b.remediations = link(b.steps, rs.groups)
	return b
}

// dropped reports whether an update plan leaves a remedy group out.
func (b *builder) dropped(g *remedyGroup) bool { return g.component != "" && b.rolled[g.component] }

// dropRemediesTheTargetMakes leaves out the forced redeployment of a static-pod
// component the target rolls to a new revision anyway (its static-pods gate then
// checks every node), and the refusals of one.
func (b *builder) dropRemediesTheTargetMakes(ms []planfile.Step) {
	b.rolled = map[string]bool{}
	for i := range ms {
		if st := &ms[i]; st.Spec().WaitOnly && st.Gate != nil && st.Gate.StaticPods != nil {
			if sp := inspect.StaticPodComponentFor(st.Gate.StaticPods.Resource); sp != nil {
				b.rolled[sp.Component] = true
			}
		}
	}
	said := map[string]bool{}
	say := func(c string) {
		if !said[c] {
			said[c] = true
			b.warnings = append(b.warnings, fmt.Sprintf("%s: the %s payload rolls a new %s revision to every control-plane node, and its static-pods gate checks every mirror pod, so no forced redeployment (--accept %s%s) is needed", c, b.target, c, planfile.AcceptForceRedeployment, c))
		}
	}
	for _, g := range b.rs.groups {
		if b.dropped(g) {
			say(g.component)
		}
	}
	var kept []refusal
	for _, r := range b.rs.refused {
		if r.component != "" && b.rolled[r.component] {
			continue // the static-pods gate's reason says the target rolls it
		}
		kept = append(kept, r)
	}
	b.rs.refused = kept
}

// analyzeComponents groups the payload's included manifests by component and
// decides which components are verified at the target already.
func (b *builder) analyzeComponents() {
	var order []string
	for _, m := range b.pl.Included() {
		ci := b.comps[m.Component]
		if ci == nil {
			ci = &componentInfo{name: m.Component}
			b.comps[m.Component] = ci
			order = append(order, m.Component)
		}
		ci.manifests++
		if isClusterOperator(m) {
			ci.cos = append(ci.cos, m)
		}
	}
	for _, name := range order {
		ci := b.comps[name]
		switch {
		case name == "":
			ci.why = "its file names carry no run-level and component; nothing verifies it, so it is applied"
		case name == openshift.CVOComponent:
			if cvo := b.f.s.CVO; cvo != nil && len(cvo.Containers) > 0 && cvo.Containers[0].Image == b.image {
				ci.skip, ci.why = true, "the CVO Deployment already runs the "+b.target+" release image"
			} else {
				ci.why = "the CVO's own manifests of " + b.target + ": applied while it is scaled to 0, so the CVO that restore-cvo starts is " + b.target + "'s"
			}
		case len(ci.cos) == 0:
			ci.why = "no ClusterOperator verifies this component: every object is applied, and apply changes only what differs from the cluster"
		default:
			ci.skip, ci.why = b.componentAtTarget(ci)
		}
		if ci.skip {
			sc := planfile.SkippedComponent{Component: name, Manifests: ci.manifests, Reason: ci.why}
			for _, co := range ci.cos {
				sc.ClusterOperators = append(sc.ClusterOperators, co.Name)
			}
			b.skipped = append(b.skipped, sc)
		}
	}
}

// isClusterOperator reports whether a manifest is a ClusterOperator.
func isClusterOperator(m *payload.Manifest) bool {
	return openshift.ManifestWaitFor(m.APIVersion, m.Kind, m.Namespace, m.Name) == openshift.WaitClusterOperator
}

// declaredVersions returns a ClusterOperator manifest's status.versions.
func declaredVersions(m *payload.Manifest) []planfile.OperandVersion {
	var out []planfile.OperandVersion
	if m.Object == nil {
		return nil
	}
	status, _ := m.Object.Object["status"].(map[string]any)
	list, _ := status["versions"].([]any)
	for _, item := range list {
		e, _ := item.(map[string]any)
		name, _ := e["name"].(string)
		version, _ := e["version"].(string)
		if name != "" {
			out = append(out, planfile.OperandVersion{Name: name, Version: version})
		}
	}
	return out
}

// componentAtTarget reports whether every ClusterOperator of a component is
// verified at the versions the target declares (OperatorAtTarget). why says what
// was verified or what is not there.
func (b *builder) componentAtTarget(ci *componentInfo) (bool, string) {
	var ok []string
	for _, m := range ci.cos {
		if at, why := OperatorAtTarget(b.f.s, m.Name, declaredVersions(m)); !at {
			return false, why
		}
		ok = append(ok, m.Name)
	}
	return true, fmt.Sprintf("clusteroperator/%s verified at %s (running operator Deployment%s), Available and not Degraded",
		strings.Join(ok, ", clusteroperator/"), b.target, staticSuffix(ci))
}

func staticSuffix(ci *componentInfo) string {
	for _, m := range ci.cos {
		if sp := inspect.StaticPodComponentFor(m.Name); sp != nil && sp.ClusterOperator == m.Name {
			return "; every node's mirror pod at the latest revision with the operand image"
		}
	}
	return ""
}

// versionEvidence describes a version fact for a reason.
func versionEvidence(vf inspect.VersionFact) string {
	if vf.Verified != "" {
		return vf.Verified + " (verified)"
	}
	if vf.Claimed != "" {
		return "claimed " + vf.Claimed + " but " + vf.Method
	}
	return "unknown (" + vf.Method + ")"
}

// decidePauses picks the pools to pause right after the CVO is disabled: every
// unpaused pool that runs, or would roll, a kubelet newer than the oldest running
// kube-apiserver.
func (b *builder) decidePauses() {
	f := b.f
	for _, p := range f.pools {
		if p.Held {
			// The staged plan holds it paused across the hop (holdSteps)
			// and its last stage unpauses it (MakeStaged).
			continue
		}
		if p.Paused && b.remedyPools[p.Name] {
			// The remedy unpauses it: first when its kubelets stay within the
			// kube-apiserver's minor, else where the plan unpauses its own pools.
			if ahead, rolls := b.aheadOf(p); len(ahead) > 0 || rolls {
				b.deferred[p.Name] = true
			}
			continue
		}
		if p.Paused {
			msg := fmt.Sprintf("MachineConfigPool %s was paused before recovery (spec.paused=true): recover leaves it paused and never unpauses a pool it did not pause, so its nodes keep their kubelets", p.Name)
			if p.Required && b.comps["machine-config-operator"] != nil && !b.comps["machine-config-operator"].skip {
				msg += fmt.Sprintf("; machine-config reports %s only once this pool has rolled out, so its gate waits until you unpause the pool (%s) after kube-apiserver, kube-controller-manager and kube-scheduler are verified at %s", b.target, nextcmd.PausePool(p.Name, false), b.target)
			}
			b.warnings = append(b.warnings, msg)
			continue
		}
		if !f.kasOK {
			continue
		}
		ahead, rolls := b.aheadOf(p)
		if len(ahead) == 0 && !rolls {
			continue
		}
		why := fmt.Sprintf("Keep the MCO from rolling kubelets ahead of the kube-apiserver (oldest running %s):", f.kas.Version)
		if rolls {
			rel := p.Release
			if rel == "" {
				rel = "an unknown release"
			}
			why += fmt.Sprintf(" the pool's configuration %s (%s) carries kubelet %s", p.Config, rel, strings.TrimSuffix(p.Kube, ".0"))
			if p.Rolling {
				why += " and is rolling out"
			}
			why += ";"
		}
		if len(ahead) > 0 {
			why += " " + strings.Join(ahead, "; ") + ";"
		}
		why += fmt.Sprintf(" it is unpaused only after kube-apiserver, kube-controller-manager and kube-scheduler are verified at %s on every master.", b.target)
		b.pausedByPlan = append(b.pausedByPlan, p.Name)
		b.pauseReasons[p.Name] = why
	}
}

// aheadOf says which of a pool's nodes run, or are moving to, a kubelet newer
// than the oldest running kube-apiserver, and whether the pool's configuration
// rolls one (nothing when the kube-apiserver is unknown).
func (b *builder) aheadOf(p poolFact) (ahead []string, rolls bool) {
	f := b.f
	if !f.kasOK {
		return nil, false
	}
	kas := kubeMinor(f.kas.Version)
	for _, n := range f.nodes {
		if n.Pool != p.Name {
			continue
		}
		if k := kubeMinor(n.Kubelet); k > kas {
			ahead = append(ahead, fmt.Sprintf("%s runs kubelet %s", n.Name, n.Kubelet))
		} else if n.UpdatingKube != "" && kubeMinor(n.UpdatingKube) > kas {
			ahead = append(ahead, fmt.Sprintf("%s is already updating to %s (kubelet %s); pausing does not stop a node in flight", n.Name, n.Updating, strings.TrimSuffix(n.UpdatingKube, ".0")))
		}
	}
	return ahead, p.Kube != "" && kubeMinor(p.Kube) > kas
}

// manifestSteps returns the apply and delete steps in the CVO's update order,
// with a static-pods wait after each static-pod operator's ClusterOperator.
func (b *builder) manifestSteps() []planfile.Step {
	stageOf := map[*payload.Manifest]int{}
	for _, st := range b.pl.Order.Stages {
		for _, g := range st.Groups {
			for _, m := range g.Manifests {
				stageOf[m] = st.Index
			}
		}
	}
	var out []planfile.Step
	for _, m := range b.pl.Order.Linear() {
		ci := b.comps[m.Component]
		if ci != nil && ci.skip {
			continue
		}
		st := planfile.Step{Action: planfile.ActionApply, RunLevel: m.RunLevel, Component: m.Component, Group: stageOf[m], Manifest: planfile.EmbedManifest(m)}
		if m.Delete {
			st.Action = planfile.ActionDelete
		}
		st.Gate, st.Reason = b.manifestGate(m, ci)
		out = append(out, st)
		if isClusterOperator(m) {
			if sp := inspect.StaticPodComponentFor(m.Name); sp != nil && sp.ClusterOperator == m.Name && !m.Delete {
				out = append(out, b.staticPodsWait(m, sp, stageOf[m]))
			}
		}
	}
	planfile.DigestManifests(out)
	return out
}

// manifestGate returns a manifest step's gate and reason.
func (b *builder) manifestGate(m *payload.Manifest, ci *componentInfo) (*planfile.Gate, string) {
	where := fmt.Sprintf("%s, run-level %s", planfile.OrDash(m.Component), planfile.OrDash(m.RunLevel))
	comp := ""
	switch {
	case ci == nil || ci.why == "":
	case len(ci.cos) > 0:
		comp = " Now: " + ci.why + "."
	default:
		comp = " " + upperFirst(ci.why) + "."
	}
	ref := &planfile.ObjectRef{APIVersion: m.APIVersion, Kind: m.Kind, Namespace: m.Namespace, Name: m.Name}
	obj := m.Kind + " " + planfile.Qualified(m.Namespace, m.Name)
	if m.Delete {
		return nil, fmt.Sprintf("The %s payload deletes %s (release.openshift.io/delete=true; %s); the CVO issues the delete in this place of its order and does not wait for it.", b.target, obj, where)
	}
	verb := "Apply"
	if m.CreateOnly {
		verb = "Create if absent (release.openshift.io/create-only: never updated)"
	}
	switch wait := openshift.ManifestWaitFor(m.APIVersion, m.Kind, m.Namespace, m.Name); {
	case wait == openshift.WaitClusterOperator:
		declared := declaredVersions(m)
		if len(declared) == 0 {
			b.warnings = append(b.warnings, fmt.Sprintf("the %s manifest of clusteroperator/%s declares no versions: CVO main would fail it (ClusterOperatorNoVersions); the plan waits on its conditions, as the 4.4 CVO did", b.target, m.Name))
			g := &planfile.Gate{Kind: planfile.GateClusterOperator, ClusterOperator: m.Name,
				Description: fmt.Sprintf("clusteroperator/%s reports Available=True, Progressing=False and Degraded=False", m.Name)}
			return g, fmt.Sprintf("%s %s (%s). It declares no versions: wait, as the 4.4 CVO did, until the operator is Available and neither Progressing nor Degraded.%s", verb, obj, where, comp)
		}
		for _, d := range declared {
			if d.Name == "operator" && d.Version != b.target {
				b.warnings = append(b.warnings, fmt.Sprintf("clusteroperator/%s's manifest declares operator version %q, not %s: the payload's placeholders were not substituted (not built by oc adm release new?); the gate waits for what the manifest declares, as the CVO would", m.Name, d.Version, b.target))
			}
		}
		g := &planfile.Gate{Kind: planfile.GateClusterOperator, ClusterOperator: m.Name, Versions: declared,
			Description: fmt.Sprintf("clusteroperator/%s reports %s with Available=True and Degraded=False", m.Name, versionList(declared))}
		reason := fmt.Sprintf("Precreate %s if absent, as the CVO does (its status belongs to the operator; %s), and wait, as the CVO does before it moves on, until the operator reports %s's versions.%s", obj, where, b.target, comp)
		if m.Name == openshift.MachineConfigOperator {
			reason += " machine-config reports its new version only once the master pool has rolled out."
		}
		return g, reason
	case wait == openshift.WaitCRDEstablished:
		return &planfile.Gate{Kind: planfile.GateCRDEstablished, Object: ref, Description: "CustomResourceDefinition " + m.Name + " is Established"},
			fmt.Sprintf("%s %s (%s); later manifests may create its objects.%s", verb, obj, where, comp)
	case openshift.IsCVODeployment(m.APIVersion, m.Kind, m.Namespace, m.Name):
		return nil, fmt.Sprintf("%s the CVO's own Deployment of %s (%s): apply keeps its replicas at 0 while the CVO is disabled, so restore-cvo starts the %s CVO.", verb, b.target, where, b.target)
	case wait == openshift.WaitRollout:
		return &planfile.Gate{Kind: planfile.GateWorkloadRollout, Object: ref, Description: obj + " has rolled out (observed generation, updated and available replicas)"},
			fmt.Sprintf("%s %s (%s) and wait for its rollout, as the CVO's resource builder does.%s", verb, obj, where, comp)
	case wait == openshift.WaitJobComplete:
		return &planfile.Gate{Kind: planfile.GateWorkloadRollout, Object: ref, Description: obj + " has completed"},
			fmt.Sprintf("%s %s (%s): a Job is a barrier in the CVO's order and must succeed before anything after it.%s", verb, obj, where, comp)
	}
	return nil, fmt.Sprintf("%s %s (%s).%s", verb, obj, where, comp)
}

// staticPodsWait is the wait step after a static-pod operator's ClusterOperator:
// the operator's claims are checked against the mirror pods on every node.
func (b *builder) staticPodsWait(m *payload.Manifest, sp *inspect.StaticPodComponent, stage int) planfile.Step {
	reason := fmt.Sprintf("Verify reality, not the operator's claim: every control-plane node must run the %s static pod at %s/cluster's latest revision (mirror pod label), Ready, with nodeStatuses agreeing.", sp.Component, sp.Resource.Resource)
	if why := staticPodsBehind(b.f.s, sp); why != "" {
		reason += " Now: " + why + "."
	}
	for _, fd := range b.f.s.Findings {
		if (fd.Code == inspect.CodeInstallerSucceededWithoutRevision || fd.Code == inspect.CodeStaticPodRevisionMismatch) && fd.Details["component"] == sp.Component {
			reason += fmt.Sprintf(" The snapshot found %s on %s: the %s payload rolls a new %s revision to every control-plane node, %s included, so no forced redeployment is needed; this gate checks each mirror pod, not the operator's claim.",
				fd.Code, fd.Details["node"], b.target, sp.Component, fd.Details["node"])
			break
		}
	}
	var masters []string
	for _, n := range b.f.nodes {
		if n.ControlPlane {
			masters = append(masters, n.Name)
		}
	}
	desc := fmt.Sprintf("every control-plane node runs %s at the latest revision (mirror pod label, Ready), and nodeStatuses agree", sp.Component)
	if len(masters) > 0 {
		desc = fmt.Sprintf("%s (%s) run %s at the latest revision (mirror pod label, Ready), and nodeStatuses agree", strings.Join(masters, ", "), pluralNodes(len(masters)), sp.Component)
	}
	return planfile.Step{Action: planfile.ActionWait, RunLevel: m.RunLevel, Component: m.Component, Group: stage, Reason: reason,
		Gate: &planfile.Gate{Kind: planfile.GateStaticPods, Description: desc,
			StaticPods: StaticPodsGateFor(sp, 0)}}
}

// StaticPodsGateFor is the static-pods gate of a static-pod component: its
// operator resource and where its mirror pods are, with minRevision (0: none)
// the revision a forced rollout must reach.
func StaticPodsGateFor(sp *inspect.StaticPodComponent, minRevision int32) *planfile.StaticPodsGate {
	return &planfile.StaticPodsGate{Resource: sp.Resource.Resource, Namespace: sp.Namespace, PodPrefix: sp.PodPrefix, MinRevision: minRevision}
}

func pluralNodes(n int) string {
	if n == 1 {
		return "the control-plane node"
	}
	return "control-plane nodes"
}

// withUnpauses appends the manifest steps to out with the unpause steps of the
// pools the plan paused (and the remedy unpauses deferred to the same place):
// after the last static-pods gate of kube-apiserver, kube-controller-manager and
// kube-scheduler, and, when the plan updates the MCO, not before its Deployment
// has rolled out (so the pool rolls the target's configuration once), but before
// the machine-config gate (which waits for the master pool).
func (b *builder) withUnpauses(out, ms []planfile.Step) []planfile.Step {
	var deferred []*remedyGroup
	for _, g := range b.rs.groups {
		if g.pool != "" && b.deferred[g.pool] {
			deferred = append(deferred, g)
		}
	}
	if len(b.pausedByPlan) == 0 && len(deferred) == 0 {
		return append(out, ms...)
	}
	lastCP, mcoCO := -1, -1
	for i, st := range ms {
		if st.Spec().WaitOnly && st.Gate != nil && st.Gate.StaticPods != nil {
			if sp := inspect.StaticPodComponentFor(st.Gate.StaticPods.Resource); sp != nil && slices.Contains(controlPlaneOperands, sp.Component) {
				lastCP = i
			}
		}
		if st.Manifest != nil && openshift.IsClusterOperator(st.Manifest.APIVersion, st.Manifest.Kind) && st.Manifest.Name == openshift.MachineConfigOperator && mcoCO < 0 {
			mcoCO = i
		}
	}
	at := lastCP + 1
	if mcoCO > lastCP {
		at = mcoCO
	}
	out = append(out, ms[:at]...)
	for _, pool := range b.pausedByPlan {
		why := fmt.Sprintf("kube-apiserver, kube-controller-manager and kube-scheduler are verified at %s on every master (their static-pods gates above), so the MCO may now roll this pool's kubelets: no kubelet can be newer than the kube-apiserver. recover paused this pool itself; it never unpauses a pool the user paused unless inspect found that the pause holds the update.", b.target)
		if mcoCO > lastCP {
			why += fmt.Sprintf(" Unpaused after the %s MCO has rolled out, so the pool rolls %s's configuration, and before the machine-config gate, which waits for the master pool.", b.target, b.target)
		}
		out = append(out, planfile.Step{Action: planfile.ActionUnpausePool, Pool: pool, Reason: why})
	}
	for _, g := range deferred {
		for i := range g.steps {
			g.steps[i].Reason += fmt.Sprintf(" Placed here, not first: the pool's kubelets would get ahead of the kube-apiserver before kube-apiserver, kube-controller-manager and kube-scheduler are verified at %s on every master.", b.target)
		}
		out = placeGroups(out, []*remedyGroup{g}, func(*remedyGroup) bool { return true })
	}
	return append(out, ms[at:]...)
}

// endWaits are the waits the end state needs before the CVO takes over: a
// required pool the plan unpaused whose rollout no machine-config gate covers.
func (b *builder) endWaits() []planfile.Step {
	mcoGated := false
	for _, st := range b.steps {
		if st.Gate != nil && st.Gate.Kind == planfile.GateClusterOperator && st.Gate.ClusterOperator == openshift.MachineConfigOperator {
			mcoGated = true
		}
	}
	var out []planfile.Step
	for _, pool := range b.pausedByPlan {
		p := b.f.pool(pool)
		if p == nil || !p.Required || mcoGated {
			continue
		}
		out = append(out, planfile.Step{Action: planfile.ActionWait, Pool: pool,
			Reason: fmt.Sprintf("The plan unpaused pool %s and no machine-config gate waits for it: let it roll out before the CVO takes over, so the update it resumes starts from a settled control plane.", pool),
			Gate:   &planfile.Gate{Kind: planfile.GatePoolUpdated, Pool: pool, Description: "MachineConfigPool " + pool + " has every machine updated"}})
	}
	return out
}

func (b *builder) desiredReason() string {
	r := fmt.Sprintf("Hand the update back to the CVO: spec.desiredUpdate %s by digest, so the CVO that restore-cvo starts runs in Updating mode (run-level order) toward %s instead of resuming what it was doing.", b.target, b.target)
	if b.force {
		r += " force is set: " + b.sel.Target.ForceReason + "."
	}
	return r
}

func (b *builder) restoreReason() string {
	return fmt.Sprintf("Scale the CVO back to its journaled replicas: it re-applies %s in run-level order, finds the plan's work done, and finishes what remains (the worker pools roll; ClusterVersion history records %s).", b.target, b.target)
}

// numberSteps gives every step its stable ID: a zero-padded position and a slug
// of the action and object ("014-apply-deployment-kube-apiserver-operator").
func numberSteps(steps []planfile.Step) {
	width := max(3, len(strconv.Itoa(len(steps))))
	for i := range steps {
		steps[i].ID = fmt.Sprintf("%0*d-%s", width, i+1, slug(&steps[i]))
	}
}

// dashRuns replaces every run of characters other than a-z and 0-9 with one '-',
// as regexp [^a-z0-9]+ would: a multi-byte or invalid UTF-8 sequence is bytes
// outside the class either way.
func dashRuns(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	inRun := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') {
			b.WriteByte(c)
			inRun = false
		} else if !inRun {
			b.WriteByte('-')
			inRun = true
		}
	}
	return b.String()
}

func slug(s *planfile.Step) string {
	var parts []string
	parts = append(parts, string(s.Action))
	switch {
	case s.Manifest != nil:
		parts = append(parts, s.Manifest.Kind, s.Manifest.Name)
	case s.Pool != "":
		parts = append(parts, s.Pool)
	case s.CSR != nil:
		parts = append(parts, s.CSR.Name)
	case s.Change != nil:
		parts = append(parts, changeIDWords(s)...)
	case s.Gate != nil && (s.Gate.Kind == planfile.GateNodesSettled || s.Gate.Kind == planfile.GateNodesReady) && len(s.Gate.Nodes) > 0:
		parts = append(parts, string(s.Gate.Kind), s.Gate.Nodes[0])
	case s.Gate != nil && s.Gate.Kind == planfile.GateConditionCleared:
		parts = append(parts, s.Gate.Condition, s.Gate.Reason)
	case s.Gate != nil && s.Gate.StaticPods != nil:
		name := s.Gate.StaticPods.PodPrefix
		if sp := inspect.StaticPodComponentFor(s.Gate.StaticPods.Resource); sp != nil {
			name = sp.Component
		}
		parts = append(parts, "static-pods", name)
	}
	out := strings.Trim(dashRuns(strings.ToLower(strings.Join(parts, "-"))), "-")
	if len(out) > 64 {
		out = strings.TrimRight(out[:64], "-")
	}
	return out
}

// changeIDWords are the words of a change step's ID after its action's name:
// its action's (ActionSpec.idWords), or its object's kind, namespace and name,
// the kind by its short name where kubectl has one ("pdb").
func changeIDWords(s *planfile.Step) []string {
	if f := s.Spec().IDWords; f != nil {
		if w := f(s); w != nil {
			return w
		}
	}
	o := s.Change.Object
	kind := o.Kind
	if short, ok := kindShortNames[kind]; ok {
		kind = short
	}
	return []string{kind, o.Namespace, o.Name}
}

// kindShortNames are the kubectl short names step IDs use.
var kindShortNames = map[string]string{"PodDisruptionBudget": "pdb"}

func versionList(vs []planfile.OperandVersion) string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Name+" "+v.Version)
	}
	return strings.Join(out, ", ")
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// sortedSkipped orders skipped components by name.
func sortedSkipped(sc []planfile.SkippedComponent) []planfile.SkippedComponent {
	sort.Slice(sc, func(i, j int) bool { return sc[i].Component < sc[j].Component })
	return sc
}
