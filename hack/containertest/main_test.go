package containertest_test

import (
	"testing"

	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

var env *kubetest.Env

// TestMain starts the control plane with the workload controllers: the plan's
// CVO scale-down and its operator's rollout are real Deployments rolling out.
func TestMain(m *testing.M) {
	kubetest.Main(m, kubetest.Options{Workloads: true}, &env)
}
