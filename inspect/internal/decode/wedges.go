package decode

import (
	"encoding/json"
	"fmt"

	apiserverv1 "github.com/openshift/api/apiserver/v1"
	machinev1beta1 "github.com/openshift/api/machine/v1beta1"
	operatorv1 "github.com/openshift/api/operator/v1"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/inspect"
)

// policyV1beta1 is the API version whose empty PodDisruptionBudget selector
// selects no pod (policy/v1's selects every pod of the namespace).
const policyV1beta1 = "policy/v1beta1"

// addWedge decodes the kinds of the wedge facts (formatVersion 1.1).
func addWedge(b *inspect.Builder, d Doc, kind string, fail func(error) (inspect.Resource, bool, error)) (inspect.Resource, bool, error) {
	named := func(name string) error {
		if name == "" {
			return fmt.Errorf("metadata.name is empty")
		}
		return nil
	}
	switch kind {
	case "PodDisruptionBudget":
		var o policyv1.PodDisruptionBudget
		if err := json.Unmarshal(d.JSON, &o); err != nil {
			return fail(err)
		}
		if err := named(o.Name); err != nil {
			return fail(err)
		}
		if d.APIVersion == policyV1beta1 && o.Spec.Selector != nil && len(o.Spec.Selector.MatchLabels) == 0 && len(o.Spec.Selector.MatchExpressions) == 0 {
			o.Spec.Selector = nil
		}
		b.AddPodDisruptionBudget(&o)
		return inspect.ResPodDisruptionBudgets, true, nil
	case "CertificateSigningRequest":
		if isInsightsCSR(d.JSON) {
			r, err := insightsCSR(d.JSON)
			if err != nil {
				return fail(err)
			}
			b.AddCSRRecord(r)
			return inspect.ResCertificateSigningRequests, true, nil
		}
		var o certificatesv1.CertificateSigningRequest
		if err := json.Unmarshal(d.JSON, &o); err != nil {
			return fail(err)
		}
		if err := named(o.Name); err != nil {
			return fail(err)
		}
		b.AddCertificateSigningRequest(&o)
		return inspect.ResCertificateSigningRequests, true, nil
	case "Machine":
		var o machinev1beta1.Machine
		if err := json.Unmarshal(d.JSON, &o); err != nil {
			return fail(err)
		}
		if err := named(o.Name); err != nil {
			return fail(err)
		}
		b.AddMachine(&o)
		return inspect.ResMachines, true, nil
	case "ConfigMap":
		var o corev1.ConfigMap
		if err := json.Unmarshal(d.JSON, &o); err != nil {
			return fail(err)
		}
		b.AddConfigMap(&o)
		return inspect.ResConfigMaps, true, nil
	case "APIRequestCount":
		var o apiserverv1.APIRequestCount
		if err := json.Unmarshal(d.JSON, &o); err != nil {
			return fail(err)
		}
		b.AddAPIRequestCount(&o)
		return inspect.ResAPIRequestCounts, true, nil
	case "ValidatingWebhookConfiguration":
		var o admissionv1.ValidatingWebhookConfiguration
		if err := json.Unmarshal(d.JSON, &o); err != nil {
			return fail(err)
		}
		if err := named(o.Name); err != nil {
			return fail(err)
		}
		b.AddValidatingWebhookConfiguration(&o)
		return inspect.ResValidatingWebhookConfigurations, true, nil
	case "MutatingWebhookConfiguration":
		var o admissionv1.MutatingWebhookConfiguration
		if err := json.Unmarshal(d.JSON, &o); err != nil {
			return fail(err)
		}
		if err := named(o.Name); err != nil {
			return fail(err)
		}
		b.AddMutatingWebhookConfiguration(&o)
		return inspect.ResMutatingWebhookConfigurations, true, nil
	case "ValidatingAdmissionPolicy":
		var o admissionv1.ValidatingAdmissionPolicy
		if err := json.Unmarshal(d.JSON, &o); err != nil {
			return fail(err)
		}
		if err := named(o.Name); err != nil {
			return fail(err)
		}
		b.AddValidatingAdmissionPolicy(&o)
		return inspect.ResValidatingAdmissionPolicies, true, nil
	case "ValidatingAdmissionPolicyBinding":
		var o admissionv1.ValidatingAdmissionPolicyBinding
		if err := json.Unmarshal(d.JSON, &o); err != nil {
			return fail(err)
		}
		if err := named(o.Name); err != nil {
			return fail(err)
		}
		b.AddValidatingAdmissionPolicyBinding(&o)
		return inspect.ResValidatingAdmissionPolicyBindings, true, nil
	case "EndpointSlice":
		var o discoveryv1.EndpointSlice
		if err := json.Unmarshal(d.JSON, &o); err != nil {
			return fail(err)
		}
		b.AddEndpointSlice(&o)
		return inspect.ResEndpointSlices, true, nil
	case "Secret":
		// Only the metadata is decoded: a Secret's data never leaves this
		// function (oc adm inspect elides it anyway).
		var o struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
		}
		if err := json.Unmarshal(d.JSON, &o); err != nil {
			return fail(err)
		}
		b.AddSecretMetadata(&o.Metadata)
		return inspect.ResSecrets, true, nil
	case "ClusterServiceVersion":
		// Only the metadata: the maximum OpenShift version is an annotation.
		var o struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
		}
		if err := json.Unmarshal(d.JSON, &o); err != nil {
			return fail(err)
		}
		b.AddClusterServiceVersion(&o.Metadata)
		return inspect.ResClusterServiceVersions, true, nil
	case "CloudCredential":
		var o operatorv1.CloudCredential
		if err := json.Unmarshal(d.JSON, &o); err != nil {
			return fail(err)
		}
		b.SetCloudCredential(&o)
		return inspect.ResCloudCredentials, true, nil
	}
	return inspect.Resource{}, false, nil
}

