package inspect

import "time"

// Finding is one contradiction or risk Analyze found in a snapshot. Codes are
// stable: scripts may match on them; docs/findings.md documents each one with what
// it means and what to do.
type Finding struct {
	// Code is one of the Code* constants.
	Code string `json:"code"`
	// Severity is SeverityError, SeverityWarning or SeverityInfo.
	Severity string `json:"severity"`
	// Subject is the object the finding is about, "<kind>/<name>" (e.g.
	// "clusterversion/version", "node/master-0", "kubeapiserver/cluster").
	Subject string `json:"subject"`
	// Message is one human sentence or two: what is wrong and what follows.
	Message string `json:"message"`
	// Evidence are the facts the finding rests on: claims, reality and rules.
	Evidence []Evidence `json:"evidence,omitempty"`
	// Details carries machine-readable values, e.g. "cvoMode": "Reconciling" on
	// UpdateClaimedCompleteButMixed, "node": "master-2" on static-pod findings.
	Details map[string]string `json:"details,omitempty"`
	// Class is ClassBlocks when the finding holds the update (or a recovery) back,
	// ClassInforms when it is context (formatVersion 1.1).
	Class string `json:"class,omitempty"`
}

// The finding classes.
const (
	// ClassBlocks: this holds the update back; it must be resolved for the update
	// to progress.
	ClassBlocks = "blocks-update"
	// ClassInforms: something to know; the update can progress with it.
	ClassInforms = "informs"
)

// Evidence is one fact behind a finding.
type Evidence struct {
	// Kind is EvidenceClaim (what a status reports), EvidenceReality (what runs) or
	// EvidenceRule (the policy the facts were measured against).
	Kind string `json:"kind"`
	Text string `json:"text"`
	// Source names where the fact was read, e.g.
	// "clusteroperator/etcd status.versions" or "pod openshift-kube-apiserver/kube-apiserver-master-2";
	// for a log line, "<file>:<line>".
	Source string `json:"source,omitempty"`
	// Time is when the fact was written, for a log line (formatVersion 1.2).
	Time time.Time `json:"time,omitzero"`
}

// The evidence kinds.
const (
	EvidenceClaim   = "claim"
	EvidenceReality = "reality"
	EvidenceRule    = "rule"
)

// The severities, most severe first.
const (
	// SeverityError: the cluster is in a state a recovery must fix, or an update
	// would make worse.
	SeverityError = "error"
	// SeverityWarning: something an operator should know and probably act on.
	SeverityWarning = "warning"
	// SeverityInfo: context (an update in progress, a pool still rolling out).
	SeverityInfo = "info"
)

// severityRank orders severities for sorting.
func severityRank(s string) int {
	switch s {
	case SeverityError:
		return 0
	case SeverityWarning:
		return 1
	default:
		return 2
	}
}

