package plan

import (
	"fmt"
	"strings"
)

// delete: delete one payload manifest's object that the release annotates
// release.openshift.io/delete=true, as the CVO does.
func init() {
	register(&ActionSpec{
		Action:     ActionDelete,
		Changes:    "deletes the object of one payload manifest annotated release.openshift.io/delete=true",
		Mutates:    true,
		CVOManages: true,
		RevertHint: "none: the release removes the object",
		Gates:      []GateKind{GateDeleted},
		validate: func(p *Plan, i int, at problemFunc) {
			validateManifest(&p.Steps[i], at)
		},
		check: func(m *model, i int, st *Step) error { return m.manifestStep(i, st) },
		hand: func(_ *Plan, st *Step) string {
			m := st.Manifest
			if m == nil {
				return ""
			}
			ns := ""
			if m.Namespace != "" {
				ns = " -n " + m.Namespace
			}
			return fmt.Sprintf("oc delete%s %s/%s --ignore-not-found --wait=false", ns, strings.ToLower(m.Kind), m.Name)
		},
	})
}
