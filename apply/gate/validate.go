package gate

import (
	"fmt"

	"github.com/openshift-recover/recover/plan"
)

// Validate checks, without the cluster, that a remediation gate carries what
// its kind needs (the other kinds are checked when they run, as before).
func Validate(g *plan.Gate) error {
	switch g.Kind {
	case plan.GateNodesSettled, plan.GateNodesReady:
		if len(g.Nodes) == 0 {
			return fmt.Errorf("%s gate needs nodes", g.Kind)
		}
	case plan.GateCSRIssued:
		if g.Object == nil || g.Object.Name == "" {
			return fmt.Errorf("csr-issued gate needs object.name (the CertificateSigningRequest)")
		}
	case plan.GateConditionCleared:
		if g.Object == nil || g.Object.Name == "" || g.Condition == "" {
			return fmt.Errorf("condition-cleared gate needs object (a ClusterVersion or ClusterOperator) and condition")
		}
		if g.Object.Kind != "ClusterVersion" && g.Object.Kind != "ClusterOperator" {
			return fmt.Errorf("condition-cleared gate: object kind %q is neither ClusterVersion nor ClusterOperator", g.Object.Kind)
		}
	}
	return nil
}
