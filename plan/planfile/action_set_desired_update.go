package planfile

import (
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
			case du.Version == "" || !DigestImageRE.MatchString(du.Image):
				at("desiredUpdate needs a version and an image by digest (…@sha256:<64 hex>), got %q", du.Image)
			case du.Force && (!p.Target.Force || p.Target.ForceReason == ""):
				at("desiredUpdate sets force but the plan's target gives no forceReason")
			}
			if du != nil {
				validateAcceptRisks(du.AcceptRisks, at)
			}
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
