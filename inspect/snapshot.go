package inspect

import (
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
)

// FormatVersion is the snapshot document's format version. A minor bump only adds
// fields (readers ignore unknown ones); a major bump breaks, and ReadSnapshot refuses
// a major it does not know.
const FormatVersion = "1.2"

// Snapshot is what a Source read from one cluster at one time: the claims (status
// fields) beside the reality (what runs), with provenance and findings.
type Snapshot struct {
	// FormatVersion is FormatVersion when the snapshot was written.
	FormatVersion string `json:"formatVersion"`
	// Source says which source produced the snapshot, from where and when.
	Source SourceInfo `json:"source"`
	// Resources records, for every resource type inspect reads, whether it was
	// collected, from where, when, and if not, why.
	Resources []ResourceStatus `json:"resources"`

	// ClusterVersion is ClusterVersion/version; nil when it was not collected.
	ClusterVersion *ClusterVersion `json:"clusterVersion,omitempty"`
	// CVO is the Deployment openshift-cluster-version/cluster-version-operator.
	CVO *Deployment `json:"cvo,omitempty"`
	// ClusterOperators are sorted by name.
	ClusterOperators []ClusterOperator `json:"clusterOperators"`
	// StaticPodOperators are the operator.openshift.io static-pod operators
	// (kubeapiservers, kubecontrollermanagers, kubeschedulers, etcds) with the
	// mirror and installer pods found in their operand namespaces.
	StaticPodOperators []StaticPodOperator `json:"staticPodOperators"`
	// MachineConfigPools are sorted by name.
	MachineConfigPools []MachineConfigPool `json:"machineConfigPools"`
	// MachineConfigs are the rendered MachineConfigs (metadata only).
	MachineConfigs []MachineConfig `json:"machineConfigs,omitempty"`
	// Nodes are lean node records, sorted by name.
	Nodes []Node `json:"nodes"`
	// OperatorDeployments are the Deployments in openshift-* namespaces whose
	// containers declare a release or operand version in their env (the operators),
	// sorted by namespace and name. The CVO is in CVO, not here.
	OperatorDeployments []Deployment `json:"operatorDeployments,omitempty"`
	// FeatureGate is FeatureGate/cluster.
	FeatureGate *FeatureGate `json:"featureGate,omitempty"`
	// Infrastructure is Infrastructure/cluster.
	Infrastructure *Infrastructure `json:"infrastructure,omitempty"`

	// The wedge facts (formatVersion 1.1 additions; wedgefacts.go).

	// PodDisruptionBudgets are every namespace's PDBs, sorted by namespace and name.
	PodDisruptionBudgets []PodDisruptionBudget `json:"podDisruptionBudgets,omitempty"`
	// DrainPods are the PDB-guarded pods on nodes that drain, are cordoned or are
	// degraded, sorted by node, namespace and name.
	DrainPods []DrainPod `json:"drainPods,omitempty"`
	// CertificateSigningRequests are the CSRs not yet approved or denied, sorted by name.
	CertificateSigningRequests []CertificateSigningRequest `json:"certificateSigningRequests,omitempty"`
	// Machines are the machine-api Machines, sorted by namespace and name.
	Machines []Machine `json:"machines,omitempty"`
	// AdminGates are the admin-gates and admin-acks ConfigMaps' data.
	AdminGates *AdminGates `json:"adminGates,omitempty"`
	// APIRequestCounts are the APIs a coming release removes, with their request
	// counts, sorted by name.
	APIRequestCounts []APIRequestCount `json:"apiRequestCounts,omitempty"`
	// Webhooks are the admission webhooks, sorted by kind, configuration and name.
	Webhooks []Webhook `json:"webhooks,omitempty"`
	// AdmissionPolicies are the ValidatingAdmissionPolicies, sorted by name.
	AdmissionPolicies []AdmissionPolicy `json:"admissionPolicies,omitempty"`
	// ServiceEndpoints are the ready endpoints of the services webhooks call.
	ServiceEndpoints []ServiceEndpoints `json:"serviceEndpoints,omitempty"`
	// Certificates are the signer certificates' validity (Secret metadata only).
	Certificates []CertificateSecret `json:"certificates,omitempty"`
	// CloudCredential is cloudcredentials.operator.openshift.io/cluster.
	CloudCredential *CloudCredential `json:"cloudCredential,omitempty"`
	// OLMOperators are the installed operators' CSVs that declare
	// olm.maxOpenShiftVersion, sorted by namespace and name (issue 33; read by
	// the staged planner).
	OLMOperators []OLMOperator `json:"olmOperators,omitempty"`

	// Logs are what the components' own logs say (formatVersion 1.2;
	// logevidence.go): where they were read and the lines that matter.
	Logs *LogEvidence `json:"logs,omitempty"`

	// Summary is the claim-versus-reality view derived from the facts above
	// (recomputed by Refresh).
	Summary *Summary `json:"summary,omitempty"`
	// Wedges say why the cluster is stuck, most blocking first: one line per cause,
	// each pointing at its findings and the next command (formatVersion 1.1;
	// recomputed by Refresh).
	Wedges []Wedge `json:"wedges,omitempty"`
	// Findings are Analyze's result, sorted by severity, code and subject
	// (recomputed by Refresh).
	Findings []Finding `json:"findings"`
	// Timeline is the update's history, oldest first: what happened and when,
	// each entry with its source (formatVersion 1.2; recomputed by Refresh).
	Timeline *Timeline `json:"timeline,omitempty"`
}

