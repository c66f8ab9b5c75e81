package inspect

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	apiserverv1 "github.com/openshift/api/apiserver/v1"
	machinev1beta1 "github.com/openshift/api/machine/v1beta1"
	operatorv1 "github.com/openshift/api/operator/v1"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/openshift-recover/recover/internal/openshift"
)

// The converters below reduce the objects of the wedge facts (formatVersion 1.1)
// to their lean records. Like the others, they are what apply's gates call on
// the live objects too, so a gate and the diagnosis read an object one way.

// utc returns a metav1.Time as a UTC time.Time (zero stays zero): decoders give
// local times, and a snapshot must not depend on the reader's time zone.
func utc(t metav1.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC()
}

func addressesFromAPI(in []corev1.NodeAddress) []Address {
	var out []Address
	for _, a := range in {
		out = append(out, Address{Type: string(a.Type), Address: a.Address})
	}
	return out
}

// PodDisruptionBudgetFromAPI reduces a policy/v1 PodDisruptionBudget to its
// budget and status.
func PodDisruptionBudgetFromAPI(p *policyv1.PodDisruptionBudget) PodDisruptionBudget {
	out := PodDisruptionBudget{
		Namespace:          p.Namespace,
		Name:               p.Name,
		UID:                string(p.UID),
		Selector:           selectorText(p.Spec.Selector),
		Generation:         p.Generation,
		ObservedGeneration: p.Status.ObservedGeneration,
		CurrentHealthy:     p.Status.CurrentHealthy,
		DesiredHealthy:     p.Status.DesiredHealthy,
		DisruptionsAllowed: p.Status.DisruptionsAllowed,
		ExpectedPods:       p.Status.ExpectedPods,
	}
	if p.Spec.MinAvailable != nil {
		out.MinAvailable = p.Spec.MinAvailable.String()
	}
	if p.Spec.MaxUnavailable != nil {
		out.MaxUnavailable = p.Spec.MaxUnavailable.String()
	}
	if p.Spec.UnhealthyPodEvictionPolicy != nil {
		out.UnhealthyPodEvictionPolicy = string(*p.Spec.UnhealthyPodEvictionPolicy)
	}
	return out
}

// PDBSelector returns the pods a policy/v1 PodDisruptionBudget counts, as the
// disruption controller reads spec.selector: nil selects nothing, an empty
// selector every pod of the namespace. An invalid selector selects nothing.
func PDBSelector(p *policyv1.PodDisruptionBudget) labels.Selector {
	if p.Spec.Selector == nil {
		return labels.Nothing()
	}
	sel, err := metav1.LabelSelectorAsSelector(p.Spec.Selector)
	if err != nil {
		return labels.Nothing()
	}
	return sel
}

// selectorText writes a label selector in label-selector syntax ("" for nil or
// empty; an invalid one is written as such, never dropped silently).
func selectorText(s *metav1.LabelSelector) string {
	if s == nil {
		return ""
	}
	sel, err := metav1.LabelSelectorAsSelector(s)
	if err != nil {
		return "invalid selector: " + oneLine(err.Error())
	}
	return sel.String()
}

// CSRState returns the state of a certificate signing request from its
// conditions and status.certificate: Denied and Failed win over an approval; an
// approved request with a certificate is Issued.
func CSRState(st certificatesv1.CertificateSigningRequestStatus) string {
	approved, denied, failed := false, false, false
	for _, c := range st.Conditions {
		// v1 conditions carry a status; objects written before it was required
		// have none, which the API server reads as True.
		if c.Status != "" && c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case certificatesv1.CertificateApproved:
			approved = true
		case certificatesv1.CertificateDenied:
			denied = true
		case certificatesv1.CertificateFailed:
			failed = true
		}
	}
	switch {
	case denied:
		return CSRStateDenied
	case failed:
		return CSRStateFailed
	case approved && len(st.Certificate) > 0:
		return CSRStateIssued
	case approved:
		return CSRStateApproved
	}
	return CSRStatePending
}

