package planfile

import (
	"encoding/json"
	"time"
)

// The plan document's identity. A saved plan is what `recover apply --plan` executes,
// so readers check these before anything else.
const (
	// APIVersion and Kind name the document type.
	APIVersion = "recover.openshift.io/v1alpha1"
	Kind       = "RecoveryPlan"
	// FormatVersion follows Terraform's rule: a minor bump only adds fields (readers
	// ignore unknown ones); a major bump breaks, and readers refuse a major they do
	// not know.
	FormatVersion = "1.3"
)

// Plan is the self-contained, versioned recovery plan: the target, why it was
// chosen, the alternatives and why they were not, and the steps with their gates.
// It embeds every manifest it applies, so apply needs nothing else.
type Plan struct {
	APIVersion    string `json:"apiVersion"`
	Kind          string `json:"kind"`
	FormatVersion string `json:"formatVersion"`
	// CreatedAt is when the plan was made; Generator is the recover version that made it.
	CreatedAt time.Time `json:"createdAt"`
	Generator string    `json:"generator"`

	// Inputs records what the plan was computed from, with digests, so that apply can
	// refuse a plan whose inputs or cluster have changed since.
	Inputs Inputs `json:"inputs"`
	// Cluster summarises the snapshot the plan was made from: the cluster's claims
	// beside the verified reality.
	Cluster ClusterSummary `json:"cluster"`
	// Target is the chosen next-hop release.
	Target Target `json:"target"`
	// Alternatives are the other candidates, best first, each with the rule that
	// rejected or demoted it.
	Alternatives []Candidate `json:"alternatives,omitempty"`
	// Steps are executed in order; each waits for its gate before the next starts.
	Steps []Step `json:"steps"`

	// Skipped are the target payload's components the plan leaves out because the
	// snapshot verifies them at the target already (formatVersion 1.0 addition).
	Skipped []SkippedComponent `json:"skipped,omitempty"`
	// Warnings are what a reviewer must know that no step expresses: a pool the user
	// paused, versions resting on claims only, a payload that declares placeholder
	// versions (formatVersion 1.0 addition).
	Warnings []string `json:"warnings,omitempty"`
	// Invariants name the checks the planner ran on a model of the cluster after
	// every step ("kubelet-skew: ..."); a plan that broke one was never emitted
	// (formatVersion 1.0 addition).
	Invariants []string `json:"invariants,omitempty"`

	// Mode is ModeUpdate (a target release pushed with the CVO disabled, with
	// any remedies first), ModeRemediation (no new release: only remedies and
	// the CVO hand-back) or ModeDriveCVO (formatVersion 1.5: the CVO keeps
	// running and is handed the target); "" in plans before formatVersion 1.1
	// means ModeUpdate.
	Mode string `json:"mode,omitempty"`
	// Remediations are the wedges the plan unblocks, each with the finding it
	// answers and the steps that do it (formatVersion 1.1).
	Remediations []Remediation `json:"remediations,omitempty"`
	// Refused are the remedies the plan does not take, each with why: unsafe
	// (a guard PDB, a CSR nobody vouches for) or an admin's promise not named with
	// --accept (formatVersion 1.1).
	Refused []RefusedRemedy `json:"refused,omitempty"`
	// Outcome is the decision the plan carries out (plan.Decide): its kind
	// (remediation, drive-cvo or replace-cvo), the rule that chose it, why in
	// one sentence, and the findings it read (formatVersion 1.3).
	Outcome *Outcome `json:"outcome,omitempty"`

	// Goal is the release a staged plan (recover plan --to) ends at; Target
	// is then its first stage's (formatVersion 1.4).
	Goal string `json:"goal,omitempty"`
	// GoalReasons say why the goal takes these stages and not fewer
	// (formatVersion 1.4).
	GoalReasons []string `json:"goalReasons,omitempty"`
	// Stages are the hops to Goal, in order; Steps are stage 1's
	// (formatVersion 1.4; stage.go).
	Stages []Stage `json:"stages,omitempty"`
}

// The plan modes.
const (
	ModeUpdate      = "update"
	ModeRemediation = "remediation"
	// ModeDriveCVO is the plan of the drive-cvo outcome: the CVO keeps
	// running; the plan makes the remedies and the admin's promises, hands
	// the CVO the target (set-desired-update, with the risks the admin
	// accepted) and waits for it to take the target and for the control
	// plane to land there. No manifest is pushed and the CVO is never
	// disabled (formatVersion 1.5).
	ModeDriveCVO = "drive-cvo"
)

