package inspect

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/openshift-recover/recover/internal/openshift"
)

// The classifiers below turn the status texts the operators write into the
// classes a finding's details carry (docs/findings.md). Every pattern is the
// operator's own format string, checked in its source (docs/wedge-sources.md).

// The classes of a degraded node (NodeDegraded details "class"), from the
// machine-config daemon's reason annotation.
const (
	NodeClassDrain                 = "drain"
	NodeClassContentMismatch       = "content-mismatch"
	NodeClassOSImageMismatch       = "os-image-mismatch"
	NodeClassRenderedConfigMissing = "rendered-config-missing"
	NodeClassOSUpdateFailure       = "os-update-failure"
	NodeClassPullFailure           = "pull-failure"
	NodeClassRebootFailure         = "reboot-failure"
	NodeClassUnknown               = "unknown"
)

// ClassifyNodeDegraded returns the class of a machine-config daemon Degraded
// reason (MCO pkg/daemon: drain.go, daemon.go, on_disk_validation.go, update.go,
// pivot/utils/run.go). A pull failure is recognised before an OS update failure:
// the OS update wraps the podman pull that failed.
func ClassifyNodeDegraded(reason string) string {
	switch r := reason; {
	case r == "":
		return NodeClassUnknown
	case strings.Contains(r, openshift.ReasonDrainTimeout):
		return NodeClassDrain
	case strings.Contains(r, openshift.ReasonContentMismatch), strings.Contains(r, openshift.ReasonModeMismatch):
		return NodeClassContentMismatch
	case strings.Contains(r, openshift.ReasonOSImageMismatch):
		return NodeClassOSImageMismatch
	case strings.Contains(r, openshift.ReasonCommandFailed), strings.Contains(r, "podman pull"):
		return NodeClassPullFailure
	case strings.Contains(r, openshift.ReasonOSUpdateFailed), strings.Contains(r, openshift.ReasonRPMOstree):
		return NodeClassOSUpdateFailure
	case strings.Contains(r, openshift.ReasonRebootFailed):
		return NodeClassRebootFailure
	case strings.Contains(r, "machineconfig") && strings.Contains(r, `"rendered-`) && strings.HasSuffix(strings.TrimSpace(r), openshift.ReasonRenderedNotFound):
		return NodeClassRenderedConfigMissing
	}
	return NodeClassUnknown
}

// nodeClassRemedy is the expert fix for each class of degraded node
// (../shared/domain/update-wedges.md W1, W3-W6, with their sources).
var nodeClassRemedy = map[string]string{
	NodeClassDrain: "A pod cannot be evicted: a PodDisruptionBudget at its limit, a webhook that refuses the eviction, a finalizer or a volume that will not unmount " +
		"(runbook MachineConfigControllerDrainError: relax the PDB for the drain and restore it, back up and delete a blocking webhook, or clear the finalizer).",
	NodeClassContentMismatch: "A file on the node differs from its MachineConfig: make its content and mode match the MachineConfig, " +
		"or have the daemon rewrite it with `touch /run/machine-config-daemon-force` on the node, which reboots it (MCO docs/MachineConfigDaemon.md, W3).",
	NodeClassOSImageMismatch: "The node booted another OS image than its config names: create /run/machine-config-daemon-force and set the node's currentConfig annotation to the desired rendered config, " +
		"failing that roll back with `rpm-ostree rollback` (KCS 5414371, W4).",
	NodeClassRenderedConfigMissing: "The rendered MachineConfig the node is on or asked for no longer exists; no documented fix: compare `oc get machineconfig` with the pool's configuration (MCO#2010, W5).",
	NodeClassOSUpdateFailure: "rpm-ostree could not stage the new OS: restart rpm-ostreed if it reports a transaction in progress, and collect `rpm-ostree status` and `journalctl -u ostree-finalize-staged` " +
		"(runbook MachineConfigDaemonPivotError, W6).",
	NodeClassPullFailure:   "The node cannot pull the OS image: fix registry, proxy or DNS reachability from the node; the daemon retries on its own (runbook MachineConfigDaemonPivotError, ocpbugs-60768, W6).",
	NodeClassRebootFailure: "The reboot command failed: read the node's console and journal (runbook MachineConfigDaemonRebootError, W6).",
	NodeClassUnknown:       "Read the machine-config daemon's log on the node.",
}

// nodeClassWhy says in a few words what each class of degraded node means.
var nodeClassWhy = map[string]string{
	NodeClassDrain:                 "a pod on them cannot be evicted",
	NodeClassContentMismatch:       "a file on disk differs from its MachineConfig",
	NodeClassOSImageMismatch:       "the booted OS image is not the one their config names",
	NodeClassRenderedConfigMissing: "the rendered MachineConfig they need is gone",
	NodeClassOSUpdateFailure:       "rpm-ostree could not stage the new OS",
	NodeClassPullFailure:           "they cannot pull the OS image",
	NodeClassRebootFailure:         "their reboot failed",
	NodeClassUnknown:               "the daemon's reason has no known class",
}