// SourceKind names the kind of source a snapshot came from.
type SourceKind string

// The source kinds.
const (
	SourceLive       SourceKind = "live"
	SourceMustGather SourceKind = "must-gather"
	SourceInsights   SourceKind = "insights"
	SourceDump       SourceKind = "dump"
)

// SourceInfo describes where and when a snapshot was collected.
type SourceInfo struct {
	Kind SourceKind `json:"kind"`
	// Location is the API server URL or the path that was read.
	Location string `json:"location"`
	// CollectedAt is when the state was observed: the clock at the end of a live
	// collection, a must-gather's timestamp file, or (when nothing better exists)
	// the newest timestamp found in the data. See CollectedAtFrom.
	CollectedAt time.Time `json:"collectedAt"`
	// CollectedAtFrom says how CollectedAt was determined: "clock",
	// "timestamp file <path>", "archive file times" or "newest timestamp in the data".
	CollectedAtFrom string `json:"collectedAtFrom"`
}

// CollectionState says whether a resource type could be read.
type CollectionState string

// The collection states. Everything but Collected yields a NotCollected finding.
const (
	// Collected: read completely (possibly zero objects).
	Collected CollectionState = "Collected"
	// Forbidden: the API server refused the request (RBAC).
	Forbidden CollectionState = "Forbidden"
	// NotFound: the cluster does not serve the resource type (or the namespace).
	NotFound CollectionState = "NotFound"
	// Absent: the offline source does not contain it (a partial must-gather, or an
	// Insights archive, which never gathers pods or Deployments).
	Absent CollectionState = "Absent"
	// Error: reading failed for another reason (see Reason).
	Error CollectionState = "Error"
)

// ResourceStatus is the provenance of one resource type in a snapshot.
type ResourceStatus struct {
	// Resource is "<resource>.<group>" ("nodes" for the core group), e.g.
	// "clusterversions.config.openshift.io".
	Resource string `json:"resource"`
	// Namespace is set for resources read from one namespace.
	Namespace string          `json:"namespace,omitempty"`
	State     CollectionState `json:"state"`
	// Reason explains a state other than Collected.
	Reason string `json:"reason,omitempty"`
	// From is where the objects were read: the API path, or the files and
	// directories of an offline source.
	From []string `json:"from,omitempty"`
	// CollectedAt is when the resource was read (live) or the source's time.
	CollectedAt time.Time `json:"collectedAt"`
	// Count is how many objects were kept.
	Count int `json:"count"`
	// Requests is how many API requests (pages) the resource took, live only.
	Requests int `json:"requests,omitempty"`
}

// Key returns the resource key with its namespace, "pods.core/openshift-etcd" style
// ("<resource>[/<namespace>]").
func (r ResourceStatus) Key() string {
	if r.Namespace == "" {
		return r.Resource
	}
	return r.Resource + "/" + r.Namespace
}

// ClusterVersion is ClusterVersion/version's spec and status, as the API has them.
type ClusterVersion struct {
	// UID identifies the object a remedy may patch (formatVersion 1.1).
	UID    string                        `json:"uid,omitempty"`
	Spec   configv1.ClusterVersionSpec   `json:"spec"`
	Status configv1.ClusterVersionStatus `json:"status"`
}

// Deployment is the part of an apps/v1 Deployment that tells which release it runs
// and whether it has rolled out.
type Deployment struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Replicas is spec.replicas; nil means the API default (1).
	Replicas           *int32 `json:"replicas"`
	ReadyReplicas      int32  `json:"readyReplicas"`
	UpdatedReplicas    int32  `json:"updatedReplicas"`
	AvailableReplicas  int32  `json:"availableReplicas"`
	Generation         int64  `json:"generation"`
	ObservedGeneration int64  `json:"observedGeneration"`
	// Containers are the pod template's containers.
	Containers []Container `json:"containers"`
	// Annotations holds only release-related annotations.
	Annotations map[string]string `json:"annotations,omitempty"`
}