// isInsightsCSR reports whether a CSR document is the Insights operator's
// anonymized record (Go field names: TypeMeta, ObjectMeta, Spec, Status) rather
// than the API object.
func isInsightsCSR(js []byte) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(js, &top) != nil {
		return false
	}
	_, anonymized := top["ObjectMeta"]
	_, object := top["metadata"]
	return anonymized && !object
}

// insightsCSR reads the Insights operator's anonymized CSR record
// (insights-operator pkg/gatherers/clusterconfig/gather_certificate_signing_requests.go
// CSRAnonymizedFeatures): its metadata, requestor and conditions are real; its
// subject and names are anonymized, and it has no signer name.
func insightsCSR(js []byte) (inspect.CertificateSigningRequest, error) {
	var o struct {
		ObjectMeta metav1.ObjectMeta
		Spec       *struct {
			Username string
			Groups   []string
			Usages   []string
		}
		Status *struct {
			Conditions []certificatesv1.CertificateSigningRequestCondition
			Cert       *json.RawMessage
		}
	}
	if err := json.Unmarshal(js, &o); err != nil {
		return inspect.CertificateSigningRequest{}, err
	}
	if o.ObjectMeta.Name == "" {
		return inspect.CertificateSigningRequest{}, fmt.Errorf("ObjectMeta.name is empty")
	}
	var st certificatesv1.CertificateSigningRequestStatus
	if o.Status != nil {
		st.Conditions = o.Status.Conditions
		if o.Status.Cert != nil && string(*o.Status.Cert) != "null" {
			st.Certificate = []byte("issued")
		}
	}
	r := inspect.CertificateSigningRequest{
		Name: o.ObjectMeta.Name, UID: string(o.ObjectMeta.UID), State: inspect.CSRState(st),
		ParseError: "the Insights operator anonymizes the request's subject and names and drops its signer name",
	}
	if !o.ObjectMeta.CreationTimestamp.IsZero() {
		r.Created = o.ObjectMeta.CreationTimestamp.UTC()
	}
	if o.Spec != nil {
		r.Username, r.Groups, r.Usages = o.Spec.Username, o.Spec.Groups, o.Spec.Usages
	}
	return r, nil
}
