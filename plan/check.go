package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/plan/policy"
)

// The invariants Check asserts, by rule name. Plans list them in Invariants.
const (
	InvariantCVOBracketing  = "cvo-bracketing"
	InvariantManifestDigest = "manifest-digest"
	InvariantRunLevelOrder  = "run-level-order"
	InvariantGates          = "gates"
	InvariantKubeletSkew    = "kubelet-skew"
	InvariantControlPlane   = "control-plane-skew"
	InvariantNoDowngrade    = "no-forbidden-downgrade"
	InvariantPools          = "pools"
	InvariantDesiredUpdate  = "desired-update"
	InvariantTemporary      = "temporary-changes"
	InvariantRemedies       = "remedies"
)

// Invariants describes every invariant Check asserts, in the order it checks them.
var Invariants = []string{
	InvariantCVOBracketing + ": an update plan runs every step that changes the cluster between one disable-cvo and one restore-cvo, only waits follow restore-cvo, and it sets the desired update before restore-cvo; a remediation plan never sets one (the CVO resumes the update it has), and brackets its remedies the same way unless the CVO keeps the wheel (Updating mode), where no step changes what the CVO manages; a drive-cvo plan never disables the CVO and changes nothing it manages",
	InvariantManifestDigest + ": every embedded manifest matches its digest; apply steps never carry release.openshift.io/delete=true, delete steps always do",
	InvariantRunLevelOrder + ": manifest steps follow the CVO's update order: stages never go back, and a component's files keep their order",
	InvariantGates + ": every step that needs a gate has the right one (ClusterOperator versions, CRD Established, workload rollout, static pods on every master after each static-pod operator, CVO scaled down and running; CSR issued after an approval, restored after a revert, a new static-pod revision after a forced redeployment, the pool rolled out after a remedy unpause)",
	InvariantKubeletSkew + ": no kubelet newer than the oldest kube-apiserver and none further behind than the policy allows: no step creates or worsens a violation, and none is left at the end",
	InvariantControlPlane + ": kube-apiserver instances stay within one minor; kube-controller-manager and kube-scheduler are never newer than the oldest kube-apiserver",
	InvariantNoDowngrade + ": no ClusterOperator gate moves a component down across a minor, or down within one further than the policy allows",
	InvariantPools + ": only pools the plan paused are unpaused, all of them by the end (but the pools a staged plan holds paused until its last stage), and no gate waits on a pool the plan keeps paused; a pool the user paused is unpaused only by an unpause-pool remedy for a pool whose PoolPaused finding says the pause blocks the update",
	InvariantDesiredUpdate + ": the desired update names the target by digest, with force only when the target gives a reason and acceptRisks only names the admin accepted; a drive-cvo plan sets it once",
	InvariantTemporary + ": every temporary change names exactly one later revert step of the same object, no step in between changes that object, and none is left unreverted at the end",
	InvariantRemedies + ": no guard PodDisruptionBudget is relaxed, and a relaxed one is at its limit (inspect.PDBAtLimit) and restored only after a nodes-settled wait; every approved CSR is vouched for on the snapshot (inspect.CSRVouch) as the step describes it; every admin promise (force-redeployment, admin-ack, remove-overrides, upgradeable-to) is named in the plan's accepted inputs; every change sets exactly its fields",
}

// span is a range of Kubernetes minors some instances may run: lo is guaranteed
// (every instance is at least there), hi is possible (some instance may be there).
type span struct{ lo, hi int }

type nodeModel struct {
	kube span
	pool string
}

type poolModel struct {
	paused, byUser, byPlan bool
	// held: a staged plan holds it paused past this plan (Options.Hold):
	// paused by the plan and left paused, its last stage unpauses it.
	held     bool
	required bool
	// roll is the kubelet minor the MCO rolls onto the pool's nodes when unpaused
	// (the highest it may roll), -1 when unknown.
	roll  int
	nodes []string
}

