package live

import (
	"context"
	"net/http"
	"strings"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
)

// wedgeJobs returns one job per resource type of the wedge facts that needs
// nothing else first: cluster-wide LISTs, the Machines of openshift-machine-api,
// one LIST per signer namespace for Secrets (metadata only), and one
// field-selector LIST per admin-gate ConfigMap.
func (s *Source) wedgeJobs(b *inspect.Builder) []job {
	adm, opv1 := s.kube.AdmissionregistrationV1(), s.operator.OperatorV1()
	jobs := []job{
		{res: inspect.ResPodDisruptionBudgets, page: func(ctx context.Context, o metav1.ListOptions) (string, int, error) {
			l, err := s.kube.PolicyV1().PodDisruptionBudgets(metav1.NamespaceAll).List(ctx, o)
			if err != nil {
				return "", 0, err
			}
			for i := range l.Items {
				b.AddPodDisruptionBudget(&l.Items[i])
			}
			return l.Continue, len(l.Items), nil
		}},
		{res: inspect.ResCertificateSigningRequests, page: func(ctx context.Context, o metav1.ListOptions) (string, int, error) {
			l, err := s.kube.CertificatesV1().CertificateSigningRequests().List(ctx, o)
			if err != nil {
				return "", 0, err
			}
			for i := range l.Items {
				b.AddCertificateSigningRequest(&l.Items[i])
			}
			return l.Continue, len(l.Items), nil
		}},
		{res: inspect.ResMachines, ns: openshift.MachineAPINamespace, page: func(ctx context.Context, o metav1.ListOptions) (string, int, error) {
			l, err := s.machine.MachineV1beta1().Machines(openshift.MachineAPINamespace).List(ctx, o)
			if err != nil {
				return "", 0, err
			}
			for i := range l.Items {
				b.AddMachine(&l.Items[i])
			}
			return l.Continue, len(l.Items), nil
		}},
		{res: inspect.ResAPIRequestCounts, page: func(ctx context.Context, o metav1.ListOptions) (string, int, error) {
			l, err := s.apisrv.ApiserverV1().APIRequestCounts().List(ctx, o)
			if err != nil {
				return "", 0, err
			}
			for i := range l.Items {
				b.AddAPIRequestCount(&l.Items[i])
			}
			return l.Continue, len(l.Items), nil
		}},
		{res: inspect.ResValidatingWebhookConfigurations, page: func(ctx context.Context, o metav1.ListOptions) (string, int, error) {
			l, err := adm.ValidatingWebhookConfigurations().List(ctx, o)
			if err != nil {
				return "", 0, err
			}
			for i := range l.Items {
				b.AddValidatingWebhookConfiguration(&l.Items[i])
			}
			return l.Continue, len(l.Items), nil
		}},
		{res: inspect.ResMutatingWebhookConfigurations, page: func(ctx context.Context, o metav1.ListOptions) (string, int, error) {
			l, err := adm.MutatingWebhookConfigurations().List(ctx, o)
			if err != nil {
				return "", 0, err
			}
			for i := range l.Items {
				b.AddMutatingWebhookConfiguration(&l.Items[i])
			}
			return l.Continue, len(l.Items), nil
		}},
		{res: inspect.ResValidatingAdmissionPolicies, page: func(ctx context.Context, o metav1.ListOptions) (string, int, error) {
			l, err := adm.ValidatingAdmissionPolicies().List(ctx, o)
			if err != nil {
				return "", 0, err
			}
			for i := range l.Items {
				b.AddValidatingAdmissionPolicy(&l.Items[i])
			}
			return l.Continue, len(l.Items), nil
		}},
		{res: inspect.ResValidatingAdmissionPolicyBindings, page: func(ctx context.Context, o metav1.ListOptions) (string, int, error) {
			l, err := adm.ValidatingAdmissionPolicyBindings().List(ctx, o)
			if err != nil {
				return "", 0, err
			}
			for i := range l.Items {
				b.AddValidatingAdmissionPolicyBinding(&l.Items[i])
			}
			return l.Continue, len(l.Items), nil
		}},
		{res: inspect.ResCloudCredentials, page: func(ctx context.Context, o metav1.ListOptions) (string, int, error) {
			l, err := opv1.CloudCredentials().List(ctx, o)
			if err != nil {
				return "", 0, err
			}
			for i := range l.Items {
				b.SetCloudCredential(&l.Items[i])
			}
			return l.Continue, len(l.Items), nil
		}},
	}
	for _, gate := range []struct{ ns, name string }{
		{openshift.AdminGatesNamespace, openshift.AdminGatesConfigMap},
		{openshift.AdminAcksNamespace, openshift.AdminAcksConfigMap},
	} {
		jobs = append(jobs, job{res: inspect.ResConfigMaps, ns: gate.ns, field: fields.OneTermEqualSelector("metadata.name", gate.name).String(),
			page: func(ctx context.Context, o metav1.ListOptions) (string, int, error) {
				l, err := s.kube.CoreV1().ConfigMaps(gate.ns).List(ctx, o)
				if err != nil {
					return "", 0, err
				}
				for i := range l.Items {
					b.AddConfigMap(&l.Items[i])
				}
				return l.Continue, len(l.Items), nil
			}})
	}
	secrets := schema.GroupVersionResource{Version: inspect.ResSecrets.Version, Resource: inspect.ResSecrets.Resource}
	for _, ns := range openshift.SignerNamespaces {
		jobs = append(jobs, job{res: inspect.ResSecrets, ns: ns, page: func(ctx context.Context, o metav1.ListOptions) (string, int, error) {
			l, err := s.secrets.Resource(secrets).Namespace(ns).List(ctx, o)
			if err != nil {
				return "", 0, err
			}
			for i := range l.Items {
				b.AddSecretMetadata(&l.Items[i].ObjectMeta)
			}
			return l.Continue, len(l.Items), nil
		}})
	}
	return jobs
}

