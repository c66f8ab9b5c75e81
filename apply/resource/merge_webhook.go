package resource

import (
	admissionregv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func init() {
	registerTyped(admissionregv1.SchemeGroupVersion.WithKind("ValidatingWebhookConfiguration"), func(modified *bool, e *admissionregv1.ValidatingWebhookConfiguration, r admissionregv1.ValidatingWebhookConfiguration) error {
		ensureValidatingWebhooks(modified, e, r)
		return nil
	})
}

// ensureValidatingWebhooks (lib/resourcemerge/admissionregistration.go
// EnsureValidatingWebhookConfiguration): the webhooks are the manifest's with
// the API server's defaults filled in (failurePolicy Fail, matchPolicy
// Equivalent, empty selectors, timeoutSeconds 10, rule scope "*"), and, when the
// live object is annotated for CA injection, every webhook carries the live
// first webhook's caBundle (ensureValidatingWebhookConfigurationCaBundle): an
// admission call would fail TLS without it. The CVO registers no
// MutatingWebhookConfiguration: that kind takes the generic rule.
func ensureValidatingWebhooks(modified *bool, e *admissionregv1.ValidatingWebhookConfiguration, r admissionregv1.ValidatingWebhookConfiguration) {
	ensureObjectMeta(modified, &e.ObjectMeta, r.ObjectMeta)
	for i := range r.Webhooks {
		w := &r.Webhooks[i]
		if w.FailurePolicy == nil {
			w.FailurePolicy = ptr.To(admissionregv1.Fail)
		}
		if w.MatchPolicy == nil {
			w.MatchPolicy = ptr.To(admissionregv1.Equivalent)
		}
		if w.NamespaceSelector == nil {
			w.NamespaceSelector = &metav1.LabelSelector{}
		}
		if w.ObjectSelector == nil {
			w.ObjectSelector = &metav1.LabelSelector{}
		}
		if w.TimeoutSeconds == nil {
			w.TimeoutSeconds = ptr.To(int32(10))
		}
		for j := range w.Rules {
			if w.Rules[j].Scope == nil {
				w.Rules[j].Scope = ptr.To(admissionregv1.AllScopes)
			}
		}
	}
	if e.Annotations[InjectCABundleAnnotation] == "true" && len(e.Webhooks) > 0 {
		ca := e.Webhooks[0].ClientConfig.CABundle
		for i := range r.Webhooks {
			r.Webhooks[i].ClientConfig.CABundle = ca
		}
	}
	setSemantic(modified, &e.Webhooks, r.Webhooks)
}
