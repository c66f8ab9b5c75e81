package planfile

import (
	"fmt"
	"regexp"

	"github.com/openshift-recover/recover/internal/openshift"
)

// annotate-upgradeable-to: set cloudcredential.openshift.io/upgradeable-to on
// cloudcredentials.operator.openshift.io/cluster once the admin has updated
// the manual credentials for the next minor; a condition-cleared wait follows.
// The admin's promise: --accept upgradeable-to:<major.minor>. The planner's
// half is remedy_promise.go.
func init() {
	register(&ActionSpec{
		Action:     ActionAnnotateUpgradeableTo,
		Changes:    "CloudCredential cluster annotation cloudcredential.openshift.io/upgradeable-to",
		Mutates:    true,
		Remedy:     true,
		RevertHint: "lasting; remove the annotation by hand to withdraw the promise",
		Accept:     AcceptUpgradeableTo,
		AcceptForm: AcceptUpgradeableTo + "<major.minor>",
		Fields:     [][]string{{"metadata", "annotations", openshift.AnnotationUpgradeableTo}},
		acceptName: func(st *Step) string {
			if st.Change != nil {
				if v, ok := patchString(st.Change.Patch, "metadata", "annotations", openshift.AnnotationUpgradeableTo); ok {
					return AcceptUpgradeableTo + v
				}
			}
			return AcceptUpgradeableTo + "?"
		},
		AcceptSubject: func(v string) string {
			if majorMinorRE.MatchString(v) {
				return ""
			}
			return fmt.Sprintf("%q is not a major.minor version such as 4.17", v)
		},
		validate: func(p *Plan, i int, at problemFunc) { validateChange(&p.Steps[i], at) },
		note:     changeVerbNote("annotates upgradeable-to on"),
		hand:     changeHand,
	})
}

var majorMinorRE = regexp.MustCompile(`^[0-9]+\.[0-9]+$`)