// model is the checker's model of the cluster while a plan runs.
type model struct {
	p          *planfile.Plan
	s          *inspect.Snapshot
	tmp        *temporaries
	pol        *policy.Policy
	history    policy.History
	targetKube int

	operands map[string]*span // kube-apiserver, kube-controller-manager, kube-scheduler
	nodes    map[string]*nodeModel
	pools    map[string]*poolModel
	cos      map[string]string

	cvoDisabled, disabledOnce, restored, desiredSet bool
	// bracketed: the plan has a disable-cvo step; without one the CVO keeps
	// the wheel and no step may change what it manages (ActionSpec.CVOManages).
	bracketed bool

	// baselines: the worst skew excess seen so far, per key; it only goes down.
	baseline map[string]int
	// compOperand maps a payload component to the static-pod operand its
	// ClusterOperator manifest names; compCO to that ClusterOperator.
	compOperand map[string]string
	compCO      map[string]string
	// pendingStatic are static-pod operators whose ClusterOperator step still
	// waits for its static-pods gate: operand -> component.
	pendingStatic map[string]string
	lastStage     int
	lastFile      map[string]string
	// dirty is set when a step changed what the skew measure reads (operand or
	// kubelet spans); skew measures only then.
	dirty bool
	// lags memoizes the policy's kubelet lag limit per (kubelet, kube-apiserver) minor.
	lags map[[2]int]lag
	// manifests holds, per step, what verifyManifests found of its manifest.
	manifests []manifestFacts
}

// lag is a memoized KubeletAllowedLag answer.
type lag struct {
	n  int
	ok bool
}

// Check steps a model of the cluster (from the snapshot the plan was made from)
// through the plan and asserts the invariants after every step. The first broken
// invariant is returned as a *CheckError naming the step and the rule.
func Check(p *planfile.Plan, s *inspect.Snapshot, pol *policy.Policy) error {
	return check(p, s, pol, newFacts(s))
}

// check is Check with the planner's facts of s, which Make computed once.
func check(p *planfile.Plan, s *inspect.Snapshot, pol *policy.Policy, f *facts) error {
	if pol == nil {
		pol = policy.Default()
	}
	m := newModel(p, s, pol, f)
	for i := range p.Steps {
		if err := m.step(i); err != nil {
			return err
		}
	}
	return m.end()
}

func newModel(p *planfile.Plan, s *inspect.Snapshot, pol *policy.Policy, f *facts) *model {
	m := &model{p: p, s: s, tmp: newTemporaries(p), pol: pol, history: f.history, targetKube: kubeMinor(kubeForRelease(p.Target.Version)),
		operands: map[string]*span{}, nodes: map[string]*nodeModel{}, pools: map[string]*poolModel{}, cos: map[string]string{},
		baseline: map[string]int{}, compOperand: map[string]string{}, compCO: map[string]string{}, pendingStatic: map[string]string{},
		lastFile: map[string]string{}, lags: map[[2]int]lag{}}
	for i := range p.Steps {
		m.bracketed = m.bracketed || p.Steps[i].Spec().StopsCVO
	}
	for _, c := range controlPlaneOperands {
		sp := &span{lo: -1, hi: -1}
		for _, v := range f.operands[c] {
			k := kubeMinor(v)
			if k < 0 {
				continue
			}
			if sp.lo < 0 || k < sp.lo {
				sp.lo = k
			}
			sp.hi = max(sp.hi, k)
		}
		if sp.lo < 0 && c == "kube-apiserver" && f.kasOK {
			sp.lo, sp.hi = kubeMinor(f.kas.Version), kubeMinor(f.kas.Version)
		}
		m.operands[c] = sp
	}
	for _, n := range f.nodes {
		k := kubeMinor(n.Kubelet)
		m.nodes[n.Name] = &nodeModel{kube: span{lo: k, hi: max(k, kubeMinor(n.UpdatingKube))}, pool: n.Pool}
	}
	for _, pf := range f.pools {
		m.pools[pf.Name] = &poolModel{paused: pf.Paused, byUser: pf.Paused, held: pf.Held, required: pf.Required, roll: kubeMinor(pf.Kube), nodes: pf.Nodes}
	}
	for _, o := range f.operators {
		m.cos[o.Name] = o.Version
	}
	for _, st := range p.Steps {
		if st.Manifest != nil && openshift.IsClusterOperator(st.Manifest.APIVersion, st.Manifest.Kind) {
			m.compCO[st.Component] = st.Manifest.Name
			if sp := inspect.StaticPodComponentFor(st.Manifest.Name); sp != nil && sp.ClusterOperator == st.Manifest.Name {
				m.compOperand[st.Component] = sp.Component
			}
		}
	}
	m.measure(func(string, int, int) {}) // record the baselines
	m.manifests = verifyManifests(p.Steps)
	return m
}

