package planfile

import (
	"fmt"
	"strings"

	"github.com/openshift-recover/recover/internal/openshift"
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
		Deletes:    true,
		validate: func(p *Plan, i int, at problemFunc) {
			validateManifest(&p.Steps[i], at)
		},
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

// DeleteAnnotationProblem is the one rule of the delete annotation, which
// Validate, the checker and the engine's applier ask: a step that deletes its
// manifest's object (ActionSpec.Deletes) needs release.openshift.io/delete=true
// on the manifest, and a step that applies one must not carry it, read as the
// CVO reads it (openshift.DeleteAnnotation: any other value is an error). nil
// when the step and the manifest agree.
func DeleteAnnotationProblem(deletes bool, annotations map[string]string) error {
	del, err := openshift.DeleteAnnotation(annotations)
	switch {
	case err != nil:
		return err
	case del && !deletes:
		return fmt.Errorf("annotated %s=true: the CVO deletes it, so the step must be a delete step", openshift.AnnotationDelete)
	case !del && deletes:
		return fmt.Errorf("a delete step for a manifest not annotated %s=true: the CVO only deletes annotated manifests", openshift.AnnotationDelete)
	}
	return nil
}
