package kubetest_test

import (
	"context"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

// TestForTestHandsTheNextTestAWipedCluster: what one test leaves in its
// cluster (a namespace with a pod and a finalizer-held config map, a
// ClusterVersion, a node, a ClusterRole, a CRD with a custom resource that
// carries a finalizer) is gone when the next test gets the same cluster, and a
// cluster whose baseline a test changed (the default namespace, a CRD Fresh
// installs) is not handed out again.
func TestForTestHandsTheNextTestAWipedCluster(t *testing.T) {
	kubetest.Require(t, env)
	// The parent of the subtests, so that their clusters do not go to other
	// tests of the package.
	parent, err := env.Fresh()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(parent.Stop)
	ctx := context.Background()

	var first string
	t.Run("leaves objects behind", func(t *testing.T) {
		c := parent.ForTest(t)
		first = c.Config.Host
		kube := kubernetes.NewForConfigOrDie(c.Config)
		if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "left"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := kube.CoreV1().ConfigMaps("left").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "held", Finalizers: []string{"example.com/hold"}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{{Name: "c", Image: "x"}}}}
		if _, err := kube.CoreV1().Pods("left").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := kube.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := kube.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "left"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := configclient.NewForConfigOrDie(c.Config).ConfigV1().ClusterVersions().Create(ctx, &configv1.ClusterVersion{ObjectMeta: metav1.ObjectMeta{Name: "version"}, Spec: configv1.ClusterVersionSpec{ClusterID: "6d1f7d32-6a1f-4c43-9d4c-3a4a1f0c1c1a"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
				Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true, Schema: &apiextensionsv1.CustomResourceValidation{
					OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)},
				}}},
			},
		}
		if err := kubetest.InstallCRDs(ctx, c.Config, []*apiextensionsv1.CustomResourceDefinition{crd}); err != nil {
			t.Fatal(err)
		}
		w := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w", "finalizers": []any{"example.com/hold"}}}}
		if _, err := dynamic.NewForConfigOrDie(c.Config).Resource(widgets).Namespace("left").Create(ctx, w, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	if t.Failed() {
		return
	}
	t.Run("gets the cluster wiped", func(t *testing.T) {
		c := parent.ForTest(t)
		if c.Config.Host != first {
			t.Fatalf("the second test got a new cluster (%s), not the first one wiped (%s)", c.Config.Host, first)
		}
		kube := kubernetes.NewForConfigOrDie(c.Config)
		for what, err := range map[string]error{
			"namespace left":       get(kube.CoreV1().Namespaces().Get(ctx, "left", metav1.GetOptions{})),
			"config map left/held": get(kube.CoreV1().ConfigMaps("left").Get(ctx, "held", metav1.GetOptions{})),
			"pod left/p":           get(kube.CoreV1().Pods("left").Get(ctx, "p", metav1.GetOptions{})),
			"node n1":              get(kube.CoreV1().Nodes().Get(ctx, "n1", metav1.GetOptions{})),
			"cluster role left":    get(kube.RbacV1().ClusterRoles().Get(ctx, "left", metav1.GetOptions{})),
			"cluster version":      get(configclient.NewForConfigOrDie(c.Config).ConfigV1().ClusterVersions().Get(ctx, "version", metav1.GetOptions{})),
			"widget left/w":        get(dynamic.NewForConfigOrDie(c.Config).Resource(widgets).Namespace("left").Get(ctx, "w", metav1.GetOptions{})),
		} {
			if !apierrors.IsNotFound(err) {
				t.Errorf("%s: still there after the wipe (err %v)", what, err)
			}
		}
		// The baseline is whole: the OpenShift CRDs Fresh installs are
		// served, as Fresh installed them.
		config := configclient.NewForConfigOrDie(c.Config).ConfigV1()
		if _, err := config.ClusterOperators().List(ctx, metav1.ListOptions{}); err != nil {
			t.Errorf("ClusterOperators are not served after the wipe: %v", err)
		}
		// Change what the baseline holds: the cluster must not be reused.
		ns, err := kube.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ns.Labels = map[string]string{"changed": "by-a-test"}
		if _, err := kube.CoreV1().Namespaces().Update(ctx, ns, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	var second string
	t.Run("never gets a changed cluster", func(t *testing.T) {
		c := parent.ForTest(t)
		second = c.Config.Host
		if second == first {
			t.Fatalf("got the cluster whose default namespace a test changed (%s)", first)
		}
		ns, err := kubernetes.NewForConfigOrDie(c.Config).CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if ns.Labels["changed"] != "" {
			t.Errorf("the new cluster's default namespace carries the change: %v", ns.Labels)
		}
		// Change a CRD Fresh installs, as a payload's newer CRD does.
		ext := apiextensionsclient.NewForConfigOrDie(c.Config).ApiextensionsV1().CustomResourceDefinitions()
		co, err := ext.Get(ctx, "clusteroperators.config.openshift.io", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		co.Spec.Versions[0].AdditionalPrinterColumns = append(co.Spec.Versions[0].AdditionalPrinterColumns, apiextensionsv1.CustomResourceColumnDefinition{Name: "Added", Type: "string", JSONPath: ".metadata.name"})
		if _, err := ext.Update(ctx, co, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("never gets a cluster whose CRD changed", func(t *testing.T) {
		c := parent.ForTest(t)
		if c.Config.Host == second {
			t.Fatalf("got the cluster whose ClusterOperator CRD a test changed (%s)", second)
		}
		co, err := apiextensionsclient.NewForConfigOrDie(c.Config).ApiextensionsV1().CustomResourceDefinitions().Get(ctx, "clusteroperators.config.openshift.io", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if n, want := len(co.Spec.Versions[0].AdditionalPrinterColumns), len(fresh(t).Spec.Versions[0].AdditionalPrinterColumns); n != want {
			t.Errorf("the new cluster's ClusterOperator CRD has %d printer columns, want Fresh's %d", n, want)
		}
	})
}

// fresh returns the ClusterOperator CRD as Fresh installs it.
func fresh(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crds, err := kubetest.LoadOpenShiftCRDs()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range crds {
		if c.Name == "clusteroperators.config.openshift.io" {
			return c
		}
	}
	t.Fatal("no ClusterOperator CRD among the OpenShift CRDs")
	return nil
}

var widgets = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

func get[T any](_ T, err error) error { return err }