// manifestFacts is what the model needs of a step's embedded object.
type manifestFacts struct {
	// digestOK: the object matches the step's digest.
	digestOK bool
	// deleteProblem: the step and its object's delete annotation disagree
	// (DeleteAnnotationProblem).
	deleteProblem error
}

// verifyManifests reads every manifest step's embedded object on GOMAXPROCS
// goroutines: whether it matches its digest (ManifestDigest, the rule apply
// verifies) and whether it is annotated for deletion. Compacting, hashing and
// searching every manifest are most of a check's work, and each step's answer is
// independent of the others; the model then walks the steps in order and
// reports the first problem, as it would have found it.
func verifyManifests(steps []planfile.Step) []manifestFacts {
	facts := make([]manifestFacts, len(steps))
	planfile.EachManifest(steps, func(i int, mf *planfile.Manifest) {
		d, err := planfile.ManifestDigest(mf.Object)
		facts[i] = manifestFacts{digestOK: err == nil && d == mf.Digest, deleteProblem: planfile.DeleteAnnotationProblem(steps[i].Spec().Deletes, deleteAnnotations(mf.Object))}
	})
	return facts
}

// deleteAnnotations returns an object's annotations when it may carry
// release.openshift.io/delete (nil otherwise: decoded only when it may be there).
func deleteAnnotations(object json.RawMessage) map[string]string {
	if !bytes.Contains(object, []byte(`"`+openshift.AnnotationDelete+`"`)) {
		return nil
	}
	var obj struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(object, &obj)
	return obj.Metadata.Annotations
}

// fail builds the CheckError for step i.
func (m *model) fail(i int, rule, format string, args ...any) error {
	e := &CheckError{Rule: rule, Msg: fmt.Sprintf(format, args...)}
	if i >= 0 && i < len(m.p.Steps) {
		e.Step, e.StepID = i+1, m.p.Steps[i].ID
	}
	return e
}

func (m *model) step(i int) error {
	st := &m.p.Steps[i]
	if spec := st.Spec(); m.p.EffectiveMode() == planfile.ModeDriveCVO && (spec.StopsCVO || spec.RestartsCVO) {
		return m.fail(i, InvariantCVOBracketing, "a drive-cvo plan keeps the CVO running: it has no %s step", st.Action)
	}
	if !m.bracketed {
		if spec := planfile.SpecOf(st.Action); spec != nil && spec.CVOManages {
			return m.fail(i, InvariantCVOBracketing, "%s changes what the CVO manages with the CVO running (the plan has no disable-cvo step): the CVO would fight it", st.Action)
		}
	} else if planfile.Mutates(st.Action) && !m.cvoDisabled {
		if m.restored {
			return m.fail(i, InvariantCVOBracketing, "%s changes the cluster after restore-cvo: the CVO would fight it", st.Action)
		}
		return m.fail(i, InvariantCVOBracketing, "%s changes the cluster before disable-cvo: the CVO would fight it", st.Action)
	}
	// A static-pod operator's ClusterOperator step must be followed by its
	// static-pods gate before any step of another component.
	if err := m.pendingClosed(i, st); err != nil {
		return err
	}
	if err := m.temporary(i, st); err != nil {
		return err
	}
	spec := planfile.SpecOf(st.Action)
	if spec == nil {
		return m.fail(i, InvariantGates, "unknown action %q", st.Action)
	}
	if spec.Remedy {
		if err := m.remedyStep(i, st); err != nil {
			return err
		}
	}
	if chk := actionChecks[st.Action]; chk != nil {
		if err := chk(m, i, st); err != nil {
			return err
		}
	}
	if st.Gate != nil {
		if err := m.gatePassed(i, st); err != nil {
			return err
		}
	}
	return m.skew(i)
}

