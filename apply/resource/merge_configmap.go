package resource

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// InjectTLSAnnotation, "true" on a ConfigMap, makes the CVO rewrite the
// servingInfo of the GenericOperatorConfig and GenericControllerConfig documents
// in its data to the cluster's TLS profile (lib/resourcebuilder/core.go
// modifyConfigMap). recover does not implement that rewrite, so it refuses such
// a manifest rather than write a TLS configuration the CVO would not.
const InjectTLSAnnotation = "config.openshift.io/inject-tls"

func init() {
	registerTyped(corev1.SchemeGroupVersion.WithKind("ConfigMap"), func(modified *bool, e *corev1.ConfigMap, r corev1.ConfigMap) error {
		ensureConfigMap(modified, e, r)
		return nil
	})
}

// ensureConfigMap (lib/resourcemerge/core.go EnsureConfigMap): data and
// binaryData keys the manifest names are set; keys it does not name stay, so
// the CA bundles the cluster injects (service-ca.crt where annotated
// service.beta.openshift.io/inject-cabundle, ca-bundle.crt where labelled
// config.openshift.io/inject-trusted-cabundle) survive a manifest with
// "data: {}".
func ensureConfigMap(modified *bool, e *corev1.ConfigMap, r corev1.ConfigMap) {
	ensureObjectMeta(modified, &e.ObjectMeta, r.ObjectMeta)
	mergeBytesMap(modified, &e.BinaryData, r.BinaryData)
	mergeStringMap(modified, &e.Data, r.Data)
}

// checkInjectTLS refuses a ConfigMap the CVO would rewrite for the cluster's
// TLS profile (InjectTLSAnnotation).
func checkInjectTLS(kind, ns, name string, annotations map[string]string, hasData bool) error {
	if kind != "ConfigMap" || annotations[InjectTLSAnnotation] != "true" || !hasData {
		return nil
	}
	return fmt.Errorf("ConfigMap %s/%s asks for the cluster's TLS profile (%s=true), which the CVO injects and recover does not yet: apply it with the CVO running", ns, name, InjectTLSAnnotation)
}
