package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/inspect"
)

// wedgeFixture is one must-gather of a wedge, what recover inspect must answer
// about it: the wedge summary in rank order ("Code:class"), the command after the
// first line, and the details of the findings that carry the diagnosis.
type wedgeFixture struct {
	dir     string
	wedges  []string
	next    string
	finding []wantFinding
	absent  []string // codes that must not fire
}

type wantFinding struct {
	code, subject string
	class         string
	details       map[string]string
}

var wedgeFixtures = []wedgeFixture{
	{
		dir:    "testdata/wedges/pdb-prohibits-draining",
		wedges: []string{"DrainBlockedByPDB:blocks-update", "CSRPending:blocks-update", "UpgradeableFalse:informs"},
		next:   "recover plan",
		finding: []wantFinding{
			{inspect.CodeDrainBlockedByPDB, "poddisruptionbudget/ci/prowjobs", inspect.ClassBlocks, map[string]string{
				"namespace": "ci", "name": "prowjobs", "disruptionsAllowed": "0", "currentHealthy": "7", "desiredHealthy": "7",
				"nodes": "build0-gstfj-ci-prowjobs-worker-b-9lztv,build0-gstfj-ci-prowjobs-worker-b-bg9f5,build0-gstfj-ci-prowjobs-worker-b-mrxwn," +
					"build0-gstfj-ci-tests-worker-b-4h7pn,build0-gstfj-ci-tests-worker-b-jv5bg,build0-gstfj-ci-tests-worker-b-kj6gk,build0-gstfj-ci-tests-worker-c-dcz9p"}},
			{inspect.CodeNodeDegraded, "node/build0-gstfj-ci-tests-worker-c-dcz9p", inspect.ClassBlocks, map[string]string{
				"class": inspect.NodeClassDrain, "cause": "poddisruptionbudget/ci/prowjobs"}},
			{inspect.CodeCSRPending, "node/build0-gstfj-ci-tests-worker-b-d9vz2", inspect.ClassBlocks, map[string]string{
				"csrs": "csr-7kq2n", "vouched": "csr-7kq2n", "unvouched": "", "signer": "kubernetes.io/kubelet-serving"}},
			{inspect.CodeCompletedWithPoolsBehind, "machineconfigpool/worker", inspect.ClassBlocks, map[string]string{"pool": "worker"}},
			{inspect.CodeUpgradeableFalse, "clusteroperator/machine-config", inspect.ClassInforms, map[string]string{"class": inspect.UpgradeClassDegradedPool}},
		},
		absent: []string{inspect.CodeAdminAckRequired, inspect.CodeGuardPDBBlocksDrain, inspect.CodeNotCollected},
	},
	{
		dir:    "testdata/wedges/node-degraded-classes",
		wedges: []string{"NodeDegraded:blocks-update", "NodeDegraded:blocks-update", "NodeDegraded:blocks-update", "NodeDegraded:blocks-update", "NodeDegraded:blocks-update", "NodeDegraded:blocks-update", "UpdateInProgress:informs"},
		next:   "oc debug node/worker-content-mismatch -- chroot /host touch /run/machine-config-daemon-force",
		finding: []wantFinding{
			{inspect.CodeNodeDegraded, "node/worker-content-mismatch", inspect.ClassBlocks, map[string]string{"class": inspect.NodeClassContentMismatch}},
			{inspect.CodeNodeDegraded, "node/worker-os-image-mismatch", inspect.ClassBlocks, map[string]string{"class": inspect.NodeClassOSImageMismatch}},
			{inspect.CodeNodeDegraded, "node/worker-pull-failure", inspect.ClassBlocks, map[string]string{"class": inspect.NodeClassPullFailure}},
			{inspect.CodeNodeDegraded, "node/worker-os-update-failure", inspect.ClassBlocks, map[string]string{"class": inspect.NodeClassOSUpdateFailure}},
			{inspect.CodeNodeDegraded, "node/worker-reboot-failure", inspect.ClassBlocks, map[string]string{"class": inspect.NodeClassRebootFailure}},
			{inspect.CodeNodeDegraded, "node/worker-rendered-config-missing", inspect.ClassBlocks, map[string]string{"class": inspect.NodeClassRenderedConfigMissing, "cause": ""}},
		},
	},
	{
		dir:    "testdata/wedges/static-pod-rollout-stuck",
		wedges: []string{"StaticPodRolloutStuck:blocks-update", "UpdateInProgress:informs"},
		next:   "recover plan --accept force-redeployment:kube-apiserver",
		finding: []wantFinding{{inspect.CodeStaticPodRolloutStuck, "node/master-2", inspect.ClassBlocks, map[string]string{
			"component": "kube-apiserver", "target": "12", "lastFailed": "12", "failedCount": "4", "fallbackCount": "0", "reason": "InstallerFailed"}}},
		absent: []string{inspect.CodeInstallerSucceededWithoutRevision, inspect.CodeStaticPodRevisionMismatch},
	},
	{
		dir: "testdata/wedges/csr-bootstrap",
		// worker-3 has a Machine: approving its vouched request unblocks it;
		// worker-9 has neither node nor Machine: its request is to look at,
		// never to approve, and holds no update.
		wedges: []string{"CSRPending:blocks-update", "CSRPending:informs"},
		next:   "recover plan",
		finding: []wantFinding{
			{inspect.CodeCSRPending, "node/worker-3", inspect.ClassBlocks, map[string]string{"vouched": "csr-2xv8b", "unvouched": "", "signer": "kubernetes.io/kube-apiserver-client-kubelet"}},
			{inspect.CodeCSRPending, "node/worker-9", inspect.ClassInforms, map[string]string{"vouched": "", "unvouched": "csr-zq7tk"}},
		},
	},
	{
		dir:    "../../examples/guard-pdb",
		wedges: []string{"GuardPDBBlocksDrain:blocks-update", "UpdateInProgress:informs", "PoolUpdating:informs"},
		next:   "oc describe clusteroperator/etcd",
		finding: []wantFinding{{inspect.CodeGuardPDBBlocksDrain, "poddisruptionbudget/openshift-etcd/etcd-guard-pdb", inspect.ClassBlocks, map[string]string{
			"component": "etcd", "unready": "master-2", "nodes": "master-0", "pods": "openshift-etcd/etcd-guard-master-0", "disruptionsAllowed": "0"}}},
		absent: []string{inspect.CodeDrainBlockedByPDB},
	},
	{
		dir:    "../../examples/admin-ack-required",
		wedges: []string{"AdminAckRequired:blocks-update"},
		next:   "recover plan --accept admin-ack:ack-4.18-kube-1.32-api-removals-in-4.19",
		finding: []wantFinding{
			{inspect.CodeAdminAckRequired, "admingate/ack-4.18-kube-1.32-api-removals-in-4.19", inspect.ClassBlocks, map[string]string{"gate": "ack-4.18-kube-1.32-api-removals-in-4.19", "minor": "4.18"}},
			{inspect.CodeRemovedAPIInUse, "apirequestcount/flowschemas.v1beta3.flowcontrol.apiserver.k8s.io", inspect.ClassBlocks, map[string]string{"removedInRelease": "1.32", "requests": "1346"}},
			{inspect.CodeReleaseNotAccepted, "clusterversion/version", inspect.ClassBlocks, map[string]string{"class": inspect.ReleaseClassPreconditions, "version": "4.19.0"}},
			{inspect.CodeUpgradeableFalse, "clusterversion/version", inspect.ClassBlocks, map[string]string{"class": inspect.UpgradeClassAdminAck}},
		},
	},
	{
		dir:    "../../examples/upgradeable-overrides",
		wedges: []string{"UnmanagedOverrides:blocks-update", "UpgradeableFalse:blocks-update"},
		next:   "recover plan --accept remove-overrides",
		finding: []wantFinding{
			{inspect.CodeUpgradeableFalse, "clusteroperator/authentication", inspect.ClassBlocks, map[string]string{"class": inspect.UpgradeClassUnsupportedConfig}},
			{inspect.CodeUnmanagedOverrides, "clusterversion/version", inspect.ClassBlocks, nil},
		},
	},
	{
		dir:    "../../examples/release-not-accepted",
		wedges: []string{"ReleaseNotAccepted:blocks-update"},
		next:   "oc adm upgrade --clear",
		finding: []wantFinding{{inspect.CodeReleaseNotAccepted, "clusterversion/version", inspect.ClassBlocks, map[string]string{
			"class": inspect.ReleaseClassSignature, "reason": "RetrievePayload", "version": "4.15.31"}}},
	},
	{
		dir:    "../../examples/cvo-stuck-on-webhook",
		wedges: []string{"CVOStuckOnManifest:blocks-update", "UpdateInProgress:informs"},
		next:   "oc get validatingwebhookconfiguration/gatekeeper-validating-webhook-configuration -o yaml",
		finding: []wantFinding{
			{inspect.CodeCVOStuckOnManifest, "deployment/openshift-monitoring/cluster-monitoring-operator", inspect.ClassBlocks, map[string]string{
				"done": "586", "total": "903", "reason": "UpdatePayloadClusterError", "cause": "the server is reporting an internal error",
				"blockers": "validatingwebhookconfiguration/gatekeeper-validating-webhook-configuration"}},
			{inspect.CodeWebhookUnavailable, "validatingwebhookconfiguration/gatekeeper-validating-webhook-configuration", inspect.ClassBlocks, map[string]string{
				"webhook": "validation.gatekeeper.sh", "service": "gatekeeper-system/gatekeeper-webhook-service", "failurePolicy": "Fail"}},
		},
	},
	{
		dir:    "../../examples/conditional-risk",
		wedges: []string{"ConditionalRiskOnTarget:blocks-update", "UpdateInProgress:informs"},
		next:   "recover plan",
		finding: []wantFinding{{inspect.CodeConditionalRiskOnTarget, "clusterversion/version", inspect.ClassBlocks, map[string]string{
			"target": "4.13.4", "risks": "MultiNetworkAttachmentsWhereaboutsVersion"}}},
	},
	{
		dir:    "../../examples/certificate-expiry",
		wedges: []string{"CertificateExpiry:blocks-update", "CompletedWithPoolsBehind:blocks-update"},
		next:   `oc patch machineconfigpool/worker --type=merge -p '{"spec":{"paused":false}}'`,
		finding: []wantFinding{{inspect.CodeCertificateExpiry, "secret/openshift-kube-apiserver-operator/kube-apiserver-to-kubelet-signer", inspect.ClassBlocks, map[string]string{
			"notAfter": "2025-03-08T08:00:00Z", "remaining": "216h0m0s"}}},
	},
}