// CertificateSigningRequestFromAPI reduces a CSR to its requestor, state and the
// subject and names its PKCS#10 request asks for. The request itself is not kept;
// one that cannot be read sets ParseError.
func CertificateSigningRequestFromAPI(c *certificatesv1.CertificateSigningRequest) CertificateSigningRequest {
	out := CertificateSigningRequest{
		Name:       c.Name,
		UID:        string(c.UID),
		SignerName: c.Spec.SignerName,
		Username:   c.Spec.Username,
		Groups:     append([]string(nil), c.Spec.Groups...),
		Created:    utc(c.CreationTimestamp),
		State:      CSRState(c.Status),
	}
	for _, u := range c.Spec.Usages {
		out.Usages = append(out.Usages, string(u))
	}
	req, err := parseCSR(c.Spec.Request)
	if err != nil {
		out.ParseError = err.Error()
		return out
	}
	out.CommonName = req.Subject.CommonName
	out.Organizations = append([]string(nil), req.Subject.Organization...)
	out.DNSNames = append([]string(nil), req.DNSNames...)
	for _, ip := range req.IPAddresses {
		out.IPAddresses = append(out.IPAddresses, ip.String())
	}
	return out
}

// parseCSR reads the first PEM block of a CSR's spec.request as a PKCS#10
// certificate request.
func parseCSR(data []byte) (*x509.CertificateRequest, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("spec.request is empty")
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("spec.request holds no PEM block")
	}
	if block.Type != "CERTIFICATE REQUEST" && block.Type != "NEW CERTIFICATE REQUEST" {
		return nil, fmt.Errorf("spec.request holds a PEM %q block, not a CERTIFICATE REQUEST", block.Type)
	}
	req, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("spec.request is not a PKCS#10 request: %v", oneLine(err.Error()))
	}
	return req, nil
}

// MachineFromAPI reduces a machine-api Machine to what the machine approver
// matches a CSR against.
func MachineFromAPI(m *machinev1beta1.Machine) Machine {
	out := Machine{
		Namespace: m.Namespace,
		Name:      m.Name,
		Addresses: addressesFromAPI(m.Status.Addresses),
		Created:   utc(m.CreationTimestamp),
	}
	if m.Status.NodeRef != nil {
		out.NodeRef = m.Status.NodeRef.Name
	}
	if m.Status.Phase != nil {
		out.Phase = *m.Status.Phase
	}
	return out
}

// APIRequestCountFromAPI reduces an APIRequestCount to its counts; ok is false
// for an API no coming release removes (status.removedInRelease empty).
func APIRequestCountFromAPI(a *apiserverv1.APIRequestCount) (APIRequestCount, bool) {
	if a.Status.RemovedInRelease == "" {
		return APIRequestCount{}, false
	}
	return APIRequestCount{
		Name:             a.Name,
		RemovedInRelease: a.Status.RemovedInRelease,
		RequestCount:     a.Status.RequestCount,
		CurrentHour:      a.Status.CurrentHour.RequestCount,
	}, true
}

// defaultWebhookTimeout is admissionregistration.k8s.io/v1's default
// timeoutSeconds, which the API server writes into a webhook that sets none.
const defaultWebhookTimeout = 10

// webhookFrom reduces the parts every webhook kind shares; unset failure policy
// and timeout read as the API's defaults (Fail, 10 s), as a live object has them.
func webhookFrom(kind, configuration, name string, cc admissionv1.WebhookClientConfig, rules []admissionv1.RuleWithOperations,
	failure *admissionv1.FailurePolicyType, timeout *int32, nsSel, objSel *metav1.LabelSelector) Webhook {
	w := Webhook{
		Kind: kind, Configuration: configuration, Name: name,
		FailurePolicy:     string(admissionv1.Fail),
		NamespaceSelector: selectorText(nsSel),
		ObjectSelector:    selectorText(objSel),
		ReadyEndpoints:    -1,
	}
	if failure != nil && *failure != "" {
		w.FailurePolicy = string(*failure)
	}
	w.TimeoutSeconds = defaultWebhookTimeout
	if timeout != nil {
		w.TimeoutSeconds = *timeout
	}
	switch {
	case cc.Service != nil:
		w.Service = cc.Service.Namespace + "/" + cc.Service.Name
	case cc.URL != nil:
		w.URL = webhookHost(*cc.URL)
	}
	for _, r := range rules {
		w.Rules = append(w.Rules, ruleText(r))
	}
	return w
}