// FormatVersionDriveCVO is the format of a drive-cvo plan (formatVersion 1.5
// adds mode drive-cvo and desiredUpdate.acceptRisks). Other plans keep their
// format (FormatVersion, FormatVersionStages), so readers of 1.3 and 1.4 read
// them unchanged; a staged plan whose first stage the CVO drives is 1.5.
const FormatVersionDriveCVO = "1.5"

// Remediation is one wedge the plan unblocks.
type Remediation struct {
	// Remedy names what is done (RemedyRelaxPDB, ...); Finding and Subject are the
	// finding it answers.
	Remedy  string `json:"remedy"`
	Finding string `json:"finding"`
	Subject string `json:"subject"`
	// Summary says what the steps do, in one sentence.
	Summary string `json:"summary"`
	// Steps are the IDs of its steps, in order (a temporary change and its revert
	// among them).
	Steps []string `json:"steps"`
	// Accepted is the --accept name that allowed it, for remedies that need one.
	Accepted string `json:"accepted,omitempty"`
}

// RefusedRemedy is a remedy the plan does not take.
type RefusedRemedy struct {
	Remedy  string `json:"remedy"`
	Finding string `json:"finding"`
	Subject string `json:"subject"`
	// Reason is one line: why not, and what to do instead.
	Reason string `json:"reason"`
	// Accept, when set, is the --accept name that would allow it (an admin's
	// promise); empty for remedies recover never takes.
	Accept string `json:"accept,omitempty"`
}

// The remedies (the Remedy of a Remediation or RefusedRemedy, and of its steps).
const (
	// RemedyRelaxPDB: relax a PodDisruptionBudget that holds a drain, wait for the
	// drained nodes to settle, restore the budget exactly (W1).
	RemedyRelaxPDB = "relax-pdb"
	// RemedyGuardPDB: never taken; a guard PDB holds because a control-plane
	// member is not ready (W2).
	RemedyGuardPDB = "guard-pdb"
	// RemedyApproveCSR: approve the pending CSRs a node or machine vouches for (W13).
	RemedyApproveCSR = "approve-csr"
	// RemedyUnpausePool: unpause a pool that blocks the update (W11).
	RemedyUnpausePool = "unpause-pool"
	// RemedyForceRedeployment: roll a static-pod operand's revision again
	// (forceRedeploymentReason) when a node's revision is stuck or falsely
	// claimed (W7, the second incident). Needs --accept force-redeployment:<component>.
	RemedyForceRedeployment = "force-redeployment"
	// RemedyAdminAck: acknowledge an admin gate. Needs --accept admin-ack:<key>.
	RemedyAdminAck = "admin-ack"
	// RemedyRemoveOverrides: remove ClusterVersion spec.overrides. Needs --accept
	// remove-overrides.
	RemedyRemoveOverrides = "remove-overrides"
	// RemedyUpgradeableTo: annotate cloudcredential upgradeable-to once manual
	// credentials match the target. Needs --accept upgradeable-to:<version>.
	RemedyUpgradeableTo = "upgradeable-to"
	// RemedyRetarget: move the update to a fixed z-stream of the minor already
	// under way (W14, W10 with OCPBUGS-42880).
	RemedyRetarget = "retarget"
	// RemedyReleaseSignature: supply the signature of a release the CVO cannot
	// verify, verified offline against the release keyring (W9), never --force.
	RemedyReleaseSignature = "release-signature"
)

// SkippedComponent is a payload component the plan does not touch.
type SkippedComponent struct {
	// Component is the payload component (the file-name component of its manifests,
	// "kube-scheduler-operator").
	Component string `json:"component"`
	// ClusterOperators are the ClusterOperators that verify it at the target.
	ClusterOperators []string `json:"clusterOperators,omitempty"`
	// Manifests is how many of its included manifests the plan leaves out.
	Manifests int `json:"manifests"`
	// Reason says what was verified.
	Reason string `json:"reason"`
}

