package sim

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	configv1 "github.com/openshift/api/config/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/internal/openshift"
)

// The fake CVO's Upgradeable condition, computed as the CVO up to release-4.22
// does (pkg/cvo/upgradeable.go; docs/wedge-sources.md §4 and §5): each check
// either passes or says why a minor update must wait; one failing check is
// copied into ClusterVersion's Upgradeable=False, several give MultipleReasons
// with each check's own Upgradeable<Check> condition beside it, none gives
// Upgradeable=True.

// upgradeableCheck is one failing check: its sub-condition type, reason and
// message.
type upgradeableCheck struct {
	Type    configv1.ClusterStatusConditionType
	Reason  string
	Message string
}

// The checks' sub-condition types (pkg/cvo/upgradeable.go).
const (
	upgradeablePrefix              = "Upgradeable"
	upgradeableClusterOperators    = "UpgradeableClusterOperators"
	upgradeableOverrides           = "UpgradeableClusterVersionOverrides"
	upgradeableAdminAckRequired    = "UpgradeableAdminAckRequired"
	reasonMultipleReasons          = "MultipleReasons"
	reasonAdminAckGateNameError    = "AdminAckConfigMapGateNameError"
	reasonAdminAckGateValueError   = "AdminAckConfigMapGateValueError"
	reasonUnableToAccessAdminAcks  = "UnableToAccessAdminAcksConfigMap"
	clusterVersionOverridesMessage = "Disabling ownership via cluster version overrides prevents upgrades between minor or major versions. Please remove overrides before requesting a minor or major version update."
)

// adminAckGateRE is the CVO's gate key pattern; its group is the minor.
var adminAckGateRE = regexp.MustCompile(openshift.AdminAckGatePattern)

// upgradeableChecks runs the CVO's checks in its order: cluster operators,
// overrides, admin acks.
func (c *cvo) upgradeableChecks(ctx context.Context, cv *configv1.ClusterVersion) ([]upgradeableCheck, error) {
	var out []upgradeableCheck
	cos, err := c.s.config.ConfigV1().ClusterOperators().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	if chk := clusterOperatorsUpgradeable(cos.Items); chk != nil {
		out = append(out, *chk)
	}
	for _, o := range cv.Spec.Overrides {
		if o.Unmanaged {
			out = append(out, upgradeableCheck{Type: upgradeableOverrides, Reason: openshift.ReasonClusterVersionOverrides, Message: clusterVersionOverridesMessage})
			break
		}
	}
	chk, err := c.adminAcksUpgradeable(ctx, cv)
	if err != nil {
		return nil, err
	}
	if chk != nil {
		out = append(out, *chk)
	}
	return out, nil
}

// clusterOperatorsUpgradeable is clusterOperatorsUpgradeable: one operator
// with Upgradeable=False lends its reason; several are
// ClusterOperatorsNotUpgradeable.
func clusterOperatorsUpgradeable(cos []configv1.ClusterOperator) *upgradeableCheck {
	type notUp struct{ name, reason, message string }
	var not []notUp
	for _, co := range cos {
		if u := findCondition(co.Status.Conditions, configv1.OperatorUpgradeable); u != nil && u.Status == configv1.ConditionFalse {
			not = append(not, notUp{co.Name, u.Reason, u.Message})
		}
	}
	sort.Slice(not, func(i, j int) bool { return not[i].name < not[j].name })
	switch len(not) {
	case 0:
		return nil
	case 1:
		return &upgradeableCheck{Type: upgradeableClusterOperators, Reason: not[0].reason,
			Message: fmt.Sprintf("Cluster operator %s should not be upgraded between minor or major versions: %s", not[0].name, not[0].message)}
	}
	var items []string
	for _, n := range not {
		items = append(items, fmt.Sprintf("Cluster operator %s should not be upgraded between minor or major versions: %s: %s", n.name, n.reason, n.message))
	}
	return &upgradeableCheck{Type: upgradeableClusterOperators, Reason: openshift.ReasonClusterOperatorsNotUpgradable,
		Message: "Multiple cluster operators should not be upgraded between minor or major versions:\n* " + strings.Join(items, "\n* ")}
}