// The finding codes. Every one is documented in docs/findings.md; never rename one.
const (
	// CodeUpdateClaimedCompleteButMixed: ClusterVersion history (or its conditions)
	// says the desired release is reached while operators, static pods or
	// control-plane nodes are not all at it (the first incident's signature).
	CodeUpdateClaimedCompleteButMixed = "UpdateClaimedCompleteButMixed"
	// CodeUpdateInProgress: history[0] is Partial: an update is under way (or stuck).
	CodeUpdateInProgress = "UpdateInProgress"
	// CodeClusterVersionFailing: ClusterVersion Failing=True.
	CodeClusterVersionFailing = "ClusterVersionFailing"
	// CodeMixedOperatorVersions: ClusterOperators report different release versions.
	CodeMixedOperatorVersions = "MixedOperatorVersions"
	// CodeOperatorVersionUnverified: a ClusterOperator claims an operator version
	// its running operator Deployment does not carry.
	CodeOperatorVersionUnverified = "OperatorVersionUnverified"
	// CodeKubeletNewerThanAPIServer: a node's kubelet is a newer minor than the
	// oldest running kube-apiserver.
	CodeKubeletNewerThanAPIServer = "KubeletNewerThanAPIServer"
	// CodeKubeletSkewTooLarge: a node's kubelet is further behind the oldest running
	// kube-apiserver than OpenShift's or upstream's skew policy allows.
	CodeKubeletSkewTooLarge = "KubeletSkewTooLarge"
	// CodeStaticPodRevisionMismatch: an operator's nodeStatuses claims revision N on a
	// node whose mirror pod carries another revision.
	CodeStaticPodRevisionMismatch = "StaticPodRevisionMismatch"
	// CodeStaticPodMissing: an operator's nodeStatuses lists a node where no mirror
	// pod of the component was found.
	CodeStaticPodMissing = "StaticPodMissing"
	// CodeInstallerSucceededWithoutRevision: an installer pod for revision N reports
	// Succeeded but the node's mirror pod never reached N (the second incident).
	CodeInstallerSucceededWithoutRevision = "InstallerSucceededWithoutRevision"
	// CodeOperatorDegraded: a ClusterOperator is Degraded=True.
	CodeOperatorDegraded = "OperatorDegraded"
	// CodeOperatorUnavailable: a ClusterOperator is Available=False (or Unknown).
	CodeOperatorUnavailable = "OperatorUnavailable"
	// CodeOperatorProgressingStuck: a ClusterOperator has been Progressing=True
	// longer than the API's limit (20 minutes; 90 for machine-config).
	CodeOperatorProgressingStuck = "OperatorProgressingStuck"
	// CodePoolDegraded: a MachineConfigPool is Degraded or has degraded machines.
	CodePoolDegraded = "PoolDegraded"
	// CodePoolPaused: a MachineConfigPool is paused.
	CodePoolPaused = "PoolPaused"
	// CodePoolUpdating: a MachineConfigPool has machines not yet on its configuration.
	CodePoolUpdating = "PoolUpdating"
	// CodeNodeDegraded: the machine-config daemon reports a node Degraded.
	CodeNodeDegraded = "NodeDegraded"
	// CodeNodeNotReady: a node is not Ready.
	CodeNodeNotReady = "NodeNotReady"
	// CodeCVODisabled: the CVO Deployment is scaled to 0 replicas.
	CodeCVODisabled = "CVODisabled"
	// CodeUnmanagedOverrides: ClusterVersion spec.overrides marks components unmanaged.
	CodeUnmanagedOverrides = "UnmanagedOverrides"
	// CodeForcedUpdate: spec.desiredUpdate.force is true.
	CodeForcedUpdate = "ForcedUpdate"
	// CodeUnverifiedUpdate: an update in history was applied without a verified
	// release signature.
	CodeUnverifiedUpdate = "UnverifiedUpdate"
	// CodeNotCollected: a resource type could not be read; facts that depend on it
	// are unknown, not empty.
	CodeNotCollected = "NotCollected"

	// The wedge codes (formatVersion 1.1; ../shared/domain/update-wedges.md W1-W17).

	// CodeDrainBlockedByPDB: nodes cannot drain because a PodDisruptionBudget
	// allows no disruption and guards pods on them (W1).
	CodeDrainBlockedByPDB = "DrainBlockedByPDB"
	// CodeGuardPDBBlocksDrain: a control-plane guard PDB (kube-apiserver, etcd,
	// kube-controller-manager, kube-scheduler) blocks a master's drain because a
	// member on another node is not ready; it is never relaxed (W2).
	CodeGuardPDBBlocksDrain = "GuardPDBBlocksDrain"
	// CodeCSRPending: certificate signing requests of a node that is NotReady or
	// new wait for approval (W13).
	CodeCSRPending = "CSRPending"
	// CodeCertificateExpiry: a signer certificate is expired or expires soon (W11, W13).
	CodeCertificateExpiry = "CertificateExpiry"
	// CodeUpgradeableFalse: ClusterVersion or a ClusterOperator says
	// Upgradeable=False: minor updates are blocked until its reason is resolved (W10).
	CodeUpgradeableFalse = "UpgradeableFalse"
	// CodeAdminAckRequired: an admin gate applies to the next minor and the admin
	// has not acknowledged it in openshift-config/admin-acks (W10).
	CodeAdminAckRequired = "AdminAckRequired"
	// CodeRemovedAPIInUse: clients still call an API the next release removes (W10).
	CodeRemovedAPIInUse = "RemovedAPIInUse"
	// CodeReleaseNotAccepted: ClusterVersion ReleaseAccepted=False: the CVO could
	// not retrieve, verify or precondition-check the target release (W9).
	CodeReleaseNotAccepted = "ReleaseNotAccepted"
	// CodeCVOStuckOnManifest: the CVO cannot apply one manifest of the release
	// ("N of M"), with the object and its cause (W8).
	CodeCVOStuckOnManifest = "CVOStuckOnManifest"
	// CodeWebhookUnavailable: an admission webhook whose failure policy is Fail
	// calls a service without ready endpoints, so the writes it intercepts fail
	// (W1, W8).
	CodeWebhookUnavailable = "WebhookUnavailable"
	// CodeConditionalRiskOnTarget: the release the cluster updates to carries a
	// conditional-update risk that applies to it (W14).
	CodeConditionalRiskOnTarget = "ConditionalRiskOnTarget"
	// CodeStaticPodRolloutStuck: a static-pod operator's revision keeps failing to
	// install on a node (nodeStatuses lastFailedRevision, lastFailedCount) (W7).
	CodeStaticPodRolloutStuck = "StaticPodRolloutStuck"
	// CodeCompletedWithPoolsBehind: the update is Completed while worker pools
	// still roll out, are degraded or are paused with machines behind (W12).
	CodeCompletedWithPoolsBehind = "CompletedWithPoolsBehind"
	// CodePreviousUpdateIncomplete: the update before the current one never
	// completed (history holds a Partial entry below the newest).
	CodePreviousUpdateIncomplete = "PreviousUpdateIncomplete"
	// CodeUpdatePreflight: spec.desiredUpdate asks for a Preflight of a target
	// (the 2026 update API): what the CVO reported for it, the risks that apply
	// and are not accepted first.
	CodeUpdatePreflight = "UpdatePreflight"

	// The log codes (formatVersion 1.2; analyze_logs.go): what the components'
	// own logs prove.

	// CodeCVOAbandonedUpdate: the CVO's log shows an Updating sync whose work was
	// cancelled or timed out, followed by a Reconciling sync of the same payload
	// and generation (BZ1838497, the first incident).
	CodeCVOAbandonedUpdate = "CVOAbandonedUpdate"
	// CodeInstallerInterrupted: an installer pod reports Succeeded but its own log
	// ends before it wrote the static pod manifest (the second incident).
	CodeInstallerInterrupted = "InstallerInterrupted"
	// CodeDrainBlockedByUnseenPDB: the machine-config daemon's or controller's log
	// shows evictions a PodDisruptionBudget refuses in a namespace whose budgets
	// the snapshot does not hold.
	CodeDrainBlockedByUnseenPDB = "DrainBlockedByUnseenPDB"
	// CodeCVORetryingManifest: the CVO's log shows it failing to apply one
	// manifest again and again, and no ClusterVersion condition says so.
	CodeCVORetryingManifest = "CVORetryingManifest"
	// CodeNodeDegradedInLog: a machine-config daemon logged why it marked its node
	// Degraded, and the node no longer carries that reason.
	CodeNodeDegradedInLog = "NodeDegradedInLog"
	// CodeCSRNotAuthorizedInLog: the machine approver logged why it did not
	// approve a CSR that is no longer pending.
	CodeCSRNotAuthorizedInLog = "CSRNotAuthorizedInLog"
)

