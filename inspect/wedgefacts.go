package inspect

import "time"

// The facts below (snapshot formatVersion 1.1) are what the wedge diagnosis needs
// beyond the two founding incidents: drains held by PodDisruptionBudgets, pending
// certificate signing requests, admin gates, APIs about to be removed, admission
// webhooks and policies that refuse writes, and signer certificates near expiry
// (docs/findings.md, ../shared/domain/update-wedges.md). Every one is a lean record:
// a snapshot never holds whole objects, and never a Secret's data.

// PodDisruptionBudget is a PDB's budget and the disruption controller's status.
type PodDisruptionBudget struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// UID identifies the object a remedy may patch; apply refuses another one.
	UID string `json:"uid,omitempty"`
	// MinAvailable and MaxUnavailable are the spec's values as written (an integer
	// or a percentage); "" when unset.
	MinAvailable   string `json:"minAvailable,omitempty"`
	MaxUnavailable string `json:"maxUnavailable,omitempty"`
	// Selector is spec.selector in label-selector syntax ("app=x,tier in (a,b)");
	// "" selects nothing, as the disruption controller reads an empty selector.
	Selector string `json:"selector"`
	// UnhealthyPodEvictionPolicy is spec.unhealthyPodEvictionPolicy ("" is
	// IfHealthyBudget, the API default).
	UnhealthyPodEvictionPolicy string `json:"unhealthyPodEvictionPolicy,omitempty"`
	Generation                 int64  `json:"generation,omitempty"`
	ObservedGeneration         int64  `json:"observedGeneration,omitempty"`
	// The disruption controller's status.
	CurrentHealthy     int32 `json:"currentHealthy"`
	DesiredHealthy     int32 `json:"desiredHealthy"`
	DisruptionsAllowed int32 `json:"disruptionsAllowed"`
	ExpectedPods       int32 `json:"expectedPods"`
}

// Key returns "<namespace>/<name>".
func (p PodDisruptionBudget) Key() string { return p.Namespace + "/" + p.Name }

// DrainPod is a pod that a drain must evict and a PodDisruptionBudget guards: one
// selected by a PDB of its namespace, on a node that is draining, cordoned or
// degraded. Other pods are not kept.
type DrainPod struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Node      string `json:"node"`
	Phase     string `json:"phase,omitempty"`
	Ready     bool   `json:"ready"`
	// PDBs are the budgets selecting it, "<namespace>/<name>", sorted.
	PDBs []string `json:"pdbs"`
	// Owner is the controller owner, "<Kind>/<name>", when it has one.
	Owner string `json:"owner,omitempty"`
}

// The states a certificate signing request can be in, from its conditions and
// status.certificate.
const (
	CSRStatePending  = "Pending"
	CSRStateApproved = "Approved" // approved, no certificate issued yet
	CSRStateIssued   = "Issued"
	CSRStateDenied   = "Denied"
	CSRStateFailed   = "Failed"
)

// CertificateSigningRequest is a CSR's requestor and what it asks for, parsed from
// its PKCS#10 request. Only requests not yet approved or denied are kept.
type CertificateSigningRequest struct {
	Name string `json:"name"`
	UID  string `json:"uid,omitempty"`
	// SignerName is spec.signerName (kubernetes.io/kube-apiserver-client-kubelet,
	// kubernetes.io/kubelet-serving, ...).
	SignerName string `json:"signerName"`
	// Username and Groups are the requestor (spec.username, spec.groups).
	Username string    `json:"username"`
	Groups   []string  `json:"groups,omitempty"`
	Created  time.Time `json:"created,omitzero"`
	// State is CSRStatePending, CSRStateApproved, CSRStateIssued, CSRStateDenied or CSRStateFailed.
	State string `json:"state"`
	// The request's subject and subject alternative names; ParseError says why the
	// request could not be read (then they are empty).
	CommonName    string   `json:"commonName,omitempty"`
	Organizations []string `json:"organizations,omitempty"`
	DNSNames      []string `json:"dnsNames,omitempty"`
	IPAddresses   []string `json:"ipAddresses,omitempty"`
	Usages        []string `json:"usages,omitempty"`
	ParseError    string   `json:"parseError,omitempty"`
}

// Machine is a machine-api Machine: which node it became and its addresses, what
// the machine approver matches a kubelet's CSR against.
type Machine struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// NodeRef is status.nodeRef.name, "" before the node joined.
	NodeRef string `json:"nodeRef,omitempty"`
	Phase   string `json:"phase,omitempty"`
	// Addresses are status.addresses (InternalDNS, Hostname, InternalIP, ...).
	Addresses []Address `json:"addresses,omitempty"`
	Created   time.Time `json:"created,omitzero"`
}