// Inputs are the plan's inputs and their digests ("sha256:<hex>").
type Inputs struct {
	Snapshot InputRef  `json:"snapshot"`
	Graph    InputRef  `json:"graph"`
	Payload  InputRef  `json:"payload"`
	Policy   *InputRef `json:"policy,omitempty"`
	// GraphData is the cincinnati-graph-data directory, when one was used.
	GraphData *InputRef `json:"graphData,omitempty"`
	Channel   string    `json:"channel,omitempty"`
	// Accepted are the names given with --accept, sorted: conditional-update risk
	// names, and the remedy names of the admin's promises
	// (force-redeployment:<component>, admin-ack:<key>, remove-overrides,
	// upgradeable-to:<major.minor>; formatVersion 1.1).
	Accepted []string `json:"accepted,omitempty"`
	// SignatureVerification says whether the target release's signature was
	// verified, and if not, why not ("skipped: no keyring given").
	SignatureVerification string `json:"signatureVerification,omitempty"`
}

// InputRef names one input: where it came from and the digest of what was read.
type InputRef struct {
	// Source is a path, URL, pull spec or "live:<server>".
	Source string `json:"source"`
	Digest string `json:"digest"`
}

// ClusterSummary is the part of the snapshot a reviewer needs to judge the plan,
// and that apply compares against the live cluster before starting.
type ClusterSummary struct {
	ClusterID string `json:"clusterID,omitempty"`
	// Fingerprint is inspect's digest of the state the plan depends on (versions,
	// revisions, kubelets, pools, CVO replicas); apply recomputes it live.
	Fingerprint string `json:"fingerprint"`
	// ClaimedVersion is ClusterVersion status.desired.version; ClaimedState is
	// history[0].state ("Completed" or "Partial").
	ClaimedVersion string `json:"claimedVersion"`
	ClaimedState   string `json:"claimedState,omitempty"`
	// CVOMode is the mode the CVO would pick if it (re)started: Initializing,
	// Updating or Reconciling.
	CVOMode string `json:"cvoMode,omitempty"`
	// CVOReplicas is the CVO Deployment's replicas when the snapshot was taken.
	CVOReplicas *int32 `json:"cvoReplicas,omitempty"`
	// DesiredUpdate is ClusterVersion spec.desiredUpdate when the snapshot was
	// taken: what rolling the CVO state back restores (formatVersion 1.0 addition).
	DesiredUpdate *DesiredUpdate `json:"desiredUpdate,omitempty"`
	// Components is the verified version of each component, as the planner used it.
	Components []ComponentVersion `json:"components"`
	// Findings are the codes of the findings that shaped the plan.
	Findings []FindingRef `json:"findings,omitempty"`
}

// ComponentVersion is where one component actually is.
type ComponentVersion struct {
	// Name is a ClusterOperator name, "kubelet/<node>", or a static-pod operand.
	Name string `json:"name"`
	// Version is the verified release version; Claimed is what status said, when
	// they differ.
	Version string `json:"version"`
	Claimed string `json:"claimed,omitempty"`
	// Kubernetes is the component's Kubernetes version, where it has one.
	Kubernetes string `json:"kubernetes,omitempty"`
	// Evidence says how the version was verified.
	Evidence string `json:"evidence,omitempty"`
}

// FindingRef is a finding's code, subject and message, as shown in the plan.
type FindingRef struct {
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Subject  string `json:"subject,omitempty"`
	Message  string `json:"message"`
}

// Target is the chosen release.
type Target struct {
	Version string `json:"version"`
	// Image is the release pull spec, by digest.
	Image    string   `json:"image"`
	Channels []string `json:"channels,omitempty"`
	URL      string   `json:"url,omitempty"`
	// Reasons explain the choice, in the order a reviewer should read them.
	Reasons []string `json:"reasons"`
	// Distance is how far the cluster moves: components to move and the size of
	// their moves.
	Distance Distance `json:"distance"`
	// AcceptedRisks are the conditional-edge risks the target needed, each named in
	// --accept.
	AcceptedRisks []Risk `json:"acceptedRisks,omitempty"`
	// Force is true when set-desired-update must set force; ForceReason says why.
	Force       bool   `json:"force,omitempty"`
	ForceReason string `json:"forceReason,omitempty"`
}

// Distance measures a candidate's moves from the verified state.
type Distance struct {
	// Components is how many components must change version.
	Components int `json:"components"`
	// Minor and Patch sum the minor and patch steps over those components.
	Minor int `json:"minor"`
	Patch int `json:"patch"`
}

// Risk is a conditional update risk, as the update service names it.
type Risk struct {
	Name    string `json:"name"`
	URL     string `json:"url,omitempty"`
	Message string `json:"message,omitempty"`
}