// manifestStep checks a manifest step's digest, annotation, order and gate, and
// applies its effect: the component's operator rolls its operand (raising what
// may run), and a new MCO may render the target's kubelet for every pool.
func (m *model) manifestStep(i int, st *planfile.Step) error {
	mf := st.Manifest
	if mf == nil {
		return m.fail(i, InvariantManifestDigest, "%s step without a manifest", st.Action)
	}
	if !m.manifests[i].digestOK {
		return m.fail(i, InvariantManifestDigest, "manifest %s %s does not match its digest", mf.Kind, mf.Name)
	}
	if err := m.manifests[i].deleteProblem; err != nil {
		return m.fail(i, InvariantManifestDigest, "%s step for %s %s: %v", st.Action, mf.Kind, mf.Name, err)
	}
	if st.Group < m.lastStage {
		return m.fail(i, InvariantRunLevelOrder, "%s %s is in stage %d after a step of stage %d", mf.Kind, mf.Name, st.Group, m.lastStage)
	}
	m.lastStage = st.Group
	key := fmt.Sprintf("%d/%s", st.Group, st.Component)
	file := fmt.Sprintf("%s#%06d", mf.File, mf.Index)
	if last := m.lastFile[key]; last > file {
		return m.fail(i, InvariantRunLevelOrder, "%s comes after %s in component %s", mf.File, strings.Split(last, "#")[0], planfile.OrDash(st.Component))
	}
	m.lastFile[key] = file
	applies := !st.Spec().Deletes
	if applies {
		if err := m.requiredGate(i, st); err != nil {
			return err
		}
	}
	if op := m.compOperand[st.Component]; op != "" && applies {
		if sp := m.operands[op]; sp != nil {
			sp.hi = max(sp.hi, m.targetKube)
			m.dirty = true
		}
		if openshift.IsClusterOperator(mf.APIVersion, mf.Kind) {
			m.pendingStatic[op] = st.Component
		}
	}
	if m.compCO[st.Component] == openshift.MachineConfigOperator && applies && openshift.IsDeployment(mf.APIVersion, mf.Kind) {
		for _, pm := range m.pools {
			pm.roll = max(pm.roll, m.targetKube)
			if !pm.paused {
				m.rollPool(pm)
			}
		}
	}
	return nil
}

// requiredGate checks that an apply step carries the gate its kind needs.
func (m *model) requiredGate(i int, st *planfile.Step) error {
	mf, g := st.Manifest, st.Gate
	want := planfile.GateKind("")
	switch openshift.ManifestWaitFor(mf.APIVersion, mf.Kind, mf.Namespace, mf.Name) {
	case openshift.WaitClusterOperator:
		var obj struct {
			Status struct {
				Versions []planfile.OperandVersion `json:"versions"`
			} `json:"status"`
		}
		_ = json.Unmarshal(mf.Object, &obj)
		// A manifest without versions is gated too, on the operator's
		// conditions (inspect.OperatorWaitFor): its gate lists no versions.
		if g == nil || g.Kind != planfile.GateClusterOperator || g.ClusterOperator != mf.Name || !slices.Equal(g.Versions, obj.Status.Versions) {
			return m.fail(i, InvariantGates, "clusteroperator/%s needs a %s gate on the versions its manifest declares", mf.Name, planfile.GateClusterOperator)
		}
		return nil
	case openshift.WaitCRDEstablished:
		want = planfile.GateCRDEstablished
	case openshift.WaitRollout, openshift.WaitJobComplete:
		want = planfile.GateWorkloadRollout
	default:
		return nil
	}
	if g == nil || g.Kind != want || g.Object == nil || g.Object.Name != mf.Name || g.Object.Kind != mf.Kind {
		return m.fail(i, InvariantGates, "%s %s needs a %s gate", mf.Kind, mf.Name, want)
	}
	return nil
}

// pendingClosed fails when a static-pod operator's ClusterOperator step is not
// followed by its static-pods gate before the next component's steps.
func (m *model) pendingClosed(i int, st *planfile.Step) error {
	for _, op := range slices.Sorted(maps.Keys(m.pendingStatic)) {
		comp := m.pendingStatic[op]
		if st.Spec().WaitOnly && st.Gate != nil && st.Gate.StaticPods != nil {
			if sp := inspect.StaticPodComponentFor(st.Gate.StaticPods.Resource); sp != nil && sp.Component == op {
				continue
			}
		}
		if st.Manifest != nil && st.Component == comp {
			continue
		}
		return m.fail(i, InvariantGates, "clusteroperator of %s was not followed by a %s gate on every master before this step", op, planfile.GateStaticPods)
	}
	return nil
}

