package openshift

import "strings"

// The facts of the update wedges beyond manifest disorder, each checked in its
// source (research notes: docs/wedge-sources.md).

// Machine-config daemon node annotations (machine-config-operator
// pkg/daemon/constants/constants.go). desiredDrain is written by the daemon
// ("drain-<rendered config>" or "uncordon-<rendered config>"), lastAppliedDrain by
// the machine-config-controller's drain controller once it acted; they are equal
// when no drain is under way.
const (
	AnnotationCurrentConfig    = "machineconfiguration.openshift.io/currentConfig"
	AnnotationDesiredConfig    = "machineconfiguration.openshift.io/desiredConfig"
	AnnotationMCDState         = "machineconfiguration.openshift.io/state"
	AnnotationMCDReason        = "machineconfiguration.openshift.io/reason"
	AnnotationDesiredDrain     = "machineconfiguration.openshift.io/desiredDrain"
	AnnotationLastAppliedDrain = "machineconfiguration.openshift.io/lastAppliedDrain"
	// AnnotationReleaseImageVersion is on rendered MachineConfigs (4.12 and later).
	AnnotationReleaseImageVersion = "machineconfiguration.openshift.io/release-image-version"
	AnnotationControllerVersion   = "machineconfiguration.openshift.io/generated-by-controller-version"
	// DrainPrefix and UncordonPrefix start the drain annotations' values.
	DrainPrefix    = "drain-"
	UncordonPrefix = "uncordon-"
	// MachineConfigDaemonNamespace runs the daemons (and the node-bootstrapper
	// service account kubelets bootstrap with).
	MachineConfigDaemonNamespace = "openshift-machine-config-operator"
)

// The machine-config daemon's Degraded reasons, as the daemon formats them
// (pkg/daemon/drain.go, daemon.go, on_disk_validation.go, update.go,
// pivot/utils/run.go). Matched as substrings to classify a degraded node.
const (
	ReasonDrainTimeout     = "failed to drain node"                        // "failed to drain node: %s after 1 hour. ..."
	ReasonOnDiskState      = "unexpected on-disk state validating against" // content or OS image mismatch
	ReasonContentMismatch  = "content mismatch for file"
	ReasonModeMismatch     = "mode mismatch for file"
	ReasonOSImageMismatch  = "expected target osImageURL"
	ReasonOSUpdateFailed   = "failed to update OS" // "failed to update OS to %s after retries: ..."
	ReasonRPMOstree        = "error running rpm-ostree"
	ReasonCommandFailed    = "failed to run command" // "failed to run command nice (6 tries): ... podman pull"
	ReasonRebootFailed     = "reboot command failed"
	ReasonRenderedNotFound = "not found" // machineconfig... "rendered-..." not found (API NotFound text)
)

// Guard pods and their PodDisruptionBudgets (library-go
// pkg/operator/staticpod/controller/guard: "<prefix>-guard-<node>",
// "<prefix>-guard-pdb"). kube-apiserver, kube-controller-manager and
// kube-scheduler set unhealthyPodEvictionPolicy AlwaysAllow from 4.15; etcd keeps
// IfHealthyBudget on purpose. Before 4.11 etcd had etcd-quorum-guard
// (openshift-machine-config-operator in 4.2-4.5, openshift-etcd in 4.6-4.10).
const (
	GuardPodInfix  = "-guard-"
	GuardPDBSuffix = "-guard-pdb"
	// EtcdQuorumGuard is the pre-4.11 etcd guard PDB's name.
	EtcdQuorumGuard = "etcd-quorum-guard"
)

// GuardPDBName returns the guard PDB of a static pod prefix ("kube-apiserver").
func GuardPDBName(podPrefix string) string { return podPrefix + GuardPDBSuffix }

// GuardPodName returns the guard pod of a static pod prefix on a node.
func GuardPodName(podPrefix, node string) string { return podPrefix + GuardPodInfix + node }

// Certificate signing requests (cluster-machine-approver pkg/controller/csr_check.go).
const (
	SignerKubeletClient  = "kubernetes.io/kube-apiserver-client-kubelet"
	SignerKubeletServing = "kubernetes.io/kubelet-serving"
	// NodeBootstrapper requests a new node's first client certificate.
	NodeBootstrapper = "system:serviceaccount:openshift-machine-config-operator:node-bootstrapper"
	// NodeUserPrefix starts a kubelet's user name and a node certificate's CN.
	NodeUserPrefix = "system:node:"
	NodesGroup     = "system:nodes"
	// MachineAPINamespace holds the Machines the approver matches CSRs against.
	MachineAPINamespace = "openshift-machine-api"
)

// Admin gates (cluster-version-operator pkg/internal/constants.go, pkg/cvo/upgradeable.go):
// the gates in openshift-config-managed/admin-gates (key -> description) apply
// to updates away from the minor in the key ("ack-4.18-..." blocks 4.18 -> 4.19);
// an ack is admin-acks data[key] == "true".
const (
	AdminGatesNamespace = "openshift-config-managed"
	AdminGatesConfigMap = "admin-gates"
	AdminAcksNamespace  = "openshift-config"
	AdminAcksConfigMap  = "admin-acks"
	// AdminAckGatePattern is the CVO's key pattern (adminAckGateFmt).
	AdminAckGatePattern = `^ack-[4-5][.]([0-9]{1,})-[^-]`
	// ReasonAdminAckRequired is the Upgradeable reason of an unacknowledged gate.
	ReasonAdminAckRequired = "AdminAckRequired"
)

