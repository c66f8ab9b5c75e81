package incluster_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

var env *kubetest.Env

func TestMain(m *testing.M) {
	kubetest.Main(m, kubetest.Options{}, &env)
}

// client returns an admin client of the package's API server and a fresh
// namespace for the test.
func client(t *testing.T) (kubernetes.Interface, string) {
	t.Helper()
	kubetest.Require(t, env)
	c, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	ns, err := c.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "incluster-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c, ns.Name
}
