package export_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"

	fleetexport "github.com/openshift-recover/recover/apply/fleet/export"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

func ensureNamespace(t testing.TB, ctx context.Context, kc kubernetes.Interface, name string) {
	t.Helper()
	_, err := kc.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

var dryRun = metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"}

// TestEveryDocumentIsAcceptedByTheRealSchemas installs the fleet engines' real
// CRDs into the real kube-apiserver and creates, with a server-side dry run and
// strict field validation, every document recover fleet export writes for each
// engine, every object the templates carry to the spokes, and the ManifestWork
// TALM makes of each template (its spec is the template's
// manifestWorkTemplate). A broken copy of each kind is refused, so the schemas
// are really enforced.
func TestEveryDocumentIsAcceptedByTheRealSchemas(t *testing.T) {
	kubetest.Require(t, env)
	crds := fleetCRDs(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := kubetest.InstallCRDs(ctx, env.Config, crds); err != nil {
		t.Fatal(err)
	}
	kc := kubernetes.NewForConfigOrDie(env.Config)
	objs := newObjects(t)
	p := examplePlan(t)
	for _, engine := range fleetexport.Engines {
		t.Run(string(engine), func(t *testing.T) {
			o := options(engine, p)
			if err := o.Validate(); err != nil {
				t.Fatal(err)
			}
			ensureNamespace(t, ctx, kc, o.HubNamespace)
			docs, err := fleetexport.Documents(o)
			if err != nil {
				t.Fatal(err)
			}
			want := map[fleetexport.Engine]int{fleetexport.EngineTALM: 3, fleetexport.EngineOCM: 2, fleetexport.EngineArgo: 1}[engine]
			if len(docs) != want {
				t.Fatalf("%d documents, want %d", len(docs), want)
			}
			for _, d := range docs {
				u := &unstructured.Unstructured{Object: d.Object}
				if _, err := objs.resource(t, u).Create(ctx, u, dryRun); err != nil {
					t.Errorf("%s (%s) refused: %v", d.File, u.GetKind(), err)
				}
				if u.GetKind() != "ManifestWorkReplicaSet" {
					continue
				}
				// The ManifestWork TALM creates from the template, in a cluster's namespace.
				spec, _, _ := unstructured.NestedMap(u.Object, "spec", "manifestWorkTemplate")
				ensureNamespace(t, ctx, kc, "sno-1")
				mw := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "work.open-cluster-management.io/v1", "kind": "ManifestWork",
					"metadata": map[string]any{"name": o.HubNamespace + "." + u.GetName(), "namespace": "sno-1",
						"annotations": map[string]any{fleetexport.ExpectedValuesAnnotation: u.GetAnnotations()[fleetexport.ExpectedValuesAnnotation]}},
					"spec": spec}}
				if _, err := objs.resource(t, mw).Create(ctx, mw, dryRun); err != nil {
					t.Errorf("the ManifestWork of %s refused: %v", d.File, err)
				}
				// What the work agent applies on the spoke.
				manifests, _, _ := unstructured.NestedSlice(spec, "workload", "manifests")
				for _, m := range manifests {
					mu := &unstructured.Unstructured{Object: m.(map[string]any)}
					if ns := mu.GetNamespace(); ns != "" {
						ensureNamespace(t, ctx, kc, ns)
					}
					if _, err := objs.resource(t, mu).Create(ctx, mu, dryRun); err != nil && !apierrors.IsAlreadyExists(err) {
						t.Errorf("%s: %s %s/%s refused: %v", d.File, mu.GetKind(), mu.GetNamespace(), mu.GetName(), err)
					}
				}
			}
		})
	}

	// The schemas are enforced: one broken copy of each kind is refused.
	o := options(fleetexport.EngineTALM, p)
	docs, err := fleetexport.Documents(o)
	if err != nil {
		t.Fatal(err)
	}
	argo, err := fleetexport.Workflow(options(fleetexport.EngineArgo, p))
	if err != nil {
		t.Fatal(err)
	}
	broken := map[string]struct {
		obj    map[string]any
		break_ func(u *unstructured.Unstructured)
	}{
		"ManifestWorkReplicaSet with an unknown deleteOption": {docs[0].Object, func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, "Sometimes", "spec", "manifestWorkTemplate", "deleteOption", "propagationPolicy")
		}},
		"ClusterGroupUpgrade without remediationStrategy": {docs[2].Object, func(u *unstructured.Unstructured) {
			unstructured.RemoveNestedField(u.Object, "spec", "remediationStrategy")
		}},
		"Workflow with a field Argo does not know": {argo, func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, int64(3), "spec", "fanOut")
		}},
	}
	for name, b := range broken {
		u := (&unstructured.Unstructured{Object: b.obj}).DeepCopy()
		b.break_(u)
		if _, err := objs.resource(t, u).Create(ctx, u, dryRun); err == nil {
			t.Errorf("%s was accepted: the schema is not enforced", name)
		}
	}
}