// drainPodsField leaves out the pods that never block a drain (terminal ones)
// server-side; the builder drops the others that do not (inspect's drain
// candidates).
var drainPodsField = fields.AndSelectors(
	fields.OneTermNotEqualSelector("status.phase", "Succeeded"),
	fields.OneTermNotEqualSelector("status.phase", "Failed"),
).String()

// dependentJobs returns the second phase's jobs, from what the first read:
// every pod of the cluster when some node has drain trouble and some
// PodDisruptionBudget exists (the builder reduces each page at once), and the
// EndpointSlices of the services webhooks call, across namespaces with one
// set-based selector. What is not needed is recorded as collected without a
// request: its facts are empty by definition.
func (s *Source) dependentJobs(b *inspect.Builder) []job {
	var jobs []job
	if b.DrainPodsNeeded() {
		b.DrainInputsComplete()
		jobs = append(jobs, job{res: inspect.ResPods, field: drainPodsField, page: func(ctx context.Context, o metav1.ListOptions) (string, int, error) {
			l, err := s.kube.CoreV1().Pods(metav1.NamespaceAll).List(ctx, o)
			if err != nil {
				return "", 0, err
			}
			for i := range l.Items {
				b.AddPod(&l.Items[i])
			}
			return l.Continue, len(l.Items), nil
		}})
	} else {
		b.Record(s.notNeeded(inspect.ResPods, "no collected node drains, is cordoned or degraded while a PodDisruptionBudget exists"))
	}
	services := b.WebhookServices()
	if len(services) == 0 {
		b.Record(s.notNeeded(inspect.ResEndpointSlices, "no collected webhook calls a service"))
		return jobs
	}
	jobs = append(jobs, job{res: inspect.ResEndpointSlices, label: serviceSelector(services), page: func(ctx context.Context, o metav1.ListOptions) (string, int, error) {
		l, err := s.kube.DiscoveryV1().EndpointSlices(metav1.NamespaceAll).List(ctx, o)
		if err != nil {
			return "", 0, err
		}
		for i := range l.Items {
			b.AddEndpointSlice(&l.Items[i])
		}
		return l.Continue, len(l.Items), nil
	}})
	return jobs
}

// serviceSelector selects the EndpointSlices of the named services
// ("<ns>/<name>"): kubernetes.io/service-name in (...) over their names (the
// builder keeps only the namespaces asked for). Names that are no label value
// (never the case for a Service) leave the selector out: every slice is listed.
func serviceSelector(services []string) string {
	set := map[string]bool{}
	for _, svc := range services {
		_, name, _ := strings.Cut(svc, "/")
		set[name] = true
	}
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	req, err := labels.NewRequirement(discoveryv1.LabelServiceName, selection.In, names)
	if err != nil {
		return ""
	}
	return labels.NewSelector().Add(*req).String()
}

// notNeeded records a resource not listed because nothing collected needs it.
func (s *Source) notNeeded(res inspect.Resource, why string) inspect.ResourceStatus {
	return inspect.ResourceStatus{Resource: res.Key(), State: inspect.Collected, Reason: inspect.ReasonNotNeeded + why,
		From: []string{apiPath(res, "")}, CollectedAt: s.opts.Now()}
}

// acceptMetadataList is the only Accept a Secret LIST may carry: metadata, as
// protobuf or JSON, and no plain fallback a server could answer with whole
// Secrets.
const acceptMetadataList = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"

// metadataOnly makes every request of the secrets client accept only
// PartialObjectMetadataList.
type metadataOnly struct{ next http.RoundTripper }

func (m metadataOnly) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Accept", acceptMetadataList)
	return m.next.RoundTrip(r)
}
