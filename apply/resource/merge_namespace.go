package resource

import corev1 "k8s.io/api/core/v1"

func init() {
	registerTyped(corev1.SchemeGroupVersion.WithKind("Namespace"), func(modified *bool, e *corev1.Namespace, r corev1.Namespace) error {
		// lib/resourceapply/core.go ApplyNamespacev1: metadata only, so the
		// openshift.io/sa.scc.* annotations the cluster adds stay.
		ensureObjectMeta(modified, &e.ObjectMeta, r.ObjectMeta)
		return nil
	})
}