// gatePassed applies what a passed gate proves.
func (m *model) gatePassed(i int, st *planfile.Step) error {
	g := st.Gate
	m.tmp.settle(g.Kind)
	switch g.Kind {
	case planfile.GateClusterOperator:
		for _, v := range g.Versions {
			if v.Name != "operator" {
				continue
			}
			if pv, err := inspect.ParseVersion(v.Version); err != nil || pv.Major == 0 {
				// A placeholder ("0.0.1-snapshot": the payload was not built by oc
				// adm release new) says nothing about the release; the plan warns.
				continue
			}
			if from := m.cos[g.ClusterOperator]; from != "" && from != v.Version {
				vs, _ := m.pol.CheckMoves([]policy.Move{{Component: g.ClusterOperator, From: from, To: v.Version}}, m.history)
				if len(vs) > 0 && (vs[0].Rule == policy.RuleNoCrossMinorDowngrade || vs[0].Rule == policy.RuleDowngradeNotPreviousHistory) {
					return m.fail(i, InvariantNoDowngrade, "%s", vs[0].Reason)
				}
			}
			m.cos[g.ClusterOperator] = v.Version
		}
		if g.ClusterOperator == openshift.MachineConfigOperator {
			for _, name := range slices.Sorted(maps.Keys(m.pools)) {
				pm := m.pools[name]
				if !pm.required {
					continue
				}
				if pm.paused && pm.byPlan {
					return m.fail(i, InvariantPools, "the machine-config gate waits for pool %s to roll out, but the plan keeps it paused here", name)
				}
				if !pm.paused {
					for _, n := range pm.nodes {
						if nm := m.nodes[n]; nm != nil && pm.roll >= 0 {
							nm.kube = span{lo: pm.roll, hi: pm.roll}
							m.dirty = true
						}
					}
				}
			}
		}
	case planfile.GateStaticPods:
		if g.StaticPods == nil {
			return m.fail(i, InvariantGates, "a static-pods gate without staticPods")
		}
		if sp := inspect.StaticPodComponentFor(g.StaticPods.Resource); sp != nil {
			delete(m.pendingStatic, sp.Component)
			if o := m.operands[sp.Component]; o != nil {
				o.lo = o.hi
				m.dirty = true
			}
		}
	case planfile.GateNodesSettled:
		m.settleNodes(g.Nodes)
	case planfile.GatePoolUpdated:
		pm := m.pools[g.Pool]
		if pm == nil {
			return m.fail(i, InvariantPools, "gate on unknown pool %s", g.Pool)
		}
		if pm.paused && pm.byPlan {
			return m.fail(i, InvariantPools, "the gate waits for pool %s to roll out, but the plan keeps it paused here", g.Pool)
		}
		for _, n := range pm.nodes {
			if nm := m.nodes[n]; nm != nil && pm.roll >= 0 {
				nm.kube = span{lo: pm.roll, hi: pm.roll}
				m.dirty = true
			}
		}
	}
	return nil
}

// rollPool lets the MCO roll an unpaused pool: its nodes may run what it rolls.
func (m *model) rollPool(pm *poolModel) {
	for _, n := range pm.nodes {
		if nm := m.nodes[n]; nm != nil && pm.roll > nm.kube.hi {
			nm.kube.hi = pm.roll
			m.dirty = true
		}
	}
}

