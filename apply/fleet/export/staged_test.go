package export_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	fleetexport "github.com/openshift-recover/recover/apply/fleet/export"
	"github.com/openshift-recover/recover/apply/fleet/verdict"
	"github.com/openshift-recover/recover/internal/nextcmd"
	"github.com/openshift-recover/recover/internal/testing/golden"
	"github.com/openshift-recover/recover/internal/testing/stagedplan"
	"github.com/openshift-recover/recover/plan/planfile"
)

// stagedOptions is a staged wave of the EUS plan 4.18.3 -> 4.18.9 -> 4.19.14
// -> 4.20.3 for engine.
func stagedOptions(engine fleetexport.Engine) (fleetexport.Options, *planfile.Plan) {
	p := stagedplan.EUS()
	o := options(engine, p)
	o.Wave = "eus"
	return o, p
}

// TestStagedDocumentsGolden pins what each engine gets for a staged wave.
func TestStagedDocumentsGolden(t *testing.T) {
	for _, engine := range fleetexport.Engines {
		o, _ := stagedOptions(engine)
		if err := o.Validate(); err != nil {
			t.Fatal(err)
		}
		docs, err := fleetexport.Documents(o)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := fleetexport.WriteYAML(&buf, docs); err != nil {
			t.Fatal(err)
		}
		golden.Assert(t, "testdata/staged-"+string(engine)+".yaml.golden", buf.Bytes())
	}
}

func annotations(obj map[string]any) map[string]string {
	return (&unstructured.Unstructured{Object: obj}).GetAnnotations()
}