// The classes of an Upgradeable=False reason (UpgradeableFalse details "class").
const (
	UpgradeClassAdminAck          = "admin-ack"
	UpgradeClassOverrides         = "overrides"
	UpgradeClassUnsupportedConfig = "unsupported-config-overrides"
	UpgradeClassCloudCredential   = "cloud-credential"
	UpgradeClassKubeletSkew       = "kubelet-skew"
	UpgradeClassOLM               = "olm-max-openshift-version"
	UpgradeClassDegradedPool      = "degraded-pool"
	UpgradeClassNetworkSDN        = "network-sdn"
	UpgradeClassOther             = "other"
)

// ClassifyUpgradeable returns the class of an Upgradeable=False reason. A
// ClusterOperator's reason is library-go's "<Type>_<Reason>" union, several joined
// with "::" (pkg/operator/status/condition.go unionReason); the first part that
// has a class gives it.
func ClassifyUpgradeable(reason string) string {
	for _, part := range strings.Split(reason, "::") {
		if c := upgradeablePartClass(part); c != UpgradeClassOther {
			return c
		}
	}
	return UpgradeClassOther
}

func upgradeablePartClass(r string) string {
	switch {
	case r == openshift.ReasonAdminAckRequired, strings.HasPrefix(r, "AdminAck"):
		return UpgradeClassAdminAck
	case r == openshift.ReasonClusterVersionOverrides, r == "ClusterVersionOverrides":
		return UpgradeClassOverrides
	case strings.Contains(r, openshift.ReasonUnsupportedConfigOverrides):
		return UpgradeClassUnsupportedConfig
	case strings.Contains(r, openshift.ReasonMissingUpgradeableAnnotation):
		return UpgradeClassCloudCredential
	case strings.Contains(r, openshift.ReasonKubeletMinorVersion):
		return UpgradeClassKubeletSkew
	case strings.Contains(r, openshift.ReasonIncompatibleOperators):
		return UpgradeClassOLM
	case strings.Contains(r, openshift.ReasonDegradedPool), strings.Contains(r, "PoolsNotReady"):
		return UpgradeClassDegradedPool
	case strings.Contains(r, openshift.ReasonOpenShiftSDNConfigured):
		return UpgradeClassNetworkSDN
	}
	return UpgradeClassOther
}

// upgradeableRemedy is the expert remedy for each class (W10, with sources).
var upgradeableRemedy = map[string]string{
	UpgradeClassAdminAck:          "check the APIs the gate names (oc get apirequestcounts), then acknowledge it in openshift-config/admin-acks (CVO#647, W10)",
	UpgradeClassOverrides:         "remove ClusterVersion spec.overrides once the components they cover are back to the release's manifests (okd#1461, W10)",
	UpgradeClassUnsupportedConfig: "remove spec.unsupportedConfigOverrides from the operator's configuration (library-go unsupportedconfigoverridescontroller)",
	UpgradeClassCloudCredential:   "update the manual credentials to the target release's CredentialsRequests, then annotate cloudcredential.operator.openshift.io/cluster with cloudcredential.openshift.io/upgradeable-to=<next minor> (CCO#286, W10)",
	UpgradeClassKubeletSkew:       "finish or unpause the pools whose kubelets lag the control plane (KAS-O#1199, W10, W11)",
	UpgradeClassOLM:               "update or remove the operators whose olm.maxOpenShiftVersion is the current minor (OLM#2081, W10)",
	UpgradeClassDegradedPool:      "repair the degraded pool (MCO#3246, W10)",
	UpgradeClassNetworkSDN:        "migrate from OpenShiftSDN to OVN-Kubernetes before the next minor (CNO#2330, W10)",
	UpgradeClassOther:             "resolve the reason the operator gives",
}

// upgradeableItem is one operator of the CVO's aggregated Upgradeable message.
type upgradeableItem struct {
	Operator, Reason, Message string
}

// cvUpgradeableItem matches the CVO's per-operator line: "Cluster operator %s
// should not be upgraded between minor or major versions: %s: %s" (4.10 and later;
// "cannot be upgraded between minor versions" before; pkg/cvo/upgradeable.go).
var cvUpgradeableItem = regexp.MustCompile(`Cluster operator (\S+) (?:should not|cannot) be upgraded between minor(?: or major)? versions: ([A-Za-z0-9_:]+): (.*)`)

