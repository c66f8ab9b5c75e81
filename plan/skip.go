package plan

import (
	"fmt"
	"strings"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan/planfile"
)

// OperatorAtTarget is the planner's skip rule for one ClusterOperator manifest:
// the snapshot verifies the operator at the versions the target's manifest
// declares, so the plan leaves the component's manifests out.
//
// It holds exactly when the gates the skipped steps would have carried pass on
// the same state (inspect.OperatorAt for the cluster-operator gate,
// inspect.StaticPodsAt on every control-plane node for a static-pod operator's
// static-pods gate) and, beyond them, the snapshot verifies what the gates take
// on the operator's word: its Deployment runs the target and has rolled out, and
// every mirror pod runs the operator's operand image. The property test in
// apply/gate holds the planner and the gates to that. why says what is not there.
func OperatorAtTarget(s *inspect.Snapshot, name string, declared []planfile.OperandVersion) (bool, string) {
	if len(declared) == 0 {
		// Nothing says which version the operator should run: its manifests
		// are applied and its gate waits on its conditions.
		return false, fmt.Sprintf("the target's manifest of clusteroperator/%s declares no versions", name)
	}
	co := s.ClusterOperator(name)
	if co == nil {
		return false, fmt.Sprintf("clusteroperator/%s does not exist yet", name)
	}
	want := make([]configv1.OperandVersion, 0, len(declared))
	for _, d := range declared {
		want = append(want, configv1.OperandVersion{Name: d.Name, Version: d.Version})
	}
	gate := inspect.OperatorAt(co, want)
	if c := co.Condition(configv1.OperatorAvailable); c == nil || c.Status != configv1.ConditionTrue {
		return false, fmt.Sprintf("clusteroperator/%s is not Available", name)
	}
	switch c := co.Condition(configv1.OperatorDegraded); {
	case c == nil:
		return false, fmt.Sprintf("clusteroperator/%s reports no Degraded condition, which the CVO counts as Degraded", name)
	case c.Status != configv1.ConditionFalse:
		return false, fmt.Sprintf("clusteroperator/%s is Degraded", name)
	}
	// The evidence beyond the operator's word, in the manifest's order.
	for _, d := range declared {
		switch sp := inspect.StaticPodComponentFor(d.Name); {
		case d.Name == "operator":
			vf := s.OperatorVersion(name)
			if vf.Verified != d.Version {
				return false, fmt.Sprintf("clusteroperator/%s runs %s", name, versionEvidence(vf))
			}
		case sp != nil && sp.ClusterOperator == name && sp.Component == d.Name:
			vf := s.OperandVersion(d.Name)
			if vf.Verified != d.Version {
				return false, fmt.Sprintf("its operand %s is %s", d.Name, versionEvidence(vf))
			}
		default:
			if co.Version(d.Name) != d.Version {
				return false, fmt.Sprintf("clusteroperator/%s reports %s %q, not %s", name, d.Name, co.Version(d.Name), d.Version)
			}
		}
	}
	if !gate.OK {
		// What the cluster-operator gate would still wait for: a version the
		// operator does not report yet, whatever its Deployment runs.
		return false, fmt.Sprintf("clusteroperator/%s reports %s", name, gate)
	}
	if sp := inspect.StaticPodComponentFor(name); sp != nil && sp.ClusterOperator == name {
		if why := staticPodsBehind(s, sp); why != "" {
			return false, why
		}
	}
	return true, ""
}

// staticPodsBehind says why a static-pod operand is not verified at the latest
// revision on every control-plane node ("" when it is): what its static-pods
// gate (inspect.StaticPodsAt) would wait for, and a mirror pod that does not run
// the operator's operand image.
func staticPodsBehind(s *inspect.Snapshot, sp *inspect.StaticPodComponent) string {
	op := s.StaticPodOperator(sp.Component)
	if op == nil || !op.Present {
		return fmt.Sprintf("%s/%s is not in the snapshot, so no mirror pod of %s is verified", sp.Resource.Resource, "cluster", sp.Component)
	}
	// The messages of the common cases name the revisions as they always did.
	for _, t := range op.Truth() {
		switch {
		case t.Mirror == nil:
			return fmt.Sprintf("no %s mirror pod on %s", sp.Component, t.Node)
		case t.Running != op.LatestAvailableRevision:
			return fmt.Sprintf("%s on %s runs revision %d, not the latest %d (nodeStatuses claims %d)", sp.Component, t.Node, t.Running, op.LatestAvailableRevision, t.Claimed)
		}
	}
	if v := inspect.StaticPodsAt(op, s.ControlPlaneNodes(), 0); !v.OK {
		return sp.Component + ": " + strings.Join(v.Pending, "; ")
	}
	for _, in := range s.OperandInstances(sp.Component) {
		if !in.Verified {
			return fmt.Sprintf("%s on %s does not run the operator's operand image", sp.Component, in.Node)
		}
	}
	return ""
}