// Address is one address of a node or machine: its type (InternalIP,
// ExternalIP, InternalDNS, ExternalDNS, Hostname) and value.
type Address struct {
	Type    string `json:"type"`
	Address string `json:"address"`
}

// AdminGates are the admin-acks gates: the gates the CVO enforces
// (openshift-config-managed/admin-gates: key -> description) beside the admin's
// acknowledgements (openshift-config/admin-acks: key -> "true").
type AdminGates struct {
	// Gates is nil when the ConfigMap was not found; Acks likewise.
	Gates map[string]string `json:"gates,omitempty"`
	Acks  map[string]string `json:"acks,omitempty"`
	// AcksUID identifies the admin-acks ConfigMap a remedy may patch.
	AcksUID string `json:"acksUID,omitempty"`
}

// APIRequestCount is the request count of one API that a coming release removes
// (apiserver.openshift.io/v1 APIRequestCount with status.removedInRelease). Counts
// only: who made the requests is not kept.
type APIRequestCount struct {
	// Name is "<resource>.<version>.<group>".
	Name             string `json:"name"`
	RemovedInRelease string `json:"removedInRelease"`
	// RequestCount is status.requestCount (the last 24 hours); CurrentHour is
	// status.currentHour.requestCount.
	RequestCount int64 `json:"requestCount"`
	CurrentHour  int64 `json:"currentHour"`
}

// The admission webhook kinds.
const (
	WebhookValidating = "Validating"
	WebhookMutating   = "Mutating"
)

// Webhook is one webhook of a validating or mutating webhook configuration: what
// it intercepts, what it calls, and whether that answers.
type Webhook struct {
	// Kind is WebhookValidating or WebhookMutating; Configuration is the
	// configuration's name, Name the webhook's.
	Kind          string `json:"kind"`
	Configuration string `json:"configuration"`
	Name          string `json:"name"`
	// FailurePolicy is Fail or Ignore (the API default is Fail).
	FailurePolicy  string `json:"failurePolicy"`
	TimeoutSeconds int32  `json:"timeoutSeconds,omitempty"`
	// Service is the service it calls, "<namespace>/<name>"; URL is set instead for
	// a webhook called by URL (host only, never credentials).
	Service string `json:"service,omitempty"`
	URL     string `json:"url,omitempty"`
	// Rules are its rules, one per line ("CREATE,UPDATE apps/v1 deployments").
	Rules             []string `json:"rules,omitempty"`
	NamespaceSelector string   `json:"namespaceSelector,omitempty"`
	ObjectSelector    string   `json:"objectSelector,omitempty"`
	// ReadyEndpoints is the number of ready endpoints of Service (-1: unknown, the
	// endpoint slices were not collected).
	ReadyEndpoints int32 `json:"readyEndpoints"`
}

// AdmissionPolicy is a ValidatingAdmissionPolicy with the actions its bindings
// take.
type AdmissionPolicy struct {
	Name          string   `json:"name"`
	FailurePolicy string   `json:"failurePolicy"`
	Rules         []string `json:"rules,omitempty"`
	ParamKind     string   `json:"paramKind,omitempty"`
	// Bindings are its ValidatingAdmissionPolicyBindings: "<name>: Deny,Audit".
	Bindings []string `json:"bindings,omitempty"`
}

// ServiceEndpoints is the ready endpoint count of a service a webhook calls.
type ServiceEndpoints struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Ready     int32  `json:"ready"`
}

// CertificateSecret is a certificate Secret's validity, read from its metadata
// only (library-go certrotation's auth.openshift.io/certificate-not-before,
// -not-after and -issuer annotations). The Secret's data is never requested.
type CertificateSecret struct {
	Namespace string    `json:"namespace"`
	Name      string    `json:"name"`
	NotBefore time.Time `json:"notBefore,omitzero"`
	NotAfter  time.Time `json:"notAfter"`
	Issuer    string    `json:"issuer,omitempty"`
}

// CloudCredential is cloudcredentials.operator.openshift.io/cluster: the
// credentials mode and the admin's upgradeable-to promise.
type CloudCredential struct {
	UID string `json:"uid,omitempty"`
	// Mode is spec.credentialsMode ("" is the default, Mint or Passthrough as the
	// platform decides; Manual needs the admin's annotation to update).
	Mode string `json:"mode,omitempty"`
	// UpgradeableTo is the cloudcredential.openshift.io/upgradeable-to annotation.
	UpgradeableTo string `json:"upgradeableTo,omitempty"`
}

// GuardPod is a static-pod operand's guard pod (<operand>-guard-<node>), whose
// readiness the guard PodDisruptionBudget counts.
type GuardPod struct {
	Name  string `json:"name"`
	Node  string `json:"node"`
	Ready bool   `json:"ready"`
}
