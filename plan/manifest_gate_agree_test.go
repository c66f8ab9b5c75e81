package plan

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/payload"
	"github.com/openshift-recover/recover/plan/planfile"
)

// TestManifestGatesAgreeWithCheck ties which manifest gets which gate: over
// generated manifests (every kind the planner or checker names, in the right and
// in look-alike groups, the CVO's own Deployment and others), the gate the
// planner gives an apply step is the one Check requires, and Check rejects the
// step without it.
func TestManifestGatesAgreeWithCheck(t *testing.T) {
	apiVersions := []string{"config.openshift.io/v1", "apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1", "apps/v1",
		"extensions/v1beta1", "batch/v1", "batch/v1beta1", "v1", "example.com/v1"}
	kinds := []string{"ClusterOperator", "CustomResourceDefinition", "Deployment", "DaemonSet", "Job", "ConfigMap"}
	r := rand.New(rand.NewSource(15))
	b := &builder{target: "4.15.3"}
	failures, gated := 0, 0
	for i := range 3000 {
		av, kind := apiVersions[r.Intn(len(apiVersions))], kinds[r.Intn(len(kinds))]
		ns, name := "openshift-example", "example"
		if r.Intn(3) == 0 {
			ns, name = openshift.CVONamespace, openshift.CVODeployment
		}
		obj := map[string]any{"apiVersion": av, "kind": kind, "metadata": map[string]any{"name": name, "namespace": ns}}
		if kind == "ClusterOperator" && r.Intn(4) > 0 {
			obj["status"] = map[string]any{"versions": []any{map[string]any{"name": "operator", "version": "4.15.3"}}}
		}
		data, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		m := &payload.Manifest{File: "0000_50_example_01.yaml", APIVersion: av, Group: openshift.Group(av), Kind: kind, Namespace: ns, Name: name,
			Object: &unstructured.Unstructured{Object: obj}, JSON: data}
		st := planfile.Step{Action: planfile.ActionApply, Manifest: planfile.EmbedManifest(m)}
		st.Gate, _ = b.manifestGate(m, nil)
		md := &model{p: &planfile.Plan{Steps: []planfile.Step{st}}}
		what := fmt.Sprintf("%s %s %s/%s", av, kind, ns, name)
		if err := md.requiredGate(0, &st); err != nil {
			failures++
			t.Errorf("iteration %d: %s: the planner's gate %v fails Check: %v", i, what, gateKindOf(st.Gate), err)
			continue
		}
		if st.Gate == nil {
			continue
		}
		gated++
		bare := st
		bare.Gate = nil
		if err := md.requiredGate(0, &bare); err == nil {
			failures++
			t.Errorf("iteration %d: %s: the planner gives it a %s gate, but Check accepts it without one", i, what, st.Gate.Kind)
		}
		if failures > 5 {
			t.Fatalf("more than 5 divergences")
		}
	}
	if gated == 0 {
		t.Fatal("no generated manifest got a gate: the generator says nothing")
	}
}

func gateKindOf(g *planfile.Gate) planfile.GateKind {
	if g == nil {
		return "none"
	}
	return g.Kind
}