// parseUpgradeableItems returns the operators the ClusterVersion's Upgradeable
// message names, in its order.
func parseUpgradeableItems(msg string) []upgradeableItem {
	var out []upgradeableItem
	for _, line := range strings.Split(msg, "\n") {
		if m := cvUpgradeableItem.FindStringSubmatch(line); m != nil {
			out = append(out, upgradeableItem{Operator: m[1], Reason: m[2], Message: m[3]})
		}
	}
	return out
}

// The classes of a ReleaseAccepted=False reason (ReleaseNotAccepted details "class").
const (
	ReleaseClassSignature       = "signature"
	ReleaseClassRetrieval       = "retrieval"
	ReleaseClassPreconditions   = "preconditions"
	ReleaseClassVersionMismatch = "version-mismatch"
	ReleaseClassOther           = "other"
)

// ClassifyReleaseAccepted returns the class of a ReleaseAccepted=False condition:
// its reason is the step of loadUpdatedPayload that failed (CVO
// pkg/cvo/sync_worker.go); a RetrievePayload failure is a signature problem when
// the message says the update cannot be verified (pkg/cvo/updatepayload.go).
func ClassifyReleaseAccepted(reason, message string) string {
	switch reason {
	case openshift.StepRetrievePayload:
		if strings.Contains(message, "cannot be verified") || strings.Contains(message, "signature") || strings.Contains(message, "ImageVerificationFailed") {
			return ReleaseClassSignature
		}
		return ReleaseClassRetrieval
	case openshift.StepLoadPayload:
		return ReleaseClassRetrieval
	case openshift.StepVerifyPayloadVersion:
		return ReleaseClassVersionMismatch
	case openshift.StepPreconditionChecks:
		return ReleaseClassPreconditions
	}
	return ReleaseClassOther
}

// releaseRemedy is the expert remedy for each class (W9, with sources).
var releaseRemedy = map[string]string{
	ReleaseClassSignature: "supply the release's signature (a signature ConfigMap in openshift-config-managed, or spec.signatureStores from 4.16), or withdraw the target with `oc adm upgrade --clear`; " +
		"--force skips verification and is heavily discouraged (okd#1578, CVO#1003, enhancements#1485, W9)",
	ReleaseClassRetrieval: "make the release image pullable from the cluster (mirror, pull secret, proxy), or withdraw the target with `oc adm upgrade --clear` (docs#40416, W9)",
	ReleaseClassPreconditions: "resolve the precondition that failed (often Upgradeable=False, see UpgradeableFalse) or retarget to a z-stream of the current minor, " +
		"or withdraw the target with `oc adm upgrade --clear` (W10)",
	ReleaseClassVersionMismatch: "the image is not the version requested: withdraw the target with `oc adm upgrade --clear` and request the image with its own version (W9)",
	ReleaseClassOther:           "read the condition's message; `oc adm upgrade --clear` withdraws a target the CVO has not accepted (W9)",
}

// releaseOfMessage extracts version="..." image="..." from a ReleaseAccepted message.
var releaseOfMessage = regexp.MustCompile(`version="([^"]*)" image="([^"]*)"`)

// cvoProgress is the CVO's "N of M" progress, parsed from Progressing
// ("Working towards %s: %d of %d done (%.0f%% complete)", pkg/cvo/status.go).
type cvoProgress struct {
	Target               string
	Done, Total, Percent int
	Waiting              string
}

var progressingRE = regexp.MustCompile(`Working towards (\S+): (\d+) of (\d+) done \((\d+)% complete\)(?:, (.*))?`)

// parseProgress parses a Progressing message; ok is false when it has no "N of M".
func parseProgress(msg string) (cvoProgress, bool) {
	m := progressingRE.FindStringSubmatch(msg)
	if m == nil {
		return cvoProgress{}, false
	}
	p := cvoProgress{Target: m[1], Waiting: m[5]}
	p.Done, _ = strconv.Atoi(m[2])
	p.Total, _ = strconv.Atoi(m[3])
	p.Percent, _ = strconv.Atoi(m[4])
	return p, true
}

// manifestError is one manifest the CVO could not apply: "Could not update %s%s"
// where the task is "%s (%d of %d)" and the resource id is `<kind> "<name>"` or
// `<kind> "<ns>/<name>"` (pkg/payload/task.go).
type manifestError struct {
	Kind, Namespace, Name string
	Index, Total          int
	Cause                 string
}

var couldNotUpdateRE = regexp.MustCompile(`Could not update (\S+) "([^"]+)" \((\d+) of (\d+)\)(?:: ([^\n]*))?`)

// workloadRE matches the CVO's workload errors (lib/resourcebuilder/apps.go):
// "deployment %s is not available ..." / "deployment %s has a replica failure ..." /
// "deployment %s is %s=%s: ...", %s being "<ns>/<name>".
var workloadRE = regexp.MustCompile(`(deployment|daemonset) (\S+/\S+) (?:is not available|has a replica failure|is [A-Za-z]+=)`)