// Container is one container of a pod template: its image, the args that matter
// (the CVO's --release-image) and the literal env values that name versions,
// images or manifest inclusion (RELEASE_VERSION, OPERATOR_IMAGE_VERSION,
// OPERAND_IMAGE_VERSION, IMAGE, OPERATOR_IMAGE, CLUSTER_PROFILE, EXCLUDE_MANIFESTS, ...).
type Container struct {
	Name  string            `json:"name"`
	Image string            `json:"image"`
	Args  []string          `json:"args,omitempty"`
	Env   map[string]string `json:"env,omitempty"`
}

// ClusterOperator is a ClusterOperator's claims: the versions it reports, its
// conditions and its related objects.
type ClusterOperator struct {
	Name string `json:"name"`
	// Annotations holds only the include./exclude.release.openshift.io annotations.
	Annotations    map[string]string                         `json:"annotations,omitempty"`
	Versions       []configv1.OperandVersion                 `json:"versions"`
	Conditions     []configv1.ClusterOperatorStatusCondition `json:"conditions"`
	RelatedObjects []configv1.ObjectReference                `json:"relatedObjects,omitempty"`
}

// StaticPodOperator is one operator.openshift.io static-pod operator (a singleton
// named cluster) with the pods that really run in its operand namespace.
type StaticPodOperator struct {
	// Resource is the plural resource, e.g. "kubeapiservers".
	Resource string `json:"resource"`
	// Component is the operand, e.g. "kube-apiserver"; ClusterOperator names the
	// ClusterOperator that reports it; Namespace is the operand namespace.
	Component       string `json:"component"`
	ClusterOperator string `json:"clusterOperator"`
	Namespace       string `json:"namespace"`
	// Present is false when the resource type was collected but Name "cluster" did
	// not exist (as on 4.3, which had no etcd operator).
	Present bool `json:"present"`
	// UID identifies <resource>/cluster, which a forced redeployment patches
	// (formatVersion 1.1).
	UID                     string                         `json:"uid,omitempty"`
	ManagementState         string                         `json:"managementState,omitempty"`
	LatestAvailableRevision int32                          `json:"latestAvailableRevision"`
	NodeStatuses            []operatorv1.NodeStatus        `json:"nodeStatuses,omitempty"`
	Conditions              []operatorv1.OperatorCondition `json:"conditions,omitempty"`
	// ForceRedeploymentReason is spec.forceRedeploymentReason: a new value makes
	// the operator roll a new revision to every node (formatVersion 1.1).
	ForceRedeploymentReason string `json:"forceRedeploymentReason,omitempty"`
	// MirrorPods are the static pods' mirror pods, one per node where it runs.
	MirrorPods []StaticPod `json:"mirrorPods,omitempty"`
	// Installers are the installer pods (installer-<revision>-[retry-<n>-]<node>).
	Installers []InstallerPod `json:"installers,omitempty"`
	// Guards are the guard pods (<operand>-guard-<node>) the guard PDB counts
	// (formatVersion 1.1).
	Guards []GuardPod `json:"guards,omitempty"`
}

// StaticPod is a mirror pod of a static pod: the revision it carries and what it runs.
type StaticPod struct {
	Name string `json:"name"`
	Node string `json:"node"`
	// Revision is the pod's "revision" label; 0 when it has none.
	Revision int32 `json:"revision"`
	// Image is the operand container's image (the container named like the
	// component, else the first).
	Image string `json:"image"`
	Phase string `json:"phase,omitempty"`
	Ready bool   `json:"ready"`
}

// InstallerPod is a static-pod installer pod: what it claims about its run.
type InstallerPod struct {
	Name     string `json:"name"`
	Node     string `json:"node"`
	Revision int32  `json:"revision"`
	// Retry is the n of installer-<rev>-retry-<n>-<node>; 0 for the first attempt.
	Retry      int                 `json:"retry,omitempty"`
	Phase      string              `json:"phase"`
	Containers []ContainerTerminus `json:"containers,omitempty"`
	// Finished is when its last container terminated, as the kubelet reported
	// (formatVersion 1.2).
	Finished time.Time `json:"finished,omitzero"`
}

// ContainerTerminus is how a container of a finished pod ended, as the kubelet
// reported it.
type ContainerTerminus struct {
	Name string `json:"name"`
	// Terminated is false when the container never reported a terminated state.
	Terminated bool   `json:"terminated"`
	ExitCode   int32  `json:"exitCode"`
	Reason     string `json:"reason,omitempty"`
}