// Candidate is a release the planner considered and did not choose.
type Candidate struct {
	Version  string   `json:"version"`
	Image    string   `json:"image,omitempty"`
	Rank     int      `json:"rank"`
	Distance Distance `json:"distance"`
	// Verdict is "rejected" (breaks a rule) or "demoted" (safe, but farther, or
	// needs a risk not accepted).
	Verdict string `json:"verdict"`
	// Rule names the policy rule (e.g. "no-cross-minor-downgrade", "blocked-edge",
	// "kubelet-skew", "unaccepted-risk", "farther") and Reason explains it.
	Rule   string `json:"rule"`
	Reason string `json:"reason"`
	// Risks are the unaccepted risks for Verdict "demoted" with Rule "unaccepted-risk".
	Risks []Risk `json:"risks,omitempty"`
}

// Action is what a step does.
type Action string

// The step actions.
const (
	ActionDisableCVO       Action = "disable-cvo"
	ActionPausePool        Action = "pause-pool"
	ActionApply            Action = "apply"
	ActionDelete           Action = "delete"
	ActionWait             Action = "wait"
	ActionUnpausePool      Action = "unpause-pool"
	ActionSetDesiredUpdate Action = "set-desired-update"
	ActionRestoreCVO       Action = "restore-cvo"

	// The remediation actions (formatVersion 1.1). Each patches one object with
	// Step.Change; the fields it sets are journaled (their pre-image) before.

	// ActionRelaxPDB relaxes a PodDisruptionBudget (temporary: RevertedBy names
	// the revert step).
	ActionRelaxPDB Action = "relax-pdb"
	// ActionRevert restores the fields another step's Change set, exactly, from the
	// pre-image journaled before that change (Step.Reverts names it).
	ActionRevert Action = "revert"
	// ActionApproveCSR approves one certificate signing request (Step.CSR), after
	// checking live that it is still pending and still vouched for.
	ActionApproveCSR Action = "approve-csr"
	// ActionForceRedeployment sets a static-pod operator's
	// spec.forceRedeploymentReason.
	ActionForceRedeployment Action = "force-redeployment"
	// ActionAcknowledgeGate sets an admin gate's key to "true" in
	// openshift-config/admin-acks.
	ActionAcknowledgeGate Action = "acknowledge-admin-gate"
	// ActionRemoveOverrides removes ClusterVersion spec.overrides.
	ActionRemoveOverrides Action = "remove-overrides"
	// ActionAnnotateUpgradeableTo sets cloudcredential.openshift.io/upgradeable-to
	// on cloudcredentials.operator.openshift.io/cluster.
	ActionAnnotateUpgradeableTo Action = "annotate-upgradeable-to"
	// ActionCreateReleaseSignature creates the ConfigMap that carries a
	// release's verified signatures where the CVO reads them (Step.Manifest,
	// create-only; formatVersion 1.2).
	ActionCreateReleaseSignature Action = "create-release-signature"
)

// Step is one unit of work. Exactly the fields its Action needs are set.
type Step struct {
	// ID is stable within the plan ("007-apply-kube-apiserver-operator-deployment")
	// and is what --from-step, --until-step and the journal refer to.
	ID     string `json:"id"`
	Action Action `json:"action"`
	// Reason says why the step is there.
	Reason string `json:"reason"`
	// RunLevel and Component place the step in the CVO's order ("20",
	// "kube-apiserver-operator"); Group is the index of its run-level group: the
	// CVO task-graph stage (payload Order.Locate's stage, 0-based; absent means 0).
	RunLevel  string `json:"runLevel,omitempty"`
	Component string `json:"component,omitempty"`
	Group     int    `json:"group,omitempty"`

	// Manifest is set for apply and delete, and for create-release-signature
	// (the signature ConfigMap).
	Manifest *Manifest `json:"manifest,omitempty"`
	// Pool is set for pause-pool and unpause-pool.
	Pool string `json:"pool,omitempty"`
	// DesiredUpdate is set for set-desired-update.
	DesiredUpdate *DesiredUpdate `json:"desiredUpdate,omitempty"`

	// Remedy names the remedy a remediation step belongs to (RemedyRelaxPDB, ...);
	// Finding is the code of the finding it answers (formatVersion 1.1).
	Remedy  string `json:"remedy,omitempty"`
	Finding string `json:"finding,omitempty"`
	// Change is set for the remediation actions that patch an object (and for
	// unpause-pool when it is a remedy).
	Change *Change `json:"change,omitempty"`
	// CSR is set for approve-csr.
	CSR *CSRApproval `json:"csr,omitempty"`
	// RevertedBy, on a temporary change, is the ID of the revert step that undoes
	// it; Reverts, on a revert step, is the ID of the step it undoes.
	RevertedBy string `json:"revertedBy,omitempty"`
	Reverts    string `json:"reverts,omitempty"`

	// Gate is what must be true before the next step starts; nil means none.
	Gate *Gate `json:"gate,omitempty"`
}

