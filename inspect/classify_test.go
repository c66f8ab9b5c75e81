package inspect

import (
	"reflect"
	"testing"
)

// The reasons below are the machine-config daemon's own texts: from its format
// strings (docs/wedge-sources.md §1) and, where marked, from real clusters of
// oc adm upgrade status' examples.
func TestClassifyNodeDegraded(t *testing.T) {
	for reason, want := range map[string]string{
		// real: 4.16.0-ec2-control-plane-updated-pdb-prohibits-draining
		"failed to drain node: build0-gstfj-ci-prowjobs-worker-b-9lztv after 1 hour. Please see machine-config-controller logs for more information":   NodeClassDrain,
		`unexpected on-disk state validating against rendered-worker-1a2b: content mismatch for file "/etc/kubernetes/kubelet.conf"`:                   NodeClassContentMismatch,
		`unexpected on-disk state validating against rendered-worker-1a2b: mode mismatch for file: "/etc/x"; expected: -rw-r--r--/420/0644`:            NodeClassContentMismatch,
		`unexpected on-disk state validating against rendered-worker-1a2b: expected target osImageURL "quay.io/a@sha256:1", have "quay.io/b@sha256:2"`: NodeClassOSImageMismatch,
		// real: ocpbugs-60768
		`failed to run command nice (6 tries): [timed out waiting for the condition, running nice -- ionice -c 3 podman pull -q --authfile /var/lib/kubelet/config.json quay.io/x: exit status 125]`: NodeClassPullFailure,
		`failed to update OS to quay.io/x@sha256:1 after retries: error running rpm-ostree rebase --experimental ostree-unverified-registry:quay.io/x: error: Timeout: exit status 1`:                NodeClassOSUpdateFailure,
		"reboot command failed, something is seriously wrong":                                          NodeClassRebootFailure,
		`machineconfig.machineconfiguration.openshift.io "rendered-master-0123456789abcdef" not found`: NodeClassRenderedConfigMissing,
		"":                        NodeClassUnknown,
		"something else entirely": NodeClassUnknown,
	} {
		if got := ClassifyNodeDegraded(reason); got != want {
			t.Errorf("ClassifyNodeDegraded(%.60q) = %s, want %s", reason, got, want)
		}
	}
	for class := range nodeClassWhy {
		if nodeClassRemedy[class] == "" {
			t.Errorf("class %s has no remedy", class)
		}
	}
}

func TestClassifyUpgradeable(t *testing.T) {
	for reason, want := range map[string]string{
		"AdminAckRequired":           UpgradeClassAdminAck,
		"ClusterVersionOverridesSet": UpgradeClassOverrides,
		"UnsupportedConfigOverrides_UnsupportedConfigOverridesSet":               UpgradeClassUnsupportedConfig,
		"MissingUpgradeableAnnotation":                                           UpgradeClassCloudCredential,
		"KubeletMinorVersion_KubeletMinorVersionUnsupportedNextUpgrade":          UpgradeClassKubeletSkew,
		"IncompatibleOperatorsInstalled":                                         UpgradeClassOLM,
		"DegradedPool":                                                           UpgradeClassDegradedPool,
		"OpenShiftSDNConfigured":                                                 UpgradeClassNetworkSDN,
		"FeatureGates_RestrictedFeatureGates_TechPreviewNoUpgrade":               UpgradeClassOther,
		"FeatureGates_RestrictedFeatureGates_TechPreviewNoUpgrade::DegradedPool": UpgradeClassDegradedPool,
		"": UpgradeClassOther,
	} {
		if got := ClassifyUpgradeable(reason); got != want {
			t.Errorf("ClassifyUpgradeable(%q) = %s, want %s", reason, got, want)
		}
	}
	items := parseUpgradeableItems(upgradeable47)
	if len(items) != 2 || items[0].Operator != "etcd" || items[1].Operator != "authentication" || items[0].Reason != "UnsupportedConfigOverrides_UnsupportedConfigOverridesSet" {
		t.Errorf("parseUpgradeableItems = %+v", items)
	}
	newer := "Multiple cluster operators should not be upgraded between minor or major versions:\n* Cluster operator machine-config should not be upgraded between minor or major versions: DegradedPool: One or more machine config pools are degraded"
	if items := parseUpgradeableItems(newer); len(items) != 1 || items[0].Operator != "machine-config" || items[0].Reason != "DegradedPool" {
		t.Errorf("parseUpgradeableItems(4.10+ text) = %+v", items)
	}
}