// MachineConfigPool is a pool's configuration, machine counts, pause flag and
// conditions.
type MachineConfigPool struct {
	Name string `json:"name"`
	// Configuration is spec.configuration.name (what the pool should run);
	// StatusConfiguration is status.configuration.name (what it has rolled out).
	Configuration       string `json:"configuration"`
	StatusConfiguration string `json:"statusConfiguration"`
	Paused              bool   `json:"paused"`
	// RequiredForUpgrade is true for pools labelled
	// operator.machineconfiguration.openshift.io/required-for-upgrade (master):
	// the MCO reports its new version only once they rolled out.
	RequiredForUpgrade bool `json:"requiredForUpgrade,omitempty"`
	// NodeSelector is the pool's nodeSelector.matchLabels.
	NodeSelector            map[string]string                   `json:"nodeSelector,omitempty"`
	MachineCount            int32                               `json:"machineCount"`
	UpdatedMachineCount     int32                               `json:"updatedMachineCount"`
	ReadyMachineCount       int32                               `json:"readyMachineCount"`
	UnavailableMachineCount int32                               `json:"unavailableMachineCount"`
	DegradedMachineCount    int32                               `json:"degradedMachineCount"`
	Conditions              []mcfgv1.MachineConfigPoolCondition `json:"conditions,omitempty"`
	// Generation and ObservedGeneration tell whether status has seen the spec
	// (formatVersion 1.1).
	Generation         int64 `json:"generation,omitempty"`
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// UID identifies the pool a remedy may patch.
	UID string `json:"uid,omitempty"`
}

// MachineConfig is a MachineConfig's metadata: which release rendered it.
type MachineConfig struct {
	Name string `json:"name"`
	// ReleaseImageVersion is the machineconfiguration.openshift.io/release-image-version
	// annotation (set on rendered configs since 4.12).
	ReleaseImageVersion string `json:"releaseImageVersion,omitempty"`
	// ControllerVersion is the generated-by-controller-version annotation (an MCO commit).
	ControllerVersion string `json:"controllerVersion,omitempty"`
}

// Node is a lean node record: what a recovery needs to know of a node, without the
// whole object.
type Node struct {
	Name string `json:"name"`
	// Roles are the node-role.kubernetes.io/<role> labels, sorted.
	Roles          []string `json:"roles,omitempty"`
	KubeletVersion string   `json:"kubeletVersion"`
	OSImage        string   `json:"osImage,omitempty"`
	// Ready is the Ready condition's status ("True", "False", "Unknown"), "" if absent.
	Ready         string `json:"ready"`
	Unschedulable bool   `json:"unschedulable,omitempty"`
	// The machine-config daemon's annotations
	// (machineconfiguration.openshift.io/currentConfig, desiredConfig, state, reason).
	CurrentConfig string `json:"currentConfig,omitempty"`
	DesiredConfig string `json:"desiredConfig,omitempty"`
	MCDState      string `json:"mcdState,omitempty"`
	MCDReason     string `json:"mcdReason,omitempty"`
	// DesiredDrain and LastAppliedDrain are the drain annotations
	// (machineconfiguration.openshift.io/desiredDrain, lastAppliedDrain): a drain
	// ("drain-<config>") or uncordon request, and the last one the drain controller
	// completed. They differ while a drain is under way (formatVersion 1.1).
	DesiredDrain     string `json:"desiredDrain,omitempty"`
	LastAppliedDrain string `json:"lastAppliedDrain,omitempty"`
	// ReadyReason and ReadyMessage are the Ready condition's, when it is not True.
	ReadyReason  string `json:"readyReason,omitempty"`
	ReadyMessage string `json:"readyMessage,omitempty"`
	// ReadySince is the Ready condition's lastTransitionTime (formatVersion 1.2).
	ReadySince time.Time `json:"readySince,omitzero"`
	// Addresses are status.addresses, what a kubelet-serving CSR's names must match.
	Addresses []Address `json:"addresses,omitempty"`
	Created   time.Time `json:"created,omitzero"`
}

// FeatureGate is FeatureGate/cluster's feature set and the gates per version.
type FeatureGate struct {
	// FeatureSet is spec.featureSet ("" means Default).
	FeatureSet string `json:"featureSet"`
	// Custom is spec.customNoUpgrade, for the CustomNoUpgrade feature set.
	Custom *configv1.CustomFeatureGates `json:"customNoUpgrade,omitempty"`
	// FeatureGates is status.featureGates: the enabled and disabled gates per version.
	FeatureGates []configv1.FeatureGateDetails `json:"featureGates,omitempty"`
}

// Infrastructure is the part of Infrastructure/cluster that changes what a release
// applies: the platform and the topologies.
type Infrastructure struct {
	InfrastructureName     string `json:"infrastructureName,omitempty"`
	Platform               string `json:"platform,omitempty"`
	ControlPlaneTopology   string `json:"controlPlaneTopology,omitempty"`
	InfrastructureTopology string `json:"infrastructureTopology,omitempty"`
	APIServerURL           string `json:"apiServerURL,omitempty"`
}