// measure computes every skew excess (how far past the limit) and reports each
// that is worse than its baseline; baselines then drop to the current values.
func (m *model) measure(worse func(key string, was, now int)) {
	kas := m.operands["kube-apiserver"]
	if kas == nil || kas.lo < 0 {
		return
	}
	cur := map[string]int{}
	for name, n := range m.nodes {
		if n.kube.lo < 0 {
			continue
		}
		cur["kubelet-newer/"+name] = max(0, n.kube.hi-kas.lo)
		key := [2]int{n.kube.lo, kas.hi}
		l, seen := m.lags[key]
		if !seen {
			allowed, err := m.pol.KubeletAllowedLag(fmt.Sprintf("1.%d.0", n.kube.lo), fmt.Sprintf("1.%d.0", kas.hi))
			l = lag{n: allowed, ok: err == nil}
			m.lags[key] = l
		}
		if l.ok {
			cur["kubelet-behind/"+name] = max(0, kas.hi-n.kube.lo-l.n)
		}
	}
	cur["kube-apiserver-spread"] = max(0, kas.hi-kas.lo-1)
	for _, c := range []string{"kube-controller-manager", "kube-scheduler"} {
		if o := m.operands[c]; o != nil && o.hi >= 0 {
			cur["newer-than-kube-apiserver/"+c] = max(0, o.hi-kas.lo)
		}
	}
	var worsened []string
	for key, now := range cur {
		was, seen := m.baseline[key]
		if seen && now > was {
			worsened = append(worsened, key)
		}
	}
	slices.Sort(worsened) // report in a stable order, before the baselines move
	for _, key := range worsened {
		worse(key, m.baseline[key], cur[key])
	}
	for key, now := range cur {
		if was, seen := m.baseline[key]; !seen || now < was {
			m.baseline[key] = now
		}
	}
}

// skew asserts that the step made no skew violation appear or get worse.
func (m *model) skew(i int) error {
	if !m.dirty {
		return nil // nothing the measure reads changed
	}
	m.dirty = false
	var err error
	m.measure(func(key string, was, now int) {
		if err != nil {
			return
		}
		err = m.skewError(i, key, now)
	})
	return err
}

func (m *model) skewError(i int, key string, now int) error {
	kas := m.operands["kube-apiserver"]
	kind, name, _ := strings.Cut(key, "/")
	switch kind {
	case "kubelet-newer":
		n := m.nodes[name]
		return m.fail(i, InvariantKubeletSkew, "the kubelet on %s may now run 1.%d while the oldest kube-apiserver may still be 1.%d (its static-pods gate has not passed)", name, n.kube.hi, kas.lo)
	case "kubelet-behind":
		n := m.nodes[name]
		return m.fail(i, InvariantKubeletSkew, "the kubelet on %s (1.%d) may now be %d minor(s) too far behind a kube-apiserver at 1.%d", name, n.kube.lo, now, kas.hi)
	case "kube-apiserver-spread":
		return m.fail(i, InvariantControlPlane, "kube-apiserver instances may now span 1.%d to 1.%d, more than one minor", kas.lo, kas.hi)
	default:
		o := m.operands[name]
		return m.fail(i, InvariantControlPlane, "%s may now run 1.%d while the oldest kube-apiserver may still be 1.%d", name, o.hi, kas.lo)
	}
}

// end asserts the state after the last step.
func (m *model) end() error {
	last := len(m.p.Steps) - 1
	if err := m.pendingClosed(last+1, &planfile.Step{}); err != nil {
		return err
	}
	switch m.p.EffectiveMode() {
	case planfile.ModeRemediation:
	case planfile.ModeDriveCVO:
		if !m.desiredSet {
			return m.fail(-1, InvariantDesiredUpdate, "a drive-cvo plan hands the CVO its target: it has no set-desired-update step")
		}
	default:
		if !m.disabledOnce {
			return m.fail(-1, InvariantCVOBracketing, "no disable-cvo step")
		}
	}
	if m.bracketed && !m.restored {
		return m.fail(-1, InvariantCVOBracketing, "no restore-cvo step: the plan would leave the CVO disabled")
	}
	if err := m.endTemporaries(); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(m.pools)) {
		if pm := m.pools[name]; pm.byPlan && pm.paused && !pm.held {
			return m.fail(-1, InvariantPools, "pool %s is paused by the plan and never unpaused", name)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(m.baseline)) {
		if v := m.baseline[key]; v > 0 {
			return m.fail(-1, skewRule(key), "the end state still breaks it (%s by %d minor(s))", key, v)
		}
	}
	return nil
}

func skewRule(key string) string {
	if strings.HasPrefix(key, "kubelet-") {
		return InvariantKubeletSkew
	}
	return InvariantControlPlane
}