// Manifest is one payload manifest, embedded whole.
type Manifest struct {
	// File is the payload file name and Index the document's position in it.
	File  string `json:"file"`
	Index int    `json:"index"`
	// APIVersion, Kind, Namespace and Name identify the object.
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
	// CreateOnly is release.openshift.io/create-only=true: create if absent, never update.
	CreateOnly bool `json:"createOnly,omitempty"`
	// Object is the rendered object as JSON.
	Object json.RawMessage `json:"object"`
	// Digest is the sha256 of Object, so edits to a saved plan are detected.
	Digest string `json:"digest"`
}

// Change is a JSON merge patch (RFC 7386) of one object. apply journals the
// live values of Fields (the pre-image) before it patches, and a revert step
// writes exactly those values back.
type Change struct {
	Object ObjectRef `json:"object"`
	// UID is the object's UID in the snapshot; apply refuses an object with
	// another UID (deleted and recreated since the plan was made).
	UID string `json:"uid,omitempty"`
	// Patch is the merge patch.
	Patch json.RawMessage `json:"patch"`
	// Fields are the dotted paths the patch sets ("spec.minAvailable",
	// "metadata.annotations.cloudcredential\.openshift\.io/upgradeable-to" is
	// written with the key as one segment: ["metadata","annotations","k"]).
	Fields [][]string `json:"fields"`
	// Before is what the snapshot showed of Fields, for review (the journal's
	// pre-image, read live, is what a revert restores).
	Before json.RawMessage `json:"before,omitempty"`
}

// CSRApproval names one certificate signing request to approve and the rule that
// vouches for it; apply checks live that it still holds.
type CSRApproval struct {
	Name string `json:"name"`
	UID  string `json:"uid,omitempty"`
	// SignerName, Username and CommonName are what the request said when the plan
	// was made; apply refuses a request that says anything else.
	SignerName string `json:"signerName"`
	Username   string `json:"username"`
	CommonName string `json:"commonName"`
	// Node is the node the request is for; VouchedBy says which Node or Machine
	// matches it ("machine openshift-machine-api/worker-3 has address worker-3").
	Node      string `json:"node"`
	VouchedBy string `json:"vouchedBy"`
}

// DesiredUpdate is the ClusterVersion spec.desiredUpdate the plan hands back to the CVO.
type DesiredUpdate struct {
	Version string `json:"version"`
	Image   string `json:"image"`
	Force   bool   `json:"force,omitempty"`
	// AcceptRisks are the conditional-update risk names the admin accepted
	// (--accept) that the target needs: apply sets them in
	// spec.desiredUpdate.acceptRisks (openshift/api config/v1 DesiredUpdate,
	// feature gate ClusterUpdateAcceptRisks), beside those the cluster already
	// accepts, so a CVO that holds conditional updates on their risks takes
	// it (formatVersion 1.5).
	AcceptRisks []string `json:"acceptRisks,omitempty"`
}

// GateKind is the kind of condition a gate waits for.
type GateKind string

