package releasegen

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"

	"github.com/openshift-recover/recover/internal/testing/kubetest"
	"github.com/openshift-recover/recover/plan/payload"
)

var env *kubetest.Env

func TestMain(m *testing.M) {
	kubetest.Main(m, kubetest.Options{}, &env)
}

// TestExamplePayloadsOnARealAPIServer creates every manifest of both example
// payloads, in the CVO's order, on a real kube-apiserver: the CRDs must become
// Established and every object must pass the server's validation.
func TestExamplePayloadsOnARealAPIServer(t *testing.T) {
	kubetest.Require(t, env)
	for _, v := range []string{"4.4.3", "4.4.4"} {
		t.Run(v, func(t *testing.T) {
			e, err := env.Fresh()
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			p, err := payload.LoadDir(filepath.Join(exampleDir, v), payload.Options{ReleaseImage: Releases[v].Image, Inclusion: payload.Inclusion{FeatureSet: "TechPreviewNoUpgrade"}})
			if err != nil {
				t.Fatal(err)
			}
			var crds []*apiextensionsv1.CustomResourceDefinition
			for _, m := range p.Order.Linear() {
				if m.Kind == "CustomResourceDefinition" {
					crd := &apiextensionsv1.CustomResourceDefinition{}
					if err := json.Unmarshal(m.JSON, crd); err != nil {
						t.Fatalf("%s: %v", m.Position(), err)
					}
					crds = append(crds, crd)
				}
			}
			if err := kubetest.InstallCRDs(ctx, e.Config, crds); err != nil {
				t.Fatal(err)
			}
			dc, err := discovery.NewDiscoveryClientForConfig(e.Config)
			if err != nil {
				t.Fatal(err)
			}
			mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
			dyn, err := dynamic.NewForConfig(e.Config)
			if err != nil {
				t.Fatal(err)
			}
			created := 0
			for _, m := range p.Order.Linear() {
				if m.Kind == "CustomResourceDefinition" {
					continue
				}
				gvk := m.Object.GroupVersionKind()
				mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
				if err != nil {
					t.Fatalf("%s: %v", m.Position(), err)
				}
				var ri dynamic.ResourceInterface = dyn.Resource(mapping.Resource)
				if m.Namespace != "" {
					ri = dyn.Resource(mapping.Resource).Namespace(m.Namespace)
				}
				if m.Delete {
					// The CVO deletes these; the object need not exist.
					if err := ri.Delete(ctx, m.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
						t.Fatalf("%s: delete: %v", m.Position(), err)
					}
					created++
					continue
				}
				if _, err := ri.Create(ctx, m.Object.DeepCopy(), metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
					t.Fatalf("%s (%s): %v", m.Position(), m.Ref(), err)
				}
				created++
			}
			if created+len(crds) != len(p.Manifests) {
				t.Fatalf("created %d objects and %d CRDs of %d manifests", created, len(crds), len(p.Manifests))
			}
		})
	}
}
