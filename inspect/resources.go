package inspect

import (
	"strings"

	"github.com/openshift-recover/recover/internal/openshift"
)

// Resource is a resource type inspect reads.
type Resource struct {
	// Group is the API group, "" for the core group.
	Group string
	// Version is the API version the live source lists.
	Version string
	// Resource is the plural name; Kind the object kind.
	Resource string
	Kind     string
	// Namespaced resources are read per namespace or across namespaces (see
	// WedgeResources and the sources for which).
	Namespaced bool
}

// Key returns "<resource>.<group>", or "<resource>" for the core group.
func (r Resource) Key() string {
	if r.Group == "" {
		return r.Resource
	}
	return r.Resource + "." + r.Group
}

// GroupDir returns the directory name oc adm inspect uses for the group ("core" for "").
func (r Resource) GroupDir() string {
	if r.Group == "" {
		return "core"
	}
	return r.Group
}

// The resource types inspect reads.
var (
	ResClusterVersions        = Resource{Group: "config.openshift.io", Version: "v1", Resource: "clusterversions", Kind: "ClusterVersion"}
	ResClusterOperators       = Resource{Group: "config.openshift.io", Version: "v1", Resource: "clusteroperators", Kind: "ClusterOperator"}
	ResFeatureGates           = Resource{Group: "config.openshift.io", Version: "v1", Resource: "featuregates", Kind: "FeatureGate"}
	ResInfrastructures        = Resource{Group: "config.openshift.io", Version: "v1", Resource: "infrastructures", Kind: "Infrastructure"}
	ResKubeAPIServers         = Resource{Group: "operator.openshift.io", Version: "v1", Resource: "kubeapiservers", Kind: "KubeAPIServer"}
	ResKubeControllerManagers = Resource{Group: "operator.openshift.io", Version: "v1", Resource: "kubecontrollermanagers", Kind: "KubeControllerManager"}
	ResKubeSchedulers         = Resource{Group: "operator.openshift.io", Version: "v1", Resource: "kubeschedulers", Kind: "KubeScheduler"}
	ResEtcds                  = Resource{Group: "operator.openshift.io", Version: "v1", Resource: "etcds", Kind: "Etcd"}
	ResMachineConfigPools     = Resource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigpools", Kind: "MachineConfigPool"}
	ResMachineConfigs         = Resource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigs", Kind: "MachineConfig"}
	ResNodes                  = Resource{Version: "v1", Resource: "nodes", Kind: "Node"}
	ResPods                   = Resource{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true}
	ResDeployments            = Resource{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespaced: true}
)

// The resource types of the wedge facts (formatVersion 1.1).
var (
	ResPodDisruptionBudgets              = Resource{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets", Kind: "PodDisruptionBudget", Namespaced: true}
	ResCertificateSigningRequests        = Resource{Group: "certificates.k8s.io", Version: "v1", Resource: "certificatesigningrequests", Kind: "CertificateSigningRequest"}
	ResMachines                          = Resource{Group: "machine.openshift.io", Version: "v1beta1", Resource: "machines", Kind: "Machine", Namespaced: true}
	ResConfigMaps                        = Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}
	ResAPIRequestCounts                  = Resource{Group: "apiserver.openshift.io", Version: "v1", Resource: "apirequestcounts", Kind: "APIRequestCount"}
	ResValidatingWebhookConfigurations   = Resource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations", Kind: "ValidatingWebhookConfiguration"}
	ResMutatingWebhookConfigurations     = Resource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations", Kind: "MutatingWebhookConfiguration"}
	ResValidatingAdmissionPolicies       = Resource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicies", Kind: "ValidatingAdmissionPolicy"}
	ResValidatingAdmissionPolicyBindings = Resource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicybindings", Kind: "ValidatingAdmissionPolicyBinding"}
	ResEndpointSlices                    = Resource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices", Kind: "EndpointSlice", Namespaced: true}
	ResSecrets                           = Resource{Version: "v1", Resource: "secrets", Kind: "Secret", Namespaced: true}
	ResCloudCredentials                  = Resource{Group: "operator.openshift.io", Version: "v1", Resource: "cloudcredentials", Kind: "CloudCredential"}
)

// ReasonNotNeeded starts the Reason of a resource recorded Collected although it
// was not read: nothing collected needs it (no node drains while a
// PodDisruptionBudget exists, so there are no DrainPods; no webhook calls a
// service, so there are no ServiceEndpoints), and its facts are empty by
// definition. It yields no NotCollected finding.
const ReasonNotNeeded = "not needed: "

// WedgeClusterResources are the cluster-scoped resource types of the wedge facts.
var WedgeClusterResources = []Resource{
	ResCertificateSigningRequests, ResAPIRequestCounts,
	ResValidatingWebhookConfigurations, ResMutatingWebhookConfigurations,
	ResValidatingAdmissionPolicies, ResValidatingAdmissionPolicyBindings,
	ResCloudCredentials,
}

// ResourceIn is a resource type read from one namespace ("" for every namespace,
// or a cluster-scoped type): one provenance record.
type ResourceIn struct {
	Resource  Resource
	Namespace string
}