func TestClassifyReleaseAccepted(t *testing.T) {
	for _, tc := range []struct{ reason, msg, want string }{
		{"RetrievePayload", `Retrieving payload failed version="4.14.1" image="q" failure=The update cannot be verified: unable to verify sha256:1 against keyrings`, ReleaseClassSignature},
		{"RetrievePayload", `Retrieving payload failed version="4.14.1" image="q" failure=Unable to download and prepare the update: timed out`, ReleaseClassRetrieval},
		{"LoadPayload", "Loading payload failed", ReleaseClassRetrieval},
		{"VerifyPayloadVersion", "release image version 4.14.2 does not match the expected upstream version 4.14.1", ReleaseClassVersionMismatch},
		{"PreconditionChecks", "Preconditions failed for payload loaded", ReleaseClassPreconditions},
		{"Whatever", "", ReleaseClassOther},
	} {
		if got := ClassifyReleaseAccepted(tc.reason, tc.msg); got != tc.want {
			t.Errorf("ClassifyReleaseAccepted(%s, %.40q) = %s, want %s", tc.reason, tc.msg, got, tc.want)
		}
	}
}

func TestParseCVOMessages(t *testing.T) {
	p, ok := parseProgress("Working towards 4.16.3: 523 of 903 done (57% complete), waiting on etcd, kube-apiserver")
	if !ok || p.Target != "4.16.3" || p.Done != 523 || p.Total != 903 || p.Percent != 57 || p.Waiting != "waiting on etcd, kube-apiserver" {
		t.Errorf("parseProgress = %+v %t", p, ok)
	}
	if _, ok := parseProgress("Cluster version is 4.16.3"); ok {
		t.Error("parseProgress must not parse a done message")
	}
	multi := "Multiple errors are preventing progress:\n* Could not update namespace \"openshift-x\" (3 of 800): the server has forbidden updates to this resource\n* " + msgCouldNotUpdate
	errs := parseManifestErrors(multi)
	if len(errs) != 2 || errs[0].Subject() != "namespace/openshift-x" || errs[1].Subject() != "deployment/openshift-monitoring/cluster-monitoring-operator" ||
		errs[1].Index != 412 || errs[1].Total != 812 || errs[0].Cause != "the server has forbidden updates to this resource" {
		t.Errorf("parseManifestErrors = %+v", errs)
	}
	w := parseManifestErrors("deployment openshift-dns-operator/dns-operator is not available MinimumReplicasUnavailable (Deployment does not have minimum availability.)")
	if len(w) != 1 || w[0].Subject() != "deployment/openshift-dns-operator/dns-operator" {
		t.Errorf("workload error = %+v", w)
	}
	if got := operatorsInFailing("Cluster operators etcd, kube-apiserver are degraded"); !reflect.DeepEqual(got, []string{"etcd", "kube-apiserver"}) {
		t.Errorf("operatorsInFailing = %v", got)
	}
	if got := operatorsInFailing("Cluster operator machine-config is degraded"); !reflect.DeepEqual(got, []string{"machine-config"}) {
		t.Errorf("operatorsInFailing = %v", got)
	}
	for key, want := range map[string]string{
		"ack-4.18-kube-1.32-api-removals-in-4.19": "4.18",
		"ack-4.8-kube-1.22-api-removals-in-4.9":   "4.8",
		"ack-4.8":                                 "",
		"not-a-gate":                              "",
	} {
		if got := gateMajorMinor(key); got != want {
			t.Errorf("gateMajorMinor(%s) = %q, want %q", key, got, want)
		}
	}
}
