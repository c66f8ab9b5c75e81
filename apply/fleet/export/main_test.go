package export_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"

	fleetexport "github.com/openshift-recover/recover/apply/fleet/export"
	"github.com/openshift-recover/recover/apply/fleet/verdict"
	"github.com/openshift-recover/recover/inspect/mustgather"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
	"github.com/openshift-recover/recover/internal/testing/shareddata"
	"github.com/openshift-recover/recover/plan/planfile"
)

var env *kubetest.Env

func TestMain(m *testing.M) {
	kubetest.Main(m, kubetest.Options{Workloads: true}, &env)
}

// fleetCRDs reads the fleet engines' real CRDs from the shared real data, or
// skips the test.
func fleetCRDs(t testing.TB) []*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	dir := shareddata.RealData(t, "fleet-crds")
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Skipf("the fleet engines' CRDs are not in %s (set RECOVER_REALDATA to the shared realdata directory): %v", dir, err)
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(b, &crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		crds = append(crds, &crd)
	}
	if len(crds) != 4 {
		t.Fatalf("%d CRDs in %s, want the ManifestWork, ManifestWorkReplicaSet, ClusterGroupUpgrade and Workflow", len(crds), dir)
	}
	return crds
}

// examplePlan is the remediation plan recover makes for the pdb-blocks-drain
// example: a plan of the wave's wedge, as an SRE passes it with --plan.
func examplePlan(t testing.TB) *planfile.Plan {
	t.Helper()
	s, err := mustgather.New(filepath.Join("..", "..", "..", "examples", "pdb-blocks-drain", "must-gather")).Collect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_, p, err := verdict.Judge(context.Background(), s, verdict.Options{})
	if err != nil || p == nil {
		t.Fatalf("no plan for the example: %v", err)
	}
	return p
}

func options(engine fleetexport.Engine, p *planfile.Plan) fleetexport.Options {
	o := fleetexport.Options{Engine: engine, Wave: "w1", Image: "quay.io/openshift-recover/recover@sha256:" + strings.Repeat("ab", 32),
		Plan: p, BackupAcknowledged: true, MaxConcurrency: 2, Placement: "wave-w1"}
	switch engine {
	case fleetexport.EngineTALM:
		o.Clusters, o.Canaries = []string{"sno-1", "sno-2", "sno-3"}, []string{"sno-1"}
	case fleetexport.EngineArgo:
		o.Clusters, o.Canaries = []string{"sno-2", "sno-3"}, []string{"sno-1"}
	case fleetexport.EngineOCM:
		o.Canaries = []string{"sno-1"}
	}
	o.Complete()
	return o
}

// objects is a client for any object by its apiVersion and kind.
type objects struct {
	dyn    dynamic.Interface
	mapper *restmapper.DeferredDiscoveryRESTMapper
}

func newObjects(t testing.TB) *objects {
	t.Helper()
	dc, err := discovery.NewDiscoveryClientForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	return &objects{dyn: dynamic.NewForConfigOrDie(env.Config), mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))}
}

func (o *objects) resource(t testing.TB, u *unstructured.Unstructured) dynamic.ResourceInterface {
	t.Helper()
	gvk := u.GroupVersionKind()
	m, err := o.mapper.RESTMapping(schema.GroupKind{Group: gvk.Group, Kind: gvk.Kind}, gvk.Version)
	if err != nil {
		o.mapper.Reset()
		if m, err = o.mapper.RESTMapping(schema.GroupKind{Group: gvk.Group, Kind: gvk.Kind}, gvk.Version); err != nil {
			t.Fatalf("%s: %v", gvk, err)
		}
	}
	if m.Scope.Name() == "namespace" {
		return o.dyn.Resource(m.Resource).Namespace(u.GetNamespace())
	}
	return o.dyn.Resource(m.Resource)
}
