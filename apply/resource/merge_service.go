package resource

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

func init() {
	registerTyped(corev1.SchemeGroupVersion.WithKind("Service"), func(modified *bool, e *corev1.Service, r corev1.Service) error {
		ensureService(modified, e, r)
		return nil
	})
}

// ensureService (lib/resourceapply/core.go ApplyServicev1,
// lib/resourcemerge/core.go EnsureServicePorts, EnsureServiceType): ports,
// type (ClusterIP when unset) and selector are the manifest's; the rest of the
// spec is the live object's. clusterIP, clusterIPs and ipFamilies, which the API
// server allocated, are therefore sent back as they are: an API server older
// than kubernetes#103532 (a 4.4 cluster's 1.17) refuses an update that leaves
// them out, and recover does not depend on the server's version for it.
func ensureService(modified *bool, e *corev1.Service, r corev1.Service) {
	ensureObjectMeta(modified, &e.ObjectMeta, r.ObjectMeta)
	ensureServicePorts(modified, &e.Spec.Ports, r.Spec.Ports)
	typ := r.Spec.Type
	if typ == "" {
		typ = corev1.ServiceTypeClusterIP
	}
	setValue(modified, &e.Spec.Type, typ)
	if !equality.Semantic.DeepEqual(e.Spec.Selector, r.Spec.Selector) {
		*modified = true
	}
	e.Spec.Selector = r.Spec.Selector
}
