package plan

import "github.com/openshift-recover/recover/internal/nextcmd"

// set-desired-update: set ClusterVersion spec.desiredUpdate to the target, by
// digest (force only with the target's reason), for the restored CVO to take.
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
		},
		check: func(m *model, i int, st *Step) error {
			if m.p.EffectiveMode() != ModeUpdate {
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
			m.desiredSet = true
			return nil
		},
		hand: func(_ *Plan, st *Step) string {
			if du := st.DesiredUpdate; du != nil {
				return nextcmd.DesiredUpdate(du.Version, du.Image, du.Force)
			}
			return ""
		},
	})
}
