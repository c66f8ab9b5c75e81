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
// does (pkg/cvo/upgradeable.go; docs/wedge-sources.md §4 and §5), and the
// precondition that holds a minor update while it is False: each check
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

// upgradeableChecks runs the CVO's checks in its order (defaultUpgradeableChecks):
// overrides, admin acks, cluster operators. The order is the order of the
// reasons in a MultipleReasons message.
func (c *cvo) upgradeableChecks(ctx context.Context, cv *configv1.ClusterVersion) ([]upgradeableCheck, error) {
	var out []upgradeableCheck
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
	cos, err := c.s.config.ConfigV1().ClusterOperators().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	if chk := clusterOperatorsUpgradeable(cos.Items); chk != nil {
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
	// No current version yet (early start-up, empty history): the CVO checks
	// nothing, not even the gates' names.
	minor, ok := currentMinor(cv)
	if !ok {
		return nil, nil
	}
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
			Message: fmt.Sprintf("%s configmap not found.", openshift.AdminAcksConfigMap)}, nil
	}
	if err != nil {
		return nil, err
	}
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
	// Each reason's messages sorted and joined; several reasons give
	// MultipleReasons with those joined messages sorted again, by text.
	reasons := sortedKeys(byReason)
	var msgs []string
	for _, r := range reasons {
		sort.Strings(byReason[r])
		msgs = append(msgs, strings.Join(byReason[r], " "))
	}
	reason := reasons[0]
	if len(reasons) > 1 {
		reason = reasonMultipleReasons
		sort.Strings(msgs)
	}
	return &upgradeableCheck{Type: upgradeableAdminAckRequired, Reason: reason, Message: strings.Join(msgs, " ")}, nil
}

// currentMinor is the minor of the CVO's current version (GetCurrentVersion:
// the newest Completed history entry, else the oldest entry), as text; false
// when the history is empty.
func currentMinor(cv *configv1.ClusterVersion) (string, bool) {
	v, ok := currentVersion(cv)
	return minorOf(v), ok
}

// currentVersion is GetCurrentVersion: the newest Completed history entry's
// version, else the oldest entry's; false when the history is empty.
func currentVersion(cv *configv1.ClusterVersion) (string, bool) {
	h := cv.Status.History
	if len(h) == 0 {
		return "", false
	}
	for _, e := range h {
		if e.State == configv1.CompletedUpdate {
			return e.Version, true
		}
	}
	return h[len(h)-1].Version, true
}

// minorOf is a version's minor (getEffectiveMinor): "18" for 4.18.9, "" when
// there is none.
func minorOf(v string) string {
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
// It returns the Upgradeable condition it computed, nil when it could not.
func (c *cvo) syncUpgradeable(ctx context.Context) *conditionUpdate {
	var summary string
	var up *conditionUpdate
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
		up = &u
		summary = fmt.Sprintf("Upgradeable=%s %s", u.Status, u.Reason)
		return changed
	})
	if err != nil {
		return nil
	}
	if changed {
		c.s.rec.record("cvo", "UpgradeableChanged", "ClusterVersion "+openshift.ClusterVersionName, summary, nil)
	}
	return up
}

// upgradeablePrecondition is the CVO's ClusterVersionUpgradeable precondition
// (pkg/payload/precondition/clusterversion/upgradeable.go): an update to another
// minor (or major) of the current version, not forced, is refused while
// Upgradeable=False. It evaluates Upgradeable afresh (writing it) and returns the
// precondition's failure, "" when the update may go on.
func (c *cvo) upgradeablePrecondition(ctx context.Context, cv *configv1.ClusterVersion, rel *Release) string {
	if du := cv.Spec.DesiredUpdate; du != nil && du.Force {
		return ""
	}
	cur, ok := currentVersion(cv)
	if !ok || sameMinor(cur, rel.Version) {
		return ""
	}
	u := c.syncUpgradeable(ctx)
	if u == nil || u.Status != configv1.ConditionFalse {
		return ""
	}
	return fmt.Sprintf("Precondition %q failed because of %q: %v", "ClusterVersionUpgradeable", u.Reason, u.Message)
}

// sameMinor reports whether two versions share major and minor.
func sameMinor(a, b string) bool {
	pa, pb := strings.SplitN(a, ".", 3), strings.SplitN(b, ".", 3)
	return len(pa) >= 2 && len(pb) >= 2 && pa[0] == pb[0] && pa[1] == pb[1]
}
