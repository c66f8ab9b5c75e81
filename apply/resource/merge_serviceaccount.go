package resource

import corev1 "k8s.io/api/core/v1"

func init() {
	registerTyped(corev1.SchemeGroupVersion.WithKind("ServiceAccount"), func(modified *bool, e *corev1.ServiceAccount, r corev1.ServiceAccount) error {
		// lib/resourcemerge/core.go EnsureServiceAccount: metadata and
		// automountServiceAccountToken; the secrets and image pull secrets the
		// cluster adds stay.
		ensureObjectMeta(modified, &e.ObjectMeta, r.ObjectMeta)
		setPtr(modified, &e.AutomountServiceAccountToken, r.AutomountServiceAccountToken)
		return nil
	})
}
