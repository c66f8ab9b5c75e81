package sim

import (
	"fmt"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/internal/openshift"
)

// The fake CVO's Upgradeable (cvo_upgradeable.go) on the 4.4.3 fixture with its
// CVO running. The expected reasons and messages are the CVO's
// (docs/wedge-sources.md §4 and §5), spelled out here rather than taken from
// the code under test where the code builds them.

const (
	// A gate for the fixture's minor, 4.4, as the CVO's admin-gates writes them.
	gate44     = "ack-4.4-kube-1.18-api-removals-in-4.5"
	gate44Desc = "Kubernetes 1.18 and therefore OpenShift 4.5 remove several APIs which require admin consideration."
	// A gate for another minor: it does not hold updates away from 4.4.
	gate45 = "ack-4.5-kube-1.19-api-removals-in-4.6"
	// A key that does not match ^ack-[4-5][.]([0-9]{1,})-[^-].
	badGate = "ack-4.4--double-dash"
)

// adminGateConfigMaps puts admin-gates and (unless acks is nil) admin-acks
// into the fixture's must-gather.
func adminGateConfigMaps(f *fixture, gates, acks map[string]string) {
	if f.extra == nil {
		f.extra = map[string]any{}
	}
	cm := func(ns, name string, data map[string]string) *corev1.ConfigMap {
		return &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Data: data}
	}
	f.extra["namespaces/"+openshift.AdminGatesNamespace+"/core/configmaps/"+openshift.AdminGatesConfigMap+".yaml"] = cm(openshift.AdminGatesNamespace, openshift.AdminGatesConfigMap, gates)
	if acks != nil {
		f.extra["namespaces/"+openshift.AdminAcksNamespace+"/core/configmaps/"+openshift.AdminAcksConfigMap+".yaml"] = cm(openshift.AdminAcksNamespace, openshift.AdminAcksConfigMap, acks)
	}
}

// runningCVOFixture is the fixture with its CVO at one replica, so that it
// evaluates Upgradeable at every pass.
func runningCVOFixture() *fixture {
	f := newFixture()
	f.cvoReplicas = 1
	return f
}

// waitUpgradeable waits for ClusterVersion's Upgradeable to have status,
// reason and message, and returns the ClusterVersion.
func (h *harness) waitUpgradeable(status configv1.ConditionStatus, reason, message string) *configv1.ClusterVersion {
	h.t.Helper()
	var cv *configv1.ClusterVersion
	h.eventually(fmt.Sprintf("Upgradeable=%s %s", status, reason), func() (bool, string, error) {
		cv = h.clusterVersion()
		c := findCondition(cv.Status.Conditions, configv1.OperatorUpgradeable)
		if c == nil {
			return false, "no Upgradeable condition", nil
		}
		return c.Status == status && c.Reason == reason && c.Message == message, fmt.Sprintf("%s %s %q", c.Status, c.Reason, c.Message), nil
	})
	return cv
}

