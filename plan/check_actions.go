package plan

import (
	"slices"
	"strings"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/planfile"
)

// actionChecks is the checker's model of each action's effect (Check), the
// planner's half of an action: the action's spec, the document's half, is in
// plan/planfile (action_<name>.go), which cannot know the checker's model.
// An action without an entry changes nothing the model tracks.
var actionChecks = map[planfile.Action]func(m *model, i int, st *planfile.Step) error{
	// action_apply (plan/planfile/action_apply.go)
	planfile.ActionApply: func(m *model, i int, st *planfile.Step) error { return m.manifestStep(i, st) },
	// action_approve_csr (plan/planfile/action_approve_csr.go)
	planfile.ActionApproveCSR: func(m *model, i int, st *planfile.Step) error {
		a := st.CSR
		if a == nil {
			return m.fail(i, InvariantRemedies, "approve-csr without the request it approves")
		}
		if g := st.Gate; g == nil || g.Kind != planfile.GateCSRIssued || g.Object == nil || g.Object.Name != a.Name {
			return m.fail(i, InvariantGates, "approve-csr needs a %s gate on its request", planfile.GateCSRIssued)
		}
		c := snapshotCSR(m.s, a.Name)
		if c == nil {
			return m.fail(i, InvariantRemedies, "approves certificatesigningrequest/%s, which the snapshot does not hold: nothing vouches for it", a.Name)
		}
		v := inspect.CSRVouch(*c, m.s.Nodes, m.s.Machines)
		switch {
		case !v.OK:
			return m.fail(i, InvariantRemedies, "approves certificatesigningrequest/%s, which nothing vouches for (inspect.CSRVouch: %s)", a.Name, v.Reason)
		case a.UID != c.UID || a.SignerName != c.SignerName || a.Username != c.Username || a.CommonName != c.CommonName || a.Node != v.Node:
			return m.fail(i, InvariantRemedies, "approves certificatesigningrequest/%s as %s/%s/%s for node %q, but the snapshot's request says %s/%s/%s for node %q", a.Name,
				a.SignerName, a.Username, a.CommonName, a.Node, c.SignerName, c.Username, c.CommonName, v.Node)
		}
		return nil
	},
	// action_create_release_signature (plan/planfile/action_create_release_signature.go)
	planfile.ActionCreateReleaseSignature: func(m *model, i int, st *planfile.Step) error {
		if st.Manifest == nil {
			return m.fail(i, InvariantRemedies, "create-release-signature without its ConfigMap")
		}
		if why := planfile.SignatureManifestProblem(st.Manifest); why != "" {
			return m.fail(i, InvariantRemedies, "create-release-signature: %s", why)
		}
		for _, fd := range m.s.FindingsWithCode(inspect.CodeReleaseNotAccepted) {
			if _, d, ok := strings.Cut(fd.Details["image"], "@"); ok && openshift.SignatureKeyPrefix(d) == st.Manifest.Name && fd.Details["class"] == inspect.ReleaseClassSignature {
				return nil
			}
		}
		return m.fail(i, InvariantRemedies, "create-release-signature of %s answers no ReleaseNotAccepted finding of class %s on the snapshot", st.Manifest.Name, inspect.ReleaseClassSignature)
	},
	// action_delete (plan/planfile/action_delete.go)
	planfile.ActionDelete: func(m *model, i int, st *planfile.Step) error { return m.manifestStep(i, st) },
	// action_disable_cvo (plan/planfile/action_disable_cvo.go)
	planfile.ActionDisableCVO: func(m *model, i int, st *planfile.Step) error {
		if m.disabledOnce {
			return m.fail(i, InvariantCVOBracketing, "a second disable-cvo step")
		}
		if st.Gate == nil || st.Gate.Kind != planfile.GateCVOScaledDown {
			return m.fail(i, InvariantGates, "disable-cvo must wait for %s", planfile.GateCVOScaledDown)
		}
		m.cvoDisabled, m.disabledOnce = true, true
		return nil
	},
	// action_force_redeployment (plan/planfile/action_force_redeployment.go)
	planfile.ActionForceRedeployment: func(m *model, i int, st *planfile.Step) error {
		if st.Change == nil {
			return m.fail(i, InvariantRemedies, "%s without a change (object, patch and fields)", st.Action)
		}
		sp := planfile.StaticPodFor(st.Change.Object.Kind)
		if sp == nil {
			return m.fail(i, InvariantRemedies, "force-redeployment of a %s, which is no static-pod operator", st.Change.Object.Kind)
		}
		if fs := st.Change.Fields; len(fs) != 1 || !slices.Equal(fs[0], []string{"spec", openshift.FieldForceRedeploymentReason}) {
			return m.fail(i, InvariantRemedies, "force-redeployment must set spec.%s only", openshift.FieldForceRedeploymentReason)
		}
		latest := int32(0)
		if op := m.s.StaticPodOperator(sp.Component); op != nil {
			latest = op.LatestAvailableRevision
		}
		if g := st.Gate; g == nil || g.Kind != planfile.GateStaticPods || g.StaticPods == nil || g.StaticPods.Resource != sp.Resource.Resource || g.StaticPods.MinRevision <= latest {
			return m.fail(i, InvariantGates, "force-redeployment needs a %s gate on %s with minRevision above the snapshot's latest revision %d", planfile.GateStaticPods, sp.Resource.Resource, latest)
		}
		return nil
	},
	// action_pause_pool (plan/planfile/action_pause_pool.go)
	planfile.ActionPausePool: func(m *model, i int, st *planfile.Step) error {
		pm := m.pools[st.Pool]
		switch {
		case pm == nil:
			return m.fail(i, InvariantPools, "pool %s is not in the snapshot", st.Pool)
		case pm.paused:
			return m.fail(i, InvariantPools, "pool %s is already paused", st.Pool)
		}
		pm.paused, pm.byPlan = true, true
		return nil
	},
	// action_relax_pdb (plan/planfile/action_relax_pdb.go)
	planfile.ActionRelaxPDB: func(m *model, i int, st *planfile.Step) error {
		if st.Change == nil {
			return m.fail(i, InvariantRemedies, "%s without a change (object, patch and fields)", st.Action)
		}
		o := st.Change.Object
		if o.Kind != "PodDisruptionBudget" {
			return m.fail(i, InvariantRemedies, "relax-pdb changes a %s, not a PodDisruptionBudget", o.Kind)
		}
		if inspect.IsGuardPDB(o.Namespace, o.Name) {
			return m.fail(i, InvariantRemedies, "relaxes the guard PodDisruptionBudget %s/%s: recover never relaxes a guard; the member it counts must be repaired", o.Namespace, o.Name)
		}
		pdb := snapshotPDB(m.s, o.Namespace, o.Name)
		switch {
		case pdb == nil:
			return m.fail(i, InvariantRemedies, "relaxes PodDisruptionBudget %s/%s, which the snapshot does not hold", o.Namespace, o.Name)
		case st.Change.UID != "" && pdb.UID != "" && st.Change.UID != pdb.UID:
			return m.fail(i, InvariantRemedies, "relaxes PodDisruptionBudget %s/%s uid %s, but the snapshot's is %s", o.Namespace, o.Name, st.Change.UID, pdb.UID)
		case !inspect.PDBAtLimit(*pdb):
			return m.fail(i, InvariantRemedies, "relaxes PodDisruptionBudget %s/%s, which allows disruptions (inspect.PDBAtLimit): it holds no drain", o.Namespace, o.Name)
		}
		return nil
	},
	// action_restore_cvo (plan/planfile/action_restore_cvo.go)
	planfile.ActionRestoreCVO: func(m *model, i int, st *planfile.Step) error {
		if !m.cvoDisabled {
			return m.fail(i, InvariantCVOBracketing, "restore-cvo without a disable-cvo before it")
		}
		if !m.desiredSet && m.p.EffectiveMode() == planfile.ModeUpdate {
			return m.fail(i, InvariantDesiredUpdate, "restore-cvo before set-desired-update: the CVO would resume its old work (%s mode)", m.p.Cluster.CVOMode)
		}
		if st.Gate == nil || st.Gate.Kind != planfile.GateCVORunning {
			return m.fail(i, InvariantGates, "restore-cvo must wait for %s", planfile.GateCVORunning)
		}
		m.cvoDisabled, m.restored = false, true
		return nil
	},
	// action_revert (plan/planfile/action_revert.go)
	planfile.ActionRevert: func(m *model, i int, st *planfile.Step) error {
		if g := st.Gate; g == nil || g.Kind != planfile.GateRestored || g.Object == nil || st.Change == nil || !planfile.SameObject(*g.Object, st.Change.Object) {
			return m.fail(i, InvariantGates, "revert needs a %s gate on the object it restores", planfile.GateRestored)
		}
		return nil
	},
	// action_set_desired_update (plan/planfile/action_set_desired_update.go)
	planfile.ActionSetDesiredUpdate: func(m *model, i int, st *planfile.Step) error {
		switch mode := m.p.EffectiveMode(); {
		case mode == planfile.ModeDriveCVO && m.desiredSet:
			return m.fail(i, InvariantDesiredUpdate, "a second set-desired-update: a drive-cvo plan hands the CVO one target")
		case mode != planfile.ModeUpdate && mode != planfile.ModeDriveCVO:
			return m.fail(i, InvariantCVOBracketing, "a %s plan hands the CVO back the desired update it has: it has no set-desired-update", m.p.Mode)
		}
		du := st.DesiredUpdate
		switch {
		case du == nil:
			return m.fail(i, InvariantDesiredUpdate, "no desiredUpdate")
		case du.Version != m.p.Target.Version || du.Image != m.p.Target.Image:
			return m.fail(i, InvariantDesiredUpdate, "desiredUpdate %s %s is not the target %s %s", du.Version, du.Image, m.p.Target.Version, m.p.Target.Image)
		case !planfile.DigestImageRE.MatchString(du.Image):
			return m.fail(i, InvariantDesiredUpdate, "image %q is not by digest", du.Image)
		case du.Force && (!m.p.Target.Force || m.p.Target.ForceReason == ""):
			return m.fail(i, InvariantDesiredUpdate, "force without a reason in the target")
		}
		for _, r := range du.AcceptRisks {
			if !slices.Contains(m.p.Inputs.Accepted, r) {
				return m.fail(i, InvariantDesiredUpdate, "acceptRisks names %s, which the plan's inputs do not record as accepted (--accept)", r)
			}
		}
		m.desiredSet = true
		return nil
	},
	// action_unpause_pool (plan/planfile/action_unpause_pool.go)
	planfile.ActionUnpausePool: func(m *model, i int, st *planfile.Step) error {
		pm := m.pools[st.Pool]
		switch {
		case pm == nil:
			return m.fail(i, InvariantPools, "pool %s is not in the snapshot", st.Pool)
		case pm.held:
			return m.fail(i, InvariantPools, "pool %s is held paused until the staged plan's last stage", st.Pool)
		case pm.byUser && pm.paused:
			if !m.remedyUnpause(st) {
				return m.fail(i, InvariantPools, "pool %s was paused by the user before recovery; recover unpauses it only as an unpause-pool remedy for a PoolPaused finding that says the pause blocks the update", st.Pool)
			}
			pm.byUser = false
		case !pm.byPlan || !pm.paused:
			return m.fail(i, InvariantPools, "pool %s was not paused by this plan", st.Pool)
		}
		pm.paused = false
		m.rollPool(pm)
		if g := st.Gate; st.Remedy != "" && (g == nil || g.Kind != planfile.GatePoolUpdated || g.Pool != st.Pool) {
			return m.fail(i, InvariantGates, "unpausing a pool as a remedy needs a %s gate on it", planfile.GatePoolUpdated)
		}
		return nil
	},
	// action_wait (plan/planfile/action_wait.go)
	planfile.ActionWait: func(m *model, i int, st *planfile.Step) error {
		g := st.Gate
		if g == nil {
			return m.fail(i, InvariantGates, "a wait step without a gate")
		}
		switch g.Kind {
		case planfile.GateNodesSettled, planfile.GateNodesReady:
			if len(g.Nodes) == 0 {
				return m.fail(i, InvariantGates, "a %s gate without nodes", g.Kind)
			}
		case planfile.GateConditionCleared:
			if g.Object == nil || g.Condition == "" || g.Reason == "" {
				return m.fail(i, InvariantGates, "a %s gate needs its object, condition and reason", g.Kind)
			}
		}
		return nil
	},
}