// TestAStagedWaveHasOneStepPerStage: TALM gets the inspect template, one
// template per stage and one ClusterGroupUpgrade per stage, each blocked by
// every earlier one (partial completion, cluster filtering), only the first
// disabled; each stage's Job runs the stored plan until that stage
// (--until-stage N); the stage is complete when the Job succeeded and
// ClusterVersion's newest entry is the stage's release Completed, the last
// also when the verdict settled. OCM gets the templates; Argo one task per
// stage, each after the one before, the canaries' whole path before the
// approval. The inspect Job stores the staged plan to the goal (--to, --eus).
func TestAStagedWaveHasOneStepPerStage(t *testing.T) {
	o, p := stagedOptions(fleetexport.EngineTALM)
	docs, err := fleetexport.Documents(o)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, d := range docs {
		files = append(files, d.File)
	}
	want := []string{"inspect.yaml", "stage-1.yaml", "stage-2.yaml", "stage-3.yaml",
		"clustergroupupgrade-stage-1.yaml", "clustergroupupgrade-stage-2.yaml", "clustergroupupgrade-stage-3.yaml"}
	if !slices.Equal(files, want) {
		t.Fatalf("documents %v, want %v", files, want)
	}
	if in := fleetexport.InspectArgs(o); !strings.Contains(strings.Join(in, " "), "--save-plan --to 4.20.3 --eus") {
		t.Errorf("the inspect Job does not store the staged plan to the goal: %v", in)
	}
	for i, st := range p.Stages {
		tmpl := docs[1+i].Object
		if name := (&unstructured.Unstructured{Object: tmpl}).GetName(); name != fleetexport.StageTemplateName(o.Wave, st.Index) {
			t.Errorf("stage %d's template is %s", st.Index, name)
		}
		var expected []fleetexport.ExpectedValue
		if err := json.Unmarshal([]byte(annotations(tmpl)[fleetexport.ExpectedValuesAnnotation]), &expected); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, e := range expected {
			got[e.Name] = e.Value
		}
		wantValues := map[string]string{fleetexport.FeedbackJobSucceeded: "1", fleetexport.FeedbackCVVersion: st.To, fleetexport.FeedbackCVState: "Completed", verdict.FieldWave.Name: o.Wave}
		if st.Index == len(p.Stages) {
			wantValues[verdict.FieldSettled.Name] = "true"
		}
		if !mapsEqual(got, wantValues) {
			t.Errorf("stage %d completes on %v, want %v", st.Index, got, wantValues)
		}
		args := strings.Join(fleetexport.StageArgs(o, st.Index), " ")
		if !strings.HasPrefix(args, strings.Join(fleetexport.ApplyArgs(o), " ")) || !strings.HasSuffix(args, "--"+nextcmd.FlagUntilStage+" "+string(rune('0'+st.Index))) {
			t.Errorf("stage %d's Job runs %s", st.Index, args)
		}
	}
	for i := range p.Stages {
		c := &unstructured.Unstructured{Object: docs[4+i].Object}
		templates, _, _ := unstructured.NestedStringSlice(c.Object, "spec", "manifestWorkTemplates")
		wantT := []string{fleetexport.StageTemplateName(o.Wave, i+1)}
		if i == 0 {
			wantT = append([]string{fleetexport.InspectTemplateName(o.Wave)}, wantT...)
		}
		if !slices.Equal(templates, wantT) {
			t.Errorf("CGU %s runs %v, want %v", c.GetName(), templates, wantT)
		}
		blocking, _, _ := unstructured.NestedSlice(c.Object, "spec", "blockingCRs")
		var names []string
		for _, b := range blocking {
			names = append(names, b.(map[string]any)["name"].(string))
		}
		var wantB []string
		for j := 0; j < i; j++ {
			wantB = append(wantB, fleetexport.StageCGUName(o.Wave, j+1))
		}
		if !slices.Equal(names, wantB) {
			t.Errorf("CGU %s is blocked by %v, want %v", c.GetName(), names, wantB)
		}
		enable, _, _ := unstructured.NestedBool(c.Object, "spec", "enable")
		if enable != (i > 0) {
			t.Errorf("CGU %s enable %v", c.GetName(), enable)
		}
		if i > 0 && (c.GetAnnotations()[fleetexport.BlockingCompletionModeAnnotation] != "partial" || c.GetAnnotations()[fleetexport.BlockingClusterFilterAnnotation] != "true") {
			t.Errorf("CGU %s: annotations %v", c.GetName(), c.GetAnnotations())
		}
	}

	noGoal, _ := stagedOptions(fleetexport.EngineTALM)
	noGoal.Plan.Goal = ""
	if err := noGoal.Validate(); err == nil || !strings.Contains(err.Error(), "recover plan --to") {
		t.Errorf("a staged plan without a goal: %v", err)
	}

	// A staged plan whose stage 1 pushes a release's manifests (the CVO
	// replaced) applies kinds the hub cannot map: refused, saying what to do.
	push, pushPlan := stagedOptions(fleetexport.EngineTALM)
	pushPlan.Steps = append(pushPlan.Steps, planfile.Step{ID: "003-apply-namespace-openshift-etcd-operator", Action: planfile.ActionApply,
		Manifest: &planfile.Manifest{File: "0000_12_etcd-operator_00_namespace.yaml", APIVersion: "v1", Kind: "Namespace", Name: "openshift-etcd-operator",
			Object: json.RawMessage(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"openshift-etcd-operator"}}`)}})
	if _, err := fleetexport.Documents(push); err == nil || !strings.Contains(err.Error(), "Namespace") || !strings.Contains(err.Error(), "--for argo") {
		t.Errorf("a staged plan that pushes manifests: %v", err)
	}
	push.Engine = fleetexport.EngineArgo
	if _, err := fleetexport.Documents(push); err != nil {
		t.Errorf("argo refuses a staged plan that pushes manifests: %v", err)
	}

	ocm, _ := stagedOptions(fleetexport.EngineOCM)
	if docs, err := fleetexport.Documents(ocm); err != nil || len(docs) != 4 {
		t.Errorf("OCM: %d documents (%v), want inspect and three stages", len(docs), err)
	}

	argo, _ := stagedOptions(fleetexport.EngineArgo)
	w, err := fleetexport.Workflow(argo)
	if err != nil {
		t.Fatal(err)
	}
	tmpls, _, _ := unstructured.NestedSlice(w, "spec", "templates")
	var order []string
	depends := map[string]string{}
	for _, tm := range tmpls {
		tm := tm.(map[string]any)
		if tm["name"] != "wave" {
			continue
		}
		tasks, _, _ := unstructured.NestedSlice(tm, "dag", "tasks")
		for _, tk := range tasks {
			tk := tk.(map[string]any)
			name := tk["name"].(string)
			order = append(order, name)
			d, _ := tk["depends"].(string)
			depends[name] = d
		}
	}
	wantOrder := []string{"inspect-canaries", "stage-1-canaries", "stage-2-canaries", "stage-3-canaries", "approve", "inspect", "stage-1", "stage-2", "stage-3"}
	if !slices.Equal(order, wantOrder) {
		t.Fatalf("Argo tasks %v, want %v", order, wantOrder)
	}
	for i := 1; i < len(order); i++ {
		if depends[order[i]] != order[i-1] {
			t.Errorf("Argo task %s depends on %q, want %s", order[i], depends[order[i]], order[i-1])
		}
	}
	// Each stage's template runs the stored plan until its stage, pushed
	// with the cluster's kubeconfig; the inspect template stores the staged
	// plan to the goal.
	args := map[string]string{}
	for _, tm := range tmpls {
		tm := tm.(map[string]any)
		a, _, _ := unstructured.NestedStringSlice(tm, "container", "args")
		args[tm["name"].(string)] = " " + strings.Join(a, " ") + " "
	}
	if !strings.Contains(args["inspect"], " --save-plan --to 4.20.3 --eus ") {
		t.Errorf("the Argo inspect runs%s", args["inspect"])
	}
	for n := 1; n <= 3; n++ {
		a := args[fleetexport.StageTaskName(n)]
		if !strings.Contains(a, fmt.Sprintf(" --%s %d ", nextcmd.FlagUntilStage, n)) || !strings.Contains(a, " --kubeconfig ") || !strings.Contains(a, " --"+nextcmd.FlagJournal+" "+fleetexport.ApplyJournal(argo)+" ") {
			t.Errorf("the Argo stage %d runs%s", n, a)
		}
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