// parseManifestErrors returns every manifest a Failing (or Progressing) message
// names, in its order.
func parseManifestErrors(msg string) []manifestError {
	var out []manifestError
	for _, m := range couldNotUpdateRE.FindAllStringSubmatch(msg, -1) {
		e := manifestError{Kind: strings.ToLower(m[1]), Cause: strings.TrimSpace(m[5])}
		e.Namespace, e.Name = splitID(m[2])
		e.Index, _ = strconv.Atoi(m[3])
		e.Total, _ = strconv.Atoi(m[4])
		out = append(out, e)
	}
	if len(out) > 0 {
		return out
	}
	for _, m := range workloadRE.FindAllStringSubmatch(msg, -1) {
		e := manifestError{Kind: m[1], Cause: strings.TrimSpace(msg)}
		e.Namespace, e.Name = splitID(m[2])
		out = append(out, e)
	}
	return out
}

func splitID(id string) (ns, name string) {
	if i := strings.Index(id, "/"); i >= 0 {
		return id[:i], id[i+1:]
	}
	return "", id
}

// Subject returns "<kind>/<ns>/<name>" (or "<kind>/<name>" for a cluster-scoped object).
func (e manifestError) Subject() string {
	if e.Namespace == "" {
		return e.Kind + "/" + e.Name
	}
	return e.Kind + "/" + e.Namespace + "/" + e.Name
}

// Object returns the object as the CVO names it: `<kind> "<ns>/<name>"`.
func (e manifestError) Object() string {
	if e.Namespace == "" {
		return e.Kind + ` "` + e.Name + `"`
	}
	return e.Kind + ` "` + e.Namespace + "/" + e.Name + `"`
}

// manifestFailingReasons are the Failing reasons of a manifest the CVO could not
// apply (pkg/payload/task.go reasonForPayloadSyncError; lib/resourcebuilder/apps.go),
// as opposed to the ClusterOperator* reasons of an operator it waits on.
var manifestFailingReasons = map[string]bool{
	"UpdatePayloadResourceNotFound":    true,
	"UpdatePayloadResourceConflict":    true,
	"UpdatePayloadClusterDown":         true,
	"UpdatePayloadClusterError":        true,
	"UpdatePayloadResourceInvalid":     true,
	"UpdatePayloadClusterUnauthorized": true,
	"UpdatePayloadResourceForbidden":   true,
	"UpdatePayloadClusterOverloaded":   true,
	"UpdatePayloadResourceTypeMissing": true,
	"UpdatePayloadFailed":              true,
	"WorkloadNotAvailable":             true,
	"WorkloadNotProgressing":           true,
	"MultipleErrors":                   true,
}

// webhookInCause finds the webhook an admission error names: the API server's
// `failed calling webhook "<name>"` (k8s.io/apiserver pkg/admission/plugin/webhook/errors).
var webhookInCause = regexp.MustCompile(`failed calling webhook "([^"]+)"`)

// policyInCause finds the ValidatingAdmissionPolicy an admission error names:
// "ValidatingAdmissionPolicy '<name>' with binding '<binding>' denied request".
var policyInCause = regexp.MustCompile(`ValidatingAdmissionPolicy '([^']+)'`)

// operatorsInFailing returns the operators a ClusterOperator* Failing message
// names ("Cluster operator %s is degraded", "Cluster operators %s are degraded",
// pkg/cvo/internal/operatorstatus.go).
var operatorsInFailingRE = regexp.MustCompile(`Cluster operators? (.+?) (?:is|are) (?:degraded|not available|updating versions)|Cluster operators? (.+?) (?:does|do) not declare`)

func operatorsInFailing(msg string) []string {
	var out []string
	for _, m := range operatorsInFailingRE.FindAllStringSubmatch(msg, -1) {
		list := firstNonEmpty(m[1], m[2])
		list = strings.ReplaceAll(list, " and ", ", ")
		for _, n := range strings.Split(list, ",") {
			if n = strings.TrimSpace(n); n != "" {
				out = append(out, n)
			}
		}
	}
	return out
}

// adminAckGate is the CVO's gate key pattern (pkg/cvo/upgradeable.go adminAckGateFmt).
var adminAckGate = regexp.MustCompile(openshift.AdminAckGatePattern)

// gateKubeRE finds the Kubernetes version a gate key names ("ack-4.18-kube-1.32-api-removals-in-4.19").
var gateKubeRE = regexp.MustCompile(`kube-(1\.[0-9]+)`)

// gateMajorMinor returns the "major.minor" a gate key applies to ("4.18"), "" when
// the key does not match the CVO's pattern.
func gateMajorMinor(key string) string {
	m := adminAckGate.FindStringSubmatch(key)
	if m == nil {
		return ""
	}
	return key[len("ack-"):len("ack-")+2] + m[1]
}
