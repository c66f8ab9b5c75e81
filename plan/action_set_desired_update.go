package plan

import (
	"slices"

	"github.com/openshift-recover/recover/internal/nextcmd"
)

// set-desired-update: set ClusterVersion spec.desiredUpdate to the target, by
// digest (force only with the target's reason, acceptRisks only with the
// admin's --accept), for the restored CVO to take, or, in a drive-cvo plan,
// for the running CVO.
func init() {
	register(&ActionSpec{
		Action:     ActionSetDesiredUpdate,
		Changes:    "ClusterVersion version spec.desiredUpdate to the target release, by digest",
		Mutates:    true,
		Object:     &ClusterVersionRef,
		RevertHint: "the update is the plan's purpose; oc adm upgrade --clear withdraws it before the CVO starts it",
		validate: func(p *Plan, i int, at problemFunc) {
			du := p.Steps[i].DesiredUpdate
			switch {
			case du == nil:
				at("set-desired-update needs desiredUpdate")
			case du.Version == "" || !digestImageRE.MatchString(du.Image):
				at("desiredUpdate needs a version and an image by digest (…@sha256:<64 hex>), got %q", du.Image)
			case du.Force && (!p.Target.Force || p.Target.ForceReason == ""):
				at("desiredUpdate sets force but the plan's target gives no forceReason")
			}
			if du != nil {
				validateAcceptRisks(du.AcceptRisks, at)
			}
		},
		check: func(m *model, i int, st *Step) error {
			switch mode := m.p.EffectiveMode(); {
			case mode == ModeDriveCVO && m.desiredSet:
				return m.fail(i, InvariantDesiredUpdate, "a second set-desired-update: a drive-cvo plan hands the CVO one target")
			case mode != ModeUpdate && mode != ModeDriveCVO:
				return m.fail(i, InvariantCVOBracketing, "a %s plan hands the CVO back the desired update it has: it has no set-desired-update", m.p.Mode)
			}
			du := st.DesiredUpdate
			switch {
			case du == nil:
				return m.fail(i, InvariantDesiredUpdate, "no desiredUpdate")
			case du.Version != m.p.Target.Version || du.Image != m.p.Target.Image:
				return m.fail(i, InvariantDesiredUpdate, "desiredUpdate %s %s is not the target %s %s", du.Version, du.Image, m.p.Target.Version, m.p.Target.Image)
			case !digestImageRE.MatchString(du.Image):
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
		hand: func(_ *Plan, st *Step) string {
			if du := st.DesiredUpdate; du != nil {
				return nextcmd.DesiredUpdate(du.Version, du.Image, du.Force, du.AcceptRisks...)
			}
			return ""
		},
	})
}

// validateAcceptRisks checks desiredUpdate.acceptRisks as the API does
// (openshift/api config/v1 AcceptRisk): names non-empty, at most 256
// characters, unique, at most 1000.
func validateAcceptRisks(names []string, at problemFunc) {
	if len(names) > 1000 {
		at("desiredUpdate.acceptRisks has %d names; the API takes at most 1000", len(names))
	}
	seen := map[string]bool{}
	for _, n := range names {
		switch {
		case n == "" || len(n) > 256:
			at("desiredUpdate.acceptRisks name %q must be 1 to 256 characters", n)
		case seen[n]:
			at("desiredUpdate.acceptRisks names %s twice", n)
		}
		seen[n] = true
	}
}
