package sim

import (
	"context"
	"fmt"

	configv1 "github.com/openshift/api/config/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// conditionUpdate is one ClusterOperator condition to set.
type conditionUpdate struct {
	Type    configv1.ClusterStatusConditionType
	Status  configv1.ConditionStatus
	Reason  string
	Message string
}

// setCondition sets a condition, moving lastTransitionTime only when the status
// changes, as library-go's v1helpers.SetStatusCondition does.
func setCondition(conds *[]configv1.ClusterOperatorStatusCondition, u conditionUpdate) {
	now := metav1.Now()
	for i := range *conds {
		c := &(*conds)[i]
		if c.Type != u.Type {
			continue
		}
		if c.Status != u.Status {
			c.LastTransitionTime = now
		}
		c.Status, c.Reason, c.Message = u.Status, u.Reason, u.Message
		return
	}
	*conds = append(*conds, configv1.ClusterOperatorStatusCondition{Type: u.Type, Status: u.Status, Reason: u.Reason, Message: u.Message, LastTransitionTime: now})
}

// findCondition returns the condition of type t.
func findCondition(conds []configv1.ClusterOperatorStatusCondition, t configv1.ClusterStatusConditionType) *configv1.ClusterOperatorStatusCondition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}

// operatorVersion returns the "operator" entry of a ClusterOperator's versions.
func operatorVersion(co *configv1.ClusterOperator) string {
	for _, v := range co.Status.Versions {
		if v.Name == "operator" {
			return v.Version
		}
	}
	return ""
}

// updateClusterOperator reads the ClusterOperator (creating it when absent, as an
// operator does for its own), lets mutate change its status, and writes the status
// back, retrying on conflicts. mutate reports whether it changed anything.
func (s *Sim) updateClusterOperator(ctx context.Context, name string, mutate func(*configv1.ClusterOperator) bool) error {
	cos := s.config.ConfigV1().ClusterOperators()
	return retryConflict(ctx, func() error {
		co, err := cos.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			co, err = cos.Create(ctx, &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				co, err = cos.Get(ctx, name, metav1.GetOptions{})
			}
		}
		if err != nil {
			return err
		}
		if !mutate(co) {
			return nil
		}
		_, err = cos.UpdateStatus(ctx, co, metav1.UpdateOptions{})
		if err != nil {
			return fmt.Errorf("updating ClusterOperator %s status: %w", name, err)
		}
		return nil
	})
}

// degradedCondition is the Degraded condition an operator reports, given the
// active faults.
func (s *Sim) degradedCondition(co string) conditionUpdate {
	if f, ok := s.faults.find(FaultDegraded, co, ""); ok {
		reason, msg := f.Reason, f.Message
		if reason == "" {
			reason = "SimulatedFault"
		}
		if msg == "" {
			msg = "the simulator injected a degraded fault"
		}
		return conditionUpdate{Type: configv1.OperatorDegraded, Status: configv1.ConditionTrue, Reason: reason, Message: msg}
	}
	return conditionUpdate{Type: configv1.OperatorDegraded, Status: configv1.ConditionFalse, Reason: "AsExpected"}
}
