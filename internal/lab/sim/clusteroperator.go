package sim

import (
	"context"
	"fmt"
	"slices"
	"sync"

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

// setClusterOperatorCondition sets cond on ClusterOperator name unless it
// already holds it (same status, reason and message); it reports whether it
// wrote.
func (s *Sim) setClusterOperatorCondition(ctx context.Context, name string, cond conditionUpdate) (bool, error) {
	changed := false
	err := s.updateClusterOperator(ctx, name, func(co *configv1.ClusterOperator) bool {
		if c := findCondition(co.Status.Conditions, cond.Type); c != nil && c.Status == cond.Status && c.Reason == cond.Reason && c.Message == cond.Message {
			return false
		}
		setCondition(&co.Status.Conditions, cond)
		changed = true
		return true
	})
	return changed, err
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

// ownDegraded holds, per ClusterOperator, the Degraded condition its fake
// operator reports for a reason of its own (RequiredPoolsFailed,
// NodeInstaller_InstallerPodFailed), as opposed to an injected fault.
type ownDegraded struct {
	mu    sync.Mutex
	conds map[string]conditionUpdate
}

// set records co's own Degraded condition (nil clears it) and reports whether it
// changed.
func (o *ownDegraded) set(co string, c *conditionUpdate) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	old, had := o.conds[co]
	if c == nil {
		delete(o.conds, co)
		return had
	}
	o.conds[co] = *c
	return !had || old != *c
}

func (o *ownDegraded) get(co string) (conditionUpdate, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	c, ok := o.conds[co]
	return c, ok
}

// writeDegraded sets the ClusterOperator's Degraded condition to what
// degradedCondition says now and records the change.
func (op *operator) writeDegraded(ctx context.Context) error {
	name := op.spec.ClusterOperator
	cond := op.s.degradedCondition(name)
	changed := false
	err := op.s.updateClusterOperator(ctx, name, func(co *configv1.ClusterOperator) bool {
		if c := findCondition(co.Status.Conditions, configv1.OperatorDegraded); c != nil && c.Status == cond.Status && c.Reason == cond.Reason && c.Message == cond.Message {
			return false
		}
		setCondition(&co.Status.Conditions, cond)
		changed = true
		return true
	})
	if err == nil && changed {
		op.s.rec.record(op.actor, "Degraded", "ClusterOperator "+name, string(cond.Status)+": "+cond.Message, nil)
	}
	return err
}

// adoptDegraded takes over, once, a Degraded condition the must-gather shows for
// one of the operator's own reasons, so that the operator clears it when the
// cause is gone (and not before).
func (op *operator) adoptDegraded(ctx context.Context, reasons ...string) {
	op.mu.Lock()
	done := op.adopted
	op.adopted = true
	op.mu.Unlock()
	if done {
		return
	}
	co, err := op.s.config.ConfigV1().ClusterOperators().Get(ctx, op.spec.ClusterOperator, metav1.GetOptions{})
	if err != nil {
		return
	}
	c := findCondition(co.Status.Conditions, configv1.OperatorDegraded)
	if c == nil || c.Status != configv1.ConditionTrue || !slices.Contains(reasons, c.Reason) {
		return
	}
	op.s.own.set(op.spec.ClusterOperator, &conditionUpdate{Type: configv1.OperatorDegraded, Status: configv1.ConditionTrue, Reason: c.Reason, Message: c.Message})
}

// degradedCondition is the Degraded condition an operator reports, given the
// active faults and its own reasons.
func (s *Sim) degradedCondition(co string) conditionUpdate {
	if c, ok := s.own.get(co); ok {
		if _, fault := s.faults.find(FaultDegraded, co, ""); !fault {
			return c
		}
	}
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
