package plan

import (
	"fmt"
	"strings"

	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/payload"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The drive-cvo plan (ModeDriveCVO): the outcome that keeps the CVO at the
// wheel and hands it another target (retarget-in-flight: a z-stream of the
// minor under way without the in-flight target's risk; staged-goal: the first
// hop toward the release the admin named). The CVO is never disabled and no
// manifest is pushed: the plan makes the remedies the remedy stage built, the
// admin's promises the target's minor needs, hands the CVO the target
// (handToCVO: set-desired-update by digest with the risks the admin accepted,
// gated on the CVO working on it) and waits for the control plane to land
// there. The CVO carries the update out itself, in its own order.

// hopBuilder makes a one-hop update plan's steps: pushSteps (replace-cvo, the
// CVO disabled and the payload pushed) or driveSteps (drive-cvo).
type hopBuilder func(sel *Selection, pl *payload.Payload, rs *remedyStage) *builder

// pushSteps is the replace-cvo plan's steps (buildSteps).
func pushSteps(sel *Selection, pl *payload.Payload, rs *remedyStage) *builder {
	return buildSteps(sel, pl, sel.Target.Force, rs)
}

// driveSteps is the drive-cvo plan's steps. Where the CVO is updating it
// undoes none of the remedies (remediationStopsCVO is false), so they run
// first, as a remediation plan runs them; the admin's promises and their waits
// follow (the running CVO computes Upgradeable again), then the target is
// handed over. Where it is not updating (left running, it would re-apply its
// manifests over a half-unblocked cluster) the remedies wait until it has
// taken the target and is updating: no disable-cvo either way.
func driveSteps(sel *Selection, pl *payload.Payload, rs *remedyStage) *builder {
	b := &builder{f: sel.facts, sel: sel, pl: pl, target: sel.Target.Version, image: sel.Target.Image, force: sel.Target.Force, rs: rs}
	var risks []string
	for _, r := range sel.Target.AcceptedRisks {
		risks = append(risks, r.Name)
	}
	h := cvoHop{to: b.target, image: b.image, force: b.force, acceptRisks: risks, why: b.driveReason(risks),
		lands: fmt.Sprintf("The control plane has landed at %s when %s, the last of the CVO's run levels, reports it; the CVO finishes the update from there (the worker pools roll).", b.target, openshift.MachineConfigOperator)}
	h.landing, h.noLanding = landingVersions(pl)
	if h.noLanding {
		b.warnings = append(b.warnings, fmt.Sprintf("the %s payload declares no %s ClusterOperator: the plan waits only for the CVO to take %s, not for the control plane to land there", b.target, openshift.MachineConfigOperator, b.target))
	}
	hand := handToCVO(h)
	remedies := func(g *remedyGroup) bool { return g.phase < phasePromises }
	beside := !remediationStopsCVO(sel.facts.s)
	if beside {
		b.steps = placeGroups(b.steps, rs.groups, remedies)
	}
	b.steps = placeGroups(b.steps, rs.groups, func(g *remedyGroup) bool { return g.phase == phasePromises })
	b.steps = placePosts(b.steps, rs.groups)
	b.steps = append(b.steps, hand[0])
	if !beside {
		b.steps = placeGroups(b.steps, rs.groups, remedies)
	}
	b.steps = append(b.steps, hand[1:]...)
	numberSteps(b.steps)
	b.remediations = link(b.steps, rs.groups)
	return b
}

// driveReason is the drive-cvo plan's set-desired-update reason.
func (b *builder) driveReason(risks []string) string {
	r := fmt.Sprintf("Hand the CVO %s by digest; it keeps running and carries the update out itself, in its own order", b.target)
	if h := b.f.history; b.sel.isRetarget() {
		r += fmt.Sprintf(" (a retarget of the update under way, from %s)", h.Desired)
	}
	r += "."
	if len(risks) > 0 {
		r += fmt.Sprintf(" spec.desiredUpdate.acceptRisks names %s, accepted with --accept, so a CVO that holds conditional updates on their risks takes it.", strings.Join(risks, ", "))
	}
	if b.force {
		r += " force is set: " + b.sel.Target.ForceReason + "."
	}
	return r
}

// landingVersions are the versions the target's machine-config ClusterOperator
// manifest declares, what the CVO waits for at the last of its run levels;
// none (true) when the payload has no such manifest.
func landingVersions(pl *payload.Payload) ([]planfile.OperandVersion, bool) {
	for _, m := range pl.Included() {
		if isClusterOperator(m) && m.Name == openshift.MachineConfigOperator {
			return declaredVersions(m), false
		}
	}
	return nil, true
}