// setAck writes data[key] = value into openshift-config/admin-acks.
func (h *harness) setAck(key, value string) {
	h.t.Helper()
	cms := h.sim.kube.CoreV1().ConfigMaps(openshift.AdminAcksNamespace)
	if err := retryConflict(h.ctx, func() error {
		cm, err := cms.Get(h.ctx, openshift.AdminAcksConfigMap, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		cm.Data[key] = value
		_, err = cms.Update(h.ctx, cm, metav1.UpdateOptions{})
		return err
	}); err != nil {
		h.t.Fatal(err)
	}
}

func TestUpgradeableAdminAckRequiredUntilAcked(t *testing.T) {
	f := runningCVOFixture()
	// The 4.5 gate is not for 4.4 and stays unacked throughout; "yes" is not an ack.
	adminGateConfigMaps(f, map[string]string{gate44: gate44Desc, gate45: "not for 4.4"}, map[string]string{gate44: "yes"})
	h := newHarness(t, f, Options{}, false)

	cv := h.waitUpgradeable(configv1.ConditionFalse, "AdminAckRequired", gate44Desc)
	// A single failing check is copied; no sub-condition beside it.
	for _, c := range cv.Status.Conditions {
		if c.Type != configv1.OperatorUpgradeable && strings.HasPrefix(string(c.Type), "Upgradeable") {
			t.Errorf("sub-condition %s beside a single failing check", c.Type)
		}
	}
	h.waitEvent("the CVO records the change", func(e Event) bool {
		return e.Actor == "cvo" && e.Reason == "UpgradeableChanged" && e.Message == "Upgradeable=False AdminAckRequired"
	})

	h.setAck(gate44, "true")
	h.waitUpgradeable(configv1.ConditionTrue, "", "")
}

func TestUpgradeableAckedGateIsUpgradeable(t *testing.T) {
	f := runningCVOFixture()
	adminGateConfigMaps(f, map[string]string{gate44: gate44Desc}, map[string]string{gate44: "true"})
	h := newHarness(t, f, Options{}, false)
	h.waitUpgradeable(configv1.ConditionTrue, "", "")
	h.waitEvent("the CVO records Upgradeable=True", func(e Event) bool {
		return e.Actor == "cvo" && e.Reason == "UpgradeableChanged" && e.Message == "Upgradeable=True "
	})
}

func TestUpgradeableMissingAdminAcksConfigMap(t *testing.T) {
	f := runningCVOFixture()
	adminGateConfigMaps(f, map[string]string{gate44: gate44Desc}, nil)
	h := newHarness(t, f, Options{}, false)
	h.waitUpgradeable(configv1.ConditionFalse, "UnableToAccessAdminAcksConfigMap", "admin-acks configmap not found.")
}

func TestUpgradeableAdminAckGateNameError(t *testing.T) {
	f := runningCVOFixture()
	adminGateConfigMaps(f, map[string]string{badGate: "whatever"}, map[string]string{})
	h := newHarness(t, f, Options{}, false)
	h.waitUpgradeable(configv1.ConditionFalse, "AdminAckConfigMapGateNameError",
		`admin-gates configmap gate name ack-4.4--double-dash has invalid format; must comply with "^ack-[4-5][.]([0-9]{1,})-[^-]".`)
}

func TestUpgradeableAdminAckSeveralReasonsInOneCheck(t *testing.T) {
	// Within the admin-ack check, a bad name and an unacked gate are one
	// condition, MultipleReasons, its messages sorted by text: the description
	// ("Kubernetes ...") before the name error ("admin-gates ...").
	f := runningCVOFixture()
	adminGateConfigMaps(f, map[string]string{badGate: "whatever", gate44: gate44Desc}, map[string]string{})
	h := newHarness(t, f, Options{}, false)
	h.waitUpgradeable(configv1.ConditionFalse, "MultipleReasons",
		gate44Desc+` admin-gates configmap gate name ack-4.4--double-dash has invalid format; must comply with "^ack-[4-5][.]([0-9]{1,})-[^-]".`)
}

// setUnmanagedOverride puts one unmanaged override into ClusterVersion spec.
func (h *harness) setUnmanagedOverride() {
	h.t.Helper()
	cvs := h.sim.config.ConfigV1().ClusterVersions()
	if err := retryConflict(h.ctx, func() error {
		cv, err := cvs.Get(h.ctx, openshift.ClusterVersionName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cv.Spec.Overrides = []configv1.ComponentOverride{{Kind: "Deployment", Group: "apps", Namespace: "openshift-sample", Name: "sample-operator", Unmanaged: true}}
		_, err = cvs.Update(h.ctx, cv, metav1.UpdateOptions{})
		return err
	}); err != nil {
		h.t.Fatal(err)
	}
}

const overridesMessage = "Disabling ownership via cluster version overrides prevents upgrades between minor or major versions. Please remove overrides before requesting a minor or major version update."

func TestUpgradeableOverridesSet(t *testing.T) {
	h := newHarness(t, runningCVOFixture(), Options{}, true)
	h.setUnmanagedOverride()
	h.start()
	h.waitUpgradeable(configv1.ConditionFalse, "ClusterVersionOverridesSet", overridesMessage)
}

func TestUpgradeableMultipleReasons(t *testing.T) {
	// Two failing checks: MultipleReasons in the CVO's check order (overrides,
	// admin acks, cluster operators), each check's own condition beside it.
	f := runningCVOFixture()
	adminGateConfigMaps(f, map[string]string{gate44: gate44Desc}, map[string]string{})
	h := newHarness(t, f, Options{}, true)
	h.setUnmanagedOverride()
	h.start()
	cv := h.waitUpgradeable(configv1.ConditionFalse, "MultipleReasons",
		"Cluster should not be upgraded between minor or major versions for multiple reasons: ClusterVersionOverridesSet,AdminAckRequired\n* "+
			overridesMessage+"\n* "+gate44Desc)
	for typ, want := range map[configv1.ClusterStatusConditionType]string{
		"UpgradeableClusterVersionOverrides": "ClusterVersionOverridesSet",
		"UpgradeableAdminAckRequired":        "AdminAckRequired",
	} {
		if c := findCondition(cv.Status.Conditions, typ); c == nil || c.Status != configv1.ConditionFalse || c.Reason != want {
			t.Errorf("%s: %+v, want False %s", typ, c, want)
		}
	}

	// Acked, one check is left: copied, and the sub-conditions go.
	h.setAck(gate44, "true")
	cv = h.waitUpgradeable(configv1.ConditionFalse, "ClusterVersionOverridesSet", overridesMessage)
	for _, typ := range []configv1.ClusterStatusConditionType{"UpgradeableClusterVersionOverrides", "UpgradeableAdminAckRequired"} {
		if c := findCondition(cv.Status.Conditions, typ); c != nil {
			t.Errorf("%s left behind: %+v", typ, c)
		}
	}
}

// Pure: the cluster-operator check's texts, and no check on an empty history.
func TestUpgradeableClusterOperatorsMessages(t *testing.T) {
	co := func(name, reason, msg string) configv1.ClusterOperator {
		return configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: configv1.ClusterOperatorStatus{Conditions: []configv1.ClusterOperatorStatusCondition{
			{Type: configv1.OperatorUpgradeable, Status: configv1.ConditionFalse, Reason: reason, Message: msg}}}}
	}
	one := clusterOperatorsUpgradeable([]configv1.ClusterOperator{co("machine-config", "DegradedPool", "One or more machine config pools are degraded")})
	if one == nil || one.Reason != "DegradedPool" || one.Message != "Cluster operator machine-config should not be upgraded between minor or major versions: One or more machine config pools are degraded" {
		t.Errorf("one operator: %+v", one)
	}
	two := clusterOperatorsUpgradeable([]configv1.ClusterOperator{co("network", "R2", "m2"), co("dns", "R1", "m1")})
	want := "Multiple cluster operators should not be upgraded between minor or major versions:\n* Cluster operator dns should not be upgraded between minor or major versions: R1: m1\n* Cluster operator network should not be upgraded between minor or major versions: R2: m2"
	if two == nil || two.Reason != "ClusterOperatorsNotUpgradeable" || two.Message != want {
		t.Errorf("two operators: %+v", two)
	}
	if _, ok := currentMinor(&configv1.ClusterVersion{}); ok {
		t.Error("an empty history has a current version")
	}
	for _, c := range []struct {
		a, b string
		same bool
	}{{"4.18.9", "4.19.0", false}, {"4.4.3", "4.4.4", true}, {"4.18.9", "5.18.0", false}} {
		if got := sameMinor(c.a, c.b); got != c.same {
			t.Errorf("sameMinor(%s, %s) = %v", c.a, c.b, got)
		}
	}
}

func TestUpgradeableMultipleReasonsInCheckOrder(t *testing.T) {
	// Three failing checks: the reasons in the CVO's order, cluster operators
	// last, whatever order the sub-conditions' types sort in.
	f := runningCVOFixture()
	adminGateConfigMaps(f, map[string]string{gate44: gate44Desc}, map[string]string{})
	var dns testOperator
	for _, o := range testOperators {
		if o.co == "dns" {
			dns = o
		}
	}
	now := metav1.Now()
	f.extra["cluster-scoped-resources/config.openshift.io/clusteroperators/dns.yaml"] = &configv1.ClusterOperator{
		TypeMeta:   metav1.TypeMeta{APIVersion: "config.openshift.io/v1", Kind: "ClusterOperator"},
		ObjectMeta: metav1.ObjectMeta{Name: "dns"},
		Status: configv1.ClusterOperatorStatus{
			Versions: dns.versions(oldVersion, oldKube),
			Conditions: []configv1.ClusterOperatorStatusCondition{
				{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, Reason: "AsExpected", LastTransitionTime: now},
				{Type: configv1.OperatorProgressing, Status: configv1.ConditionFalse, Reason: "AsExpected", LastTransitionTime: now},
				{Type: configv1.OperatorDegraded, Status: configv1.ConditionFalse, Reason: "AsExpected", LastTransitionTime: now},
				{Type: configv1.OperatorUpgradeable, Status: configv1.ConditionFalse, Reason: "DNSHeld", Message: "held for the test", LastTransitionTime: now},
			},
		},
	}
	h := newHarness(t, f, Options{}, true)
	h.setUnmanagedOverride()
	h.start()
	cv := h.waitUpgradeable(configv1.ConditionFalse, "MultipleReasons",
		"Cluster should not be upgraded between minor or major versions for multiple reasons: ClusterVersionOverridesSet,AdminAckRequired,DNSHeld\n* "+
			overridesMessage+"\n* "+gate44Desc+"\n* Cluster operator dns should not be upgraded between minor or major versions: held for the test")
	if c := findCondition(cv.Status.Conditions, "UpgradeableClusterOperators"); c == nil || c.Reason != "DNSHeld" {
		t.Errorf("UpgradeableClusterOperators: %+v", c)
	}
}