// webhookHost keeps only the host (and port) of a webhook URL: never its
// credentials, path or query.
func webhookHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "unparseable URL"
	}
	return u.Host
}

// ruleText writes an admission rule on one line: "CREATE,UPDATE apps/v1
// deployments" (the core group as "v1", several groups or versions joined with
// commas, a scope other than * appended as "(Namespaced)").
func ruleText(r admissionv1.RuleWithOperations) string {
	ops := make([]string, 0, len(r.Operations))
	for _, o := range r.Operations {
		ops = append(ops, string(o))
	}
	gv := strings.Join(r.APIVersions, ",")
	if !(len(r.APIGroups) == 1 && r.APIGroups[0] == "") {
		groups := make([]string, 0, len(r.APIGroups))
		for _, g := range r.APIGroups {
			if g == "" {
				g = "core"
			}
			groups = append(groups, g)
		}
		gv = strings.Join(groups, ",") + "/" + gv
	}
	s := fmt.Sprintf("%s %s %s", orNone(strings.Join(ops, ",")), gv, orNone(strings.Join(r.Resources, ",")))
	if r.Scope != nil && *r.Scope != admissionv1.AllScopes {
		s += " (" + string(*r.Scope) + ")"
	}
	return s
}

// ValidatingWebhooksFromAPI reduces a validating webhook configuration to one
// Webhook per webhook (ReadyEndpoints -1 until the builder knows them).
func ValidatingWebhooksFromAPI(c *admissionv1.ValidatingWebhookConfiguration) []Webhook {
	var out []Webhook
	for _, w := range c.Webhooks {
		out = append(out, webhookFrom(WebhookValidating, c.Name, w.Name, w.ClientConfig, w.Rules, w.FailurePolicy, w.TimeoutSeconds, w.NamespaceSelector, w.ObjectSelector))
	}
	return out
}

// MutatingWebhooksFromAPI reduces a mutating webhook configuration likewise.
func MutatingWebhooksFromAPI(c *admissionv1.MutatingWebhookConfiguration) []Webhook {
	var out []Webhook
	for _, w := range c.Webhooks {
		out = append(out, webhookFrom(WebhookMutating, c.Name, w.Name, w.ClientConfig, w.Rules, w.FailurePolicy, w.TimeoutSeconds, w.NamespaceSelector, w.ObjectSelector))
	}
	return out
}

// AdmissionPolicyFromAPI reduces a ValidatingAdmissionPolicy (its bindings are
// joined by the builder).
func AdmissionPolicyFromAPI(p *admissionv1.ValidatingAdmissionPolicy) AdmissionPolicy {
	out := AdmissionPolicy{Name: p.Name, FailurePolicy: string(admissionv1.Fail)}
	if p.Spec.FailurePolicy != nil && *p.Spec.FailurePolicy != "" {
		out.FailurePolicy = string(*p.Spec.FailurePolicy)
	}
	if pk := p.Spec.ParamKind; pk != nil {
		out.ParamKind = strings.Trim(pk.APIVersion+"/"+pk.Kind, "/")
	}
	if mc := p.Spec.MatchConstraints; mc != nil {
		for _, r := range mc.ResourceRules {
			out.Rules = append(out.Rules, ruleText(r.RuleWithOperations))
		}
	}
	return out
}

// AdmissionPolicyBindingText returns the policy a ValidatingAdmissionPolicyBinding
// binds and how it reads in AdmissionPolicy.Bindings ("<binding>: Deny,Audit").
func AdmissionPolicyBindingText(b *admissionv1.ValidatingAdmissionPolicyBinding) (policy, text string) {
	actions := make([]string, 0, len(b.Spec.ValidationActions))
	for _, a := range b.Spec.ValidationActions {
		actions = append(actions, string(a))
	}
	return b.Spec.PolicyName, b.Name + ": " + orNone(strings.Join(actions, ","))
}

