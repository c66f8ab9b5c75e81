package verdictstore_test

import (
	"testing"

	"k8s.io/client-go/kubernetes"

	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

var env *kubetest.Env

func TestMain(m *testing.M) {
	kubetest.Main(m, kubetest.Options{}, &env)
}

// client returns an admin client of the package's real API server.
func client(t *testing.T) kubernetes.Interface {
	t.Helper()
	kubetest.Require(t, env)
	c, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