// The gate kinds. Each verifies reality, not only reported status.
const (
	// GateClusterOperator: the ClusterOperator reports every version in Versions,
	// with Available=True and Degraded=False.
	GateClusterOperator GateKind = "cluster-operator"
	// GateCRDEstablished: the CRD named by Object is Established.
	GateCRDEstablished GateKind = "crd-established"
	// GateWorkloadRollout: the Deployment or DaemonSet named by Object has rolled
	// out (observed generation, updated and available replicas).
	GateWorkloadRollout GateKind = "workload-rollout"
	// GateStaticPods: every node's running mirror pod of StaticPods carries the
	// operator's latest available revision, and nodeStatuses agree.
	GateStaticPods GateKind = "static-pods"
	// GatePoolUpdated: the MachineConfigPool named by Pool has every machine updated.
	GatePoolUpdated GateKind = "pool-updated"
	// GateCVOScaledDown: no CVO pod is left.
	GateCVOScaledDown GateKind = "cvo-scaled-down"
	// GateCVORunning: the CVO Deployment is available again and ClusterVersion
	// shows it acting on the desired update.
	GateCVORunning GateKind = "cvo-running"
	// GateDeleted: the object named by Object is gone.
	GateDeleted GateKind = "deleted"

	// The remediation gates (formatVersion 1.1).

	// GateNodesSettled: every node in Nodes has its last drain or uncordon
	// request applied, its machine-config daemon Done and its desired
	// configuration running (inspect.NodeSettled).
	GateNodesSettled GateKind = "nodes-settled"
	// GateNodesReady: every node in Nodes is Ready (inspect.NodeReady).
	GateNodesReady GateKind = "nodes-ready"
	// GateCSRIssued: the CSR named by Object was approved and its certificate
	// issued (inspect.CSRIssued).
	GateCSRIssued GateKind = "csr-issued"
	// GateRestored: the object named by Object carries again the pre-image the
	// journal recorded for the step the revert undoes.
	GateRestored GateKind = "restored"
	// GateConditionCleared: the ClusterVersion or ClusterOperator named by Object
	// no longer has Condition False (or True, for Degraded) with Reason.
	GateConditionCleared GateKind = "condition-cleared"
	// GateReleaseAccepted: ClusterVersion reports ReleaseAccepted=True for the
	// release Image (status.desired.image): the CVO retrieved and verified it
	// (formatVersion 1.2).
	GateReleaseAccepted GateKind = "release-accepted"
)

// GateKinds lists every gate kind, in the order the documentation gives them.
func GateKinds() []GateKind {
	return []GateKind{GateClusterOperator, GateCRDEstablished, GateWorkloadRollout, GateStaticPods, GatePoolUpdated,
		GateCVOScaledDown, GateCVORunning, GateDeleted,
		GateNodesSettled, GateNodesReady, GateCSRIssued, GateRestored, GateConditionCleared, GateReleaseAccepted}
}

// Gate is one verifiable condition.
type Gate struct {
	Kind GateKind `json:"kind"`
	// Description is the human sentence ("kube-apiserver reports 4.4.4, Available,
	// not Degraded").
	Description string `json:"description"`
	// Timeout overrides the engine's default for this kind (a Go duration string).
	Timeout string `json:"timeout,omitempty"`

	// ClusterOperator and Versions are set for cluster-operator gates.
	ClusterOperator string           `json:"clusterOperator,omitempty"`
	Versions        []OperandVersion `json:"versions,omitempty"`
	// Object is set for crd-established, workload-rollout and deleted gates.
	Object *ObjectRef `json:"object,omitempty"`
	// StaticPods is set for static-pods gates.
	StaticPods *StaticPodsGate `json:"staticPods,omitempty"`
	// Pool is set for pool-updated gates.
	Pool string `json:"pool,omitempty"`
	// Nodes is set for nodes-settled and nodes-ready gates.
	Nodes []string `json:"nodes,omitempty"`
	// Condition and Reason are set for condition-cleared gates.
	Condition string `json:"condition,omitempty"`
	Reason    string `json:"reason,omitempty"`
	// RefusalExpected, on a cvo-running gate, says why the restored CVO will
	// still refuse its desired update (causes the plan does not remedy): the
	// gate is then met once the CVO runs and has observed ClusterVersion,
	// whether it takes the update or not (formatVersion 1.1).
	RefusalExpected string `json:"refusalExpected,omitempty"`
	// Image is set for release-accepted gates: the release pull spec, by
	// digest (formatVersion 1.2).
	Image string `json:"image,omitempty"`
}

// OperandVersion is one entry a ClusterOperator must report in status.versions.
type OperandVersion struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// ObjectRef names an object.
type ObjectRef struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
}

// StaticPodsGate names a static-pod operator and its operand's mirror pods.
type StaticPodsGate struct {
	// Resource is the operator.openshift.io resource ("kubeapiservers") whose
	// singleton "cluster" holds latestAvailableRevision and nodeStatuses.
	Resource string `json:"resource"`
	// Namespace and PodPrefix locate the mirror pods: <PodPrefix>-<node> in Namespace,
	// label revision=<N>.
	Namespace string `json:"namespace"`
	PodPrefix string `json:"podPrefix"`
	// NodeSelector picks the nodes that must run it (default: control-plane nodes).
	NodeSelector string `json:"nodeSelector,omitempty"`
	// MinRevision, when set, is the revision the rollout must reach at least: a
	// forced redeployment must produce a revision newer than the one it started
	// from (formatVersion 1.1).
	MinRevision int32 `json:"minRevision,omitempty"`
}