// EndpointSliceReady returns the service an EndpointSlice belongs to (its
// kubernetes.io/service-name label) and how many of its endpoints are ready; a
// nil ready condition counts as ready, as the API asks consumers to read it. ok
// is false for a slice of no service.
func EndpointSliceReady(s *discoveryv1.EndpointSlice) (service string, ready int32, ok bool) {
	svc := s.Labels[discoveryv1.LabelServiceName]
	if svc == "" {
		return "", 0, false
	}
	for _, e := range s.Endpoints {
		if e.Conditions.Ready == nil || *e.Conditions.Ready {
			ready++
		}
	}
	return s.Namespace + "/" + svc, ready, true
}

// CertificateSecretFromMeta reads a certificate Secret's validity from its
// metadata (library-go certrotation annotations, RFC 3339); ok is false when it
// carries no readable certificate-not-after annotation.
func CertificateSecretFromMeta(m *metav1.ObjectMeta) (CertificateSecret, bool) {
	notAfter, err := time.Parse(time.RFC3339, m.Annotations[openshift.AnnotationCertNotAfter])
	if err != nil {
		return CertificateSecret{}, false
	}
	out := CertificateSecret{Namespace: m.Namespace, Name: m.Name, NotAfter: notAfter.UTC(), Issuer: m.Annotations[openshift.AnnotationCertIssuer]}
	if nb, err := time.Parse(time.RFC3339, m.Annotations[openshift.AnnotationCertNotBefore]); err == nil {
		out.NotBefore = nb.UTC()
	}
	return out, true
}

// CloudCredentialFromAPI reduces cloudcredentials.operator.openshift.io/cluster.
func CloudCredentialFromAPI(c *operatorv1.CloudCredential) CloudCredential {
	return CloudCredential{UID: string(c.UID), Mode: string(c.Spec.CredentialsMode), UpgradeableTo: c.Annotations[openshift.AnnotationUpgradeableTo]}
}

// GuardPodFromAPI returns the guard pod record of a pod of a static-pod operand
// namespace named <prefix>-guard-<node>, or nil.
func GuardPodFromAPI(c *StaticPodComponent, p *corev1.Pod) *GuardPod {
	node, ok := strings.CutPrefix(p.Name, c.PodPrefix+openshift.GuardPodInfix)
	if !ok || node == "" {
		return nil
	}
	if p.Spec.NodeName != "" {
		node = p.Spec.NodeName
	}
	return &GuardPod{Name: p.Name, Node: node, Ready: podReady(p)}
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// drainCandidate reduces a pod that a drain of its node would evict through the
// eviction API, which checks PodDisruptionBudgets; ok is false for the pods a
// drain skips or the eviction API lets through regardless of any budget
// (unscheduled, mirror and DaemonSet pods; Pending, Succeeded and Failed pods;
// pods already being deleted: kubernetes pkg/registry/core/pod/storage/eviction.go
// canIgnorePDB, kubectl drain's filters).
func drainCandidate(p *corev1.Pod) (DrainPod, bool) {
	if p.Spec.NodeName == "" || p.DeletionTimestamp != nil {
		return DrainPod{}, false
	}
	switch p.Status.Phase {
	case corev1.PodPending, corev1.PodSucceeded, corev1.PodFailed:
		return DrainPod{}, false
	}
	if _, mirror := p.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		return DrainPod{}, false
	}
	d := DrainPod{Namespace: p.Namespace, Name: p.Name, Node: p.Spec.NodeName, Phase: string(p.Status.Phase), Ready: podReady(p)}
	if ref := metav1.GetControllerOf(p); ref != nil {
		if ref.Kind == "DaemonSet" {
			return DrainPod{}, false
		}
		d.Owner = ref.Kind + "/" + ref.Name
	}
	return d, true
}

// keysInOrder returns a map's keys, sorted.
func keysInOrder[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