// TestInspectWedgeFixtures runs recover inspect on every wedge must-gather and
// checks the wedge summary, its first command and the findings' details.
func TestInspectWedgeFixtures(t *testing.T) {
	for _, fx := range wedgeFixtures {
		t.Run(filepath.Base(fx.dir), func(t *testing.T) {
			mg := filepath.Join(fx.dir, "must-gather")
			code, out, errOut := runRecover(t, "inspect", "--must-gather", mg, "-o", "json")
			if code != ExitOK {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			var s inspect.Snapshot
			if err := json.Unmarshal([]byte(out), &s); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range s.Wedges {
				got = append(got, w.Code+":"+w.Class)
			}
			if strings.Join(got, " ") != strings.Join(fx.wedges, " ") {
				t.Errorf("wedges\n  %s\nwant\n  %s", strings.Join(got, " "), strings.Join(fx.wedges, " "))
			}
			if len(s.Wedges) > 0 && s.Wedges[0].Next != fx.next {
				t.Errorf("first next %q, want %q", s.Wedges[0].Next, fx.next)
			}
			for _, want := range fx.finding {
				f := findingOf(&s, want.code, want.subject)
				if f == nil {
					t.Errorf("no %s on %s: %s", want.code, want.subject, findingCodes(&s))
					continue
				}
				if f.Class != want.class {
					t.Errorf("%s on %s: class %s, want %s", want.code, want.subject, f.Class, want.class)
				}
				for k, v := range want.details {
					if f.Details[k] != v {
						t.Errorf("%s on %s: details[%s] = %q, want %q", want.code, want.subject, k, f.Details[k], v)
					}
				}
			}
			for _, code := range fx.absent {
				if fs := s.FindingsWithCode(code); len(fs) > 0 {
					t.Errorf("%s must not fire: %+v", code, fs)
				}
			}
			// The table and the Markdown report lead with the same first line.
			_, table, _ := runRecover(t, "inspect", "--must-gather", mg)
			if len(s.Wedges) > 0 {
				first := fmt.Sprintf("1. BLOCKS  %s  %s", s.Wedges[0].Code, s.Wedges[0].Subjects[0])
				if !strings.Contains(table, first) || strings.Index(table, first) > strings.Index(table, "CLAIM (ClusterVersion)") {
					t.Errorf("table does not start with %q", first)
				}
			}
			_, md, _ := runRecover(t, "inspect", "--must-gather", mg, "-o", "markdown")
			if !strings.Contains(md, "## Why this cluster is stuck\n\n1. **"+s.Wedges[0].Code+"**") {
				t.Errorf("markdown does not start with %s:\n%.400s", s.Wedges[0].Code, md)
			}
		})
	}
}

// TestInspectWedgeFixturesHoldNoSecretData checks that the certificate example's
// Secrets reach the snapshot as validity dates only.
func TestInspectWedgeFixturesHoldNoSecretData(t *testing.T) {
	_, out, _ := runRecover(t, "inspect", "--must-gather", "../../examples/certificate-expiry/must-gather", "-o", "json")
	for _, leak := range []string{`"tls.key"`, `"tls.crt"`, `"data"`} {
		if strings.Contains(out, leak) {
			t.Errorf("the snapshot carries %s", leak)
		}
	}
	var s inspect.Snapshot
	if err := json.Unmarshal([]byte(out), &s); err != nil || len(s.Certificates) != 5 {
		t.Fatalf("certificates: %v %+v", err, s.Certificates)
	}
}

func findingOf(s *inspect.Snapshot, code, subject string) *inspect.Finding {
	for i := range s.Findings {
		if s.Findings[i].Code == code && s.Findings[i].Subject == subject {
			return &s.Findings[i]
		}
	}
	return nil
}

func findingCodes(s *inspect.Snapshot) string {
	var out []string
	for _, f := range s.Findings {
		out = append(out, f.Code+"@"+f.Subject)
	}
	return strings.Join(out, ", ")
}