// Certificate rotation annotations (library-go pkg/operator/certrotation/annotations.go),
// RFC 3339 times, on the Secrets that hold signers and certificates.
const (
	AnnotationCertNotAfter  = "auth.openshift.io/certificate-not-after"
	AnnotationCertNotBefore = "auth.openshift.io/certificate-not-before"
	AnnotationCertIssuer    = "auth.openshift.io/certificate-issuer"
)

// SignerNamespaces are the namespaces whose Secrets' metadata inspect lists for
// the signers that matter to an update: kube-apiserver-to-kubelet-signer (365
// days, the CA a paused pool's kubelets miss), kube-control-plane-signer,
// aggregator-client-signer (openshift-kube-apiserver-operator), csr-signer-signer and
// csr-signer (openshift-kube-controller-manager-operator).
var SignerNamespaces = []string{"openshift-kube-apiserver-operator", "openshift-kube-controller-manager-operator"}

// KubeletSigner is the signer whose CA kubelets must trust; a paused pool keeps
// its new bundle from them (runbook MachineConfigControllerPausedPoolKubeletCA).
const KubeletSigner = "kube-apiserver-to-kubelet-signer"

// Cloud credentials (cloud-credential-operator pkg/operator/constants): in Manual
// mode the admin promises the credentials fit the next minor with this annotation
// on cloudcredentials.operator.openshift.io/cluster; without it, Upgradeable=False
// with ReasonMissingUpgradeableAnnotation.
const (
	AnnotationUpgradeableTo            = "cloudcredential.openshift.io/upgradeable-to"
	ReasonMissingUpgradeableAnnotation = "MissingUpgradeableAnnotation"
	CloudCredentialOperator            = "cloud-credential"
	CredentialsModeManual              = "Manual"
)

// Upgradeable=False reasons inspect classifies (cluster-version-operator
// pkg/cvo/upgradeable.go; library-go unsupportedconfigoverridescontroller; KAS-O
// kubelet_version_skew_controller.go; OLM clusteroperator_controller.go). A
// ClusterOperator's reason carries library-go's "<Type>_<Reason>" union.
const (
	ReasonClusterVersionOverrides       = "ClusterVersionOverridesSet"
	ReasonUnsupportedConfigOverrides    = "UnsupportedConfigOverrides"
	ReasonKubeletMinorVersion           = "KubeletMinorVersion"
	ReasonIncompatibleOperators         = "IncompatibleOperatorsInstalled"
	ReasonClusterOperatorsNotUpgradable = "ClusterOperatorsNotUpgradeable"
)

// The static-pod operators' spec field that rolls a new revision when changed.
const FieldForceRedeploymentReason = "forceRedeploymentReason"

// More Upgradeable=False reasons (machine-config-operator pkg/operator/status.go
// sets DegradedPool on its ClusterOperator; cluster-network-operator sets
// OpenShiftSDNConfigured before 4.17, which drops OpenShiftSDN).
const (
	ReasonDegradedPool           = "DegradedPool"
	ReasonOpenShiftSDNConfigured = "OpenShiftSDNConfigured"
)

// ClusterVersion condition types the CVO writes beside the ClusterOperator ones
// (cluster-version-operator pkg/cvo/status.go, pkg/cvo/availableupdates.go).
const (
	ConditionFailing         = "Failing"
	ConditionReleaseAccepted = "ReleaseAccepted"
	// ConditionRecommended is the condition of a status.conditionalUpdates entry.
	ConditionRecommended = "Recommended"
	// ConditionApplies is the condition of a conditional-update risk (status.
	// conditionalUpdateRisks[].conditions, the 2026 update API): whether the
	// risk applies to this cluster.
	ConditionApplies = "Applies"
)

// The ReleaseAccepted=False reasons: the step of loadUpdatedPayload that failed
// (cluster-version-operator pkg/cvo/sync_worker.go; docs/wedge-sources.md §6).
const (
	StepRetrievePayload      = "RetrievePayload"
	StepLoadPayload          = "LoadPayload"
	StepVerifyPayloadVersion = "VerifyPayloadVersion"
	StepPreconditionChecks   = "PreconditionChecks"
)

// The static-pod installer's Degraded reason on the ClusterOperator (library-go
// installer controller: condition NodeInstallerDegraded, reason InstallerPodFailed).
const ReasonNodeInstallerPodFailed = "NodeInstaller_InstallerPodFailed"

// PausedPoolKubeletCARunbook is the runbook of the alert that fires when a paused
// pool keeps a new kube-apiserver-to-kubelet-signer CA bundle from its kubelets.
const PausedPoolKubeletCARunbook = "https://github.com/openshift/runbooks/blob/master/alerts/machine-config-operator/MachineConfigControllerPausedPoolKubeletCA.md"

// Release signatures the CVO reads from the cluster (library-go
// pkg/verify/store/configmap): ConfigMaps in SignaturesNamespace labelled
// LabelVerificationSignatures, whose binaryData keys start with
// SignatureKeyPrefix of the release digest ("sha256-<hex>"), one signature per
// key ("sha256-<hex>-1", as oc adm release mirror writes them).
const (
	SignaturesNamespace         = "openshift-config-managed"
	LabelVerificationSignatures = "release.openshift.io/verification-signatures"
)

// SignatureKeyPrefix is library-go's util.DigestToKeyPrefix(digest, "-"):
// "sha256:<hex>" becomes "sha256-<hex>".
func SignatureKeyPrefix(digest string) string {
	return strings.Replace(digest, ":", "-", 1)
}

// EvictionRefused is the message the Eviction API refuses a pod's eviction
// with (429) while its PodDisruptionBudget allows no disruption (kubernetes
// pkg/registry/core/pod/storage/eviction.go), as the machine-config daemon and
// controller log it.
const EvictionRefused = "Cannot evict pod as it would violate the pod's disruption budget."
