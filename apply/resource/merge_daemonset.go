package resource

import appsv1 "k8s.io/api/apps/v1"

func init() {
	registerTyped(appsv1.SchemeGroupVersion.WithKind("DaemonSet"), func(modified *bool, e *appsv1.DaemonSet, r appsv1.DaemonSet) error {
		ensureDaemonSet(modified, e, r)
		return nil
	})
}

// ensureDaemonSet (lib/resourcemerge/apps.go EnsureDaemonSet): the selector is
// the manifest's, then the pod template; the update strategy and the rest of
// the spec are the live object's.
func ensureDaemonSet(modified *bool, e *appsv1.DaemonSet, r appsv1.DaemonSet) {
	ensureObjectMeta(modified, &e.ObjectMeta, r.ObjectMeta)
	if e.Spec.Selector == nil {
		e.Spec.Selector = r.Spec.Selector
		*modified = true
	}
	setSemantic(modified, &e.Spec.Selector, r.Spec.Selector)
	ensurePodTemplate(modified, &e.Spec.Template, r.Spec.Template)
}