// Codes lists every finding code, in documentation order.
var Codes = []string{
	CodeUpdateClaimedCompleteButMixed,
	CodeUpdateInProgress,
	CodeClusterVersionFailing,
	CodeMixedOperatorVersions,
	CodeOperatorVersionUnverified,
	CodeKubeletNewerThanAPIServer,
	CodeKubeletSkewTooLarge,
	CodeStaticPodRevisionMismatch,
	CodeStaticPodMissing,
	CodeInstallerSucceededWithoutRevision,
	CodeOperatorDegraded,
	CodeOperatorUnavailable,
	CodeOperatorProgressingStuck,
	CodePoolDegraded,
	CodePoolPaused,
	CodePoolUpdating,
	CodeNodeDegraded,
	CodeNodeNotReady,
	CodeCVODisabled,
	CodeUnmanagedOverrides,
	CodeForcedUpdate,
	CodeUnverifiedUpdate,
	CodeNotCollected,
	CodeDrainBlockedByPDB,
	CodeGuardPDBBlocksDrain,
	CodeCSRPending,
	CodeCertificateExpiry,
	CodeUpgradeableFalse,
	CodeAdminAckRequired,
	CodeRemovedAPIInUse,
	CodeReleaseNotAccepted,
	CodeCVOStuckOnManifest,
	CodeWebhookUnavailable,
	CodeConditionalRiskOnTarget,
	CodeStaticPodRolloutStuck,
	CodeCompletedWithPoolsBehind,
	CodePreviousUpdateIncomplete,
	CodeUpdatePreflight,
	CodeCVOAbandonedUpdate,
	CodeInstallerInterrupted,
	CodeDrainBlockedByUnseenPDB,
	CodeCVORetryingManifest,
	CodeNodeDegradedInLog,
	CodeCSRNotAuthorizedInLog,
}

// Wedge is one line of the answer to "why is this cluster stuck": a cause, the
// findings that show it, and the command that comes next. Wedges are ranked by
// what blocks progress first (Rank 1 first).
type Wedge struct {
	Rank int `json:"rank"`
	// Code is the finding code of the cause; Class is ClassBlocks or ClassInforms.
	Code  string `json:"code"`
	Class string `json:"class"`
	// Summary is one sentence: what holds the cluster and where.
	Summary string `json:"summary"`
	// Subjects are the subjects of the findings it stands for.
	Subjects []string `json:"subjects"`
	// Next is the command to run next (a recover or oc command line).
	Next string `json:"next"`
	// Timeline are the IDs of the timeline entries that prove it, oldest first
	// (formatVersion 1.2).
	Timeline []string `json:"timeline,omitempty"`

	// findings are its findings' keys, "<code> <subject>", for linking the
	// timeline.
	findings []string
}

// FindingsWithCode returns the findings with the given code.
func (s *Snapshot) FindingsWithCode(code string) []Finding {
	var out []Finding
	for _, f := range s.Findings {
		if f.Code == code {
			out = append(out, f)
		}
	}
	return out
}