// Key returns the record key, "<resource>[/<namespace>]".
func (r ResourceIn) Key() string {
	return ResourceStatus{Resource: r.Resource.Key(), Namespace: r.Namespace}.Key()
}

// WedgeResources lists every provenance record of the wedge facts (formatVersion
// 1.1), in a fixed order: PodDisruptionBudgets and the pods of drains across all
// namespaces, Machines of openshift-machine-api, the admin-gates and admin-acks
// ConfigMaps' namespaces, EndpointSlices across namespaces, the Secrets (metadata)
// of each signer namespace, and the cluster-scoped types.
func WedgeResources() []ResourceIn {
	out := []ResourceIn{
		{ResPodDisruptionBudgets, ""},
		{ResPods, ""},
		{ResMachines, openshift.MachineAPINamespace},
		{ResConfigMaps, openshift.AdminGatesNamespace},
		{ResConfigMaps, openshift.AdminAcksNamespace},
		{ResEndpointSlices, ""},
	}
	for _, ns := range openshift.SignerNamespaces {
		out = append(out, ResourceIn{ResSecrets, ns})
	}
	for _, r := range WedgeClusterResources {
		out = append(out, ResourceIn{r, ""})
	}
	return out
}

// StaticPodComponent describes one static-pod operator and where its operand runs.
type StaticPodComponent struct {
	Resource Resource
	// Component is the operand name; ClusterOperator the ClusterOperator reporting it.
	Component       string
	ClusterOperator string
	// Namespace is the operand namespace holding the mirror and installer pods.
	Namespace string
	// PodPrefix is the static pod's name before "-<node>".
	PodPrefix string
	// Container is the operand container in the static pod.
	Container string
	// OperatorNamespace and OperatorDeployment locate the operator, whose env IMAGE
	// is the operand image and OPERAND_IMAGE_VERSION its version.
	OperatorNamespace  string
	OperatorDeployment string
}

// StaticPodComponents are the static-pod operators inspect verifies, in rollout
// order (library-go staticpod controllers; names from the operators' manifests).
var StaticPodComponents = []StaticPodComponent{
	{Resource: ResEtcds, Component: "etcd", ClusterOperator: "etcd", Namespace: "openshift-etcd", PodPrefix: "etcd", Container: "etcd",
		OperatorNamespace: "openshift-etcd-operator", OperatorDeployment: "etcd-operator"},
	{Resource: ResKubeAPIServers, Component: openshift.KubeAPIServer, ClusterOperator: openshift.KubeAPIServer, Namespace: "openshift-kube-apiserver", PodPrefix: "kube-apiserver", Container: "kube-apiserver",
		OperatorNamespace: "openshift-kube-apiserver-operator", OperatorDeployment: "kube-apiserver-operator"},
	{Resource: ResKubeControllerManagers, Component: "kube-controller-manager", ClusterOperator: "kube-controller-manager", Namespace: "openshift-kube-controller-manager", PodPrefix: "kube-controller-manager", Container: "kube-controller-manager",
		OperatorNamespace: "openshift-kube-controller-manager-operator", OperatorDeployment: "kube-controller-manager-operator"},
	{Resource: ResKubeSchedulers, Component: "kube-scheduler", ClusterOperator: "kube-scheduler", Namespace: "openshift-kube-scheduler", PodPrefix: "openshift-kube-scheduler", Container: "kube-scheduler",
		OperatorNamespace: "openshift-kube-scheduler-operator", OperatorDeployment: "openshift-kube-scheduler-operator"},
}

// StaticPodComponentFor returns the component whose operand namespace or resource
// is key, or nil.
func StaticPodComponentFor(key string) *StaticPodComponent {
	for i := range StaticPodComponents {
		c := &StaticPodComponents[i]
		if c.Namespace == key || c.Resource.Resource == key || c.Component == key {
			return c
		}
	}
	return nil
}

// ClusterResources are the cluster-scoped resource types inspect reads for the
// founding incidents (formatVersion 1.0); the wedge facts' are
// WedgeClusterResources.
var ClusterResources = []Resource{
	ResClusterVersions, ResClusterOperators, ResFeatureGates, ResInfrastructures,
	ResEtcds, ResKubeAPIServers, ResKubeControllerManagers, ResKubeSchedulers,
	ResMachineConfigPools, ResMachineConfigs, ResNodes,
}

// versionEnv are the env names whose literal values a snapshot keeps.
var versionEnv = map[string]bool{
	"RELEASE_VERSION":        true,
	"OPERATOR_IMAGE_VERSION": true,
	"OPERAND_IMAGE_VERSION":  true,
	"OPERATOR_VERSION":       true,
	"IMAGE":                  true,
	"OPERATOR_IMAGE":         true,
	"CLUSTER_PROFILE":        true,
	"EXCLUDE_MANIFESTS":      true,
}

// releaseVersionEnv are the env names, in preference order, that carry the release
// version an operator Deployment runs (substituted by `oc adm release new`).
var releaseVersionEnv = []string{"RELEASE_VERSION", "OPERATOR_IMAGE_VERSION", "OPERATOR_VERSION"}

// isOpenShiftNamespace reports whether ns is one of the platform's namespaces.
func isOpenShiftNamespace(ns string) bool {
	return strings.HasPrefix(ns, "openshift-") || ns == "openshift"
}
