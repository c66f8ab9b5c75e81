package resource

import (
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// InjectCABundleAnnotation, "true" on a live object, says the service-ca
// controller owns its CA bundle fields (lib/resourcemerge/helper.go
// injectCABundleAnnotation).
const InjectCABundleAnnotation = "service.beta.openshift.io/inject-cabundle"

func init() {
	registerTyped(apiextv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"), func(modified *bool, e *apiextv1.CustomResourceDefinition, r apiextv1.CustomResourceDefinition) error {
		ensureCRD(modified, e, r)
		return nil
	})
}

// ensureCRD (lib/resourcemerge/apiext.go EnsureCustomResourceDefinitionV1):
// the spec is the manifest's, with names.singular and names.listKind
// defaulted, and, when the live CRD is annotated for CA injection and converts
// through a webhook, the live webhook's caBundle kept
// (ensureCustomResourceDefinitionV1CaBundle): without it conversion calls fail
// TLS until the service-ca controller injects the bundle again. Only
// apiextensions.k8s.io/v1: a v1beta1 CRD takes the generic rule, as the CVO
// registers v1 only.
func ensureCRD(modified *bool, e *apiextv1.CustomResourceDefinition, r apiextv1.CustomResourceDefinition) {
	ensureObjectMeta(modified, &e.ObjectMeta, r.ObjectMeta)
	if r.Spec.Names.Singular == "" {
		r.Spec.Names.Singular = strings.ToLower(r.Spec.Names.Kind)
	}
	if r.Spec.Names.ListKind == "" {
		r.Spec.Names.ListKind = r.Spec.Names.Kind + "List"
	}
	if e.Annotations[InjectCABundleAnnotation] == "true" {
		rc, ec := r.Spec.Conversion, e.Spec.Conversion
		if rc != nil && rc.Webhook != nil && rc.Webhook.ClientConfig != nil && rc.Strategy == apiextv1.WebhookConverter &&
			ec != nil && ec.Webhook != nil && ec.Webhook.ClientConfig != nil {
			rc.Webhook.ClientConfig.CABundle = ec.Webhook.ClientConfig.CABundle
		}
	}
	setSemantic(modified, &e.Spec, r.Spec)
}