// adminAcksUpgradeable is clusterAdminAcksCompletedUpgradeable: every gate of
// openshift-config-managed/admin-gates whose minor is the current version's
// (the newest Completed history entry, else the oldest) must have "true" in
// openshift-config/admin-acks. A cluster without the admin-gates ConfigMap is
// taken for a CVO from before admin gates (4.8), which has no such check: the
// simulator's 4.4 scenarios do not carry it unless they are about it.
func (c *cvo) adminAcksUpgradeable(ctx context.Context, cv *configv1.ClusterVersion) (*upgradeableCheck, error) {
	cms := c.s.kube.CoreV1()
	gates, err := cms.ConfigMaps(openshift.AdminGatesNamespace).Get(ctx, openshift.AdminGatesConfigMap, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	acks, err := cms.ConfigMaps(openshift.AdminAcksNamespace).Get(ctx, openshift.AdminAcksConfigMap, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return &upgradeableCheck{Type: upgradeableAdminAckRequired, Reason: reasonUnableToAccessAdminAcks,
			Message: fmt.Sprintf("%s/%s configmap not found.", openshift.AdminAcksNamespace, openshift.AdminAcksConfigMap)}, nil
	}
	if err != nil {
		return nil, err
	}
	minor := currentMinor(cv)
	byReason := map[string][]string{}
	for _, key := range sortedKeys(gates.Data) {
		m := adminAckGateRE.FindStringSubmatch(key)
		switch {
		case m == nil:
			byReason[reasonAdminAckGateNameError] = append(byReason[reasonAdminAckGateNameError],
				fmt.Sprintf("%s configmap gate name %s has invalid format; must comply with %q.", openshift.AdminGatesConfigMap, key, openshift.AdminAckGatePattern))
		case m[1] != minor:
			// Not for updates away from the current minor.
		case gates.Data[key] == "":
			byReason[reasonAdminAckGateValueError] = append(byReason[reasonAdminAckGateValueError],
				fmt.Sprintf("%s configmap gate %s must contain a non-empty value.", openshift.AdminGatesConfigMap, key))
		case acks.Data[key] != "true":
			byReason[openshift.ReasonAdminAckRequired] = append(byReason[openshift.ReasonAdminAckRequired], gates.Data[key])
		}
	}
	if len(byReason) == 0 {
		return nil, nil
	}
	reasons := sortedKeys(byReason)
	var msgs []string
	for _, r := range reasons {
		sort.Strings(byReason[r])
		msgs = append(msgs, strings.Join(byReason[r], " "))
	}
	reason := reasons[0]
	if len(reasons) > 1 {
		reason = reasonMultipleReasons
	}
	return &upgradeableCheck{Type: upgradeableAdminAckRequired, Reason: reason, Message: strings.Join(msgs, " ")}, nil
}

// currentMinor is the minor of the CVO's current version (GetCurrentVersion:
// the newest Completed history entry, else the oldest entry), as text.
func currentMinor(cv *configv1.ClusterVersion) string {
	h := cv.Status.History
	if len(h) == 0 {
		return ""
	}
	v := h[len(h)-1].Version
	for _, e := range h {
		if e.State == configv1.CompletedUpdate {
			v = e.Version
			break
		}
	}
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return ""
	}
	return parts[1]
}

// upgradeableConditions turns the failing checks into ClusterVersion's
// conditions (setUpgradeableConditions): Upgradeable, plus each check's own
// condition when more than one fails.
func upgradeableConditions(checks []upgradeableCheck) []conditionUpdate {
	switch len(checks) {
	case 0:
		return []conditionUpdate{{Type: configv1.OperatorUpgradeable, Status: configv1.ConditionTrue}}
	case 1:
		return []conditionUpdate{{Type: configv1.OperatorUpgradeable, Status: configv1.ConditionFalse, Reason: checks[0].Reason, Message: checks[0].Message}}
	}
	var out []conditionUpdate
	var reasons, msgs []string
	for _, chk := range checks {
		out = append(out, conditionUpdate{Type: chk.Type, Status: configv1.ConditionFalse, Reason: chk.Reason, Message: chk.Message})
		reasons = append(reasons, chk.Reason)
		msgs = append(msgs, chk.Message)
	}
	return append(out, conditionUpdate{Type: configv1.OperatorUpgradeable, Status: configv1.ConditionFalse, Reason: reasonMultipleReasons,
		Message: fmt.Sprintf("Cluster should not be upgraded between minor or major versions for multiple reasons: %s\n* %s", strings.Join(reasons, ","), strings.Join(msgs, "\n* "))})
}

// syncUpgradeable evaluates the checks and writes ClusterVersion's Upgradeable
// conditions when they change, removing the sub-conditions of checks that pass.
func (c *cvo) syncUpgradeable(ctx context.Context) {
	var summary string
	changed := false
	_, err := c.updateClusterVersionStatus(ctx, func(cv *configv1.ClusterVersion) bool {
		checks, err := c.upgradeableChecks(ctx, cv)
		if err != nil {
			return false
		}
		want := upgradeableConditions(checks)
		keep := map[configv1.ClusterStatusConditionType]bool{}
		changed = false
		for _, u := range want {
			keep[u.Type] = true
			if cur := findCondition(cv.Status.Conditions, u.Type); cur == nil || cur.Status != u.Status || cur.Reason != u.Reason || cur.Message != u.Message {
				setCondition(&cv.Status.Conditions, u)
				changed = true
			}
		}
		conds := cv.Status.Conditions[:0]
		for _, cond := range cv.Status.Conditions {
			if strings.HasPrefix(string(cond.Type), upgradeablePrefix) && !keep[cond.Type] {
				changed = true
				continue
			}
			conds = append(conds, cond)
		}
		cv.Status.Conditions = conds
		u := want[len(want)-1]
		summary = fmt.Sprintf("Upgradeable=%s %s", u.Status, u.Reason)
		return changed
	})
	if err == nil && changed {
		c.s.rec.record("cvo", "UpgradeableChanged", "ClusterVersion "+openshift.ClusterVersionName, summary, nil)
	}
}
