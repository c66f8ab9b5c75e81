package export_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	fleetexport "github.com/openshift-recover/recover/apply/fleet/export"
	"github.com/openshift-recover/recover/internal/testing/golden"
	"github.com/openshift-recover/recover/plan/planfile"
)

// TestDocumentsGolden pins what each engine gets for one wave.
func TestDocumentsGolden(t *testing.T) {
	p := examplePlan(t)
	for _, engine := range fleetexport.Engines {
		docs, err := fleetexport.Documents(options(engine, p))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := fleetexport.WriteYAML(&buf, docs); err != nil {
			t.Fatal(err)
		}
		golden.Assert(t, "testdata/"+string(engine)+".yaml.golden", buf.Bytes())
	}
}

func TestApplyAccessRefusesWhatTheFleetDoesNotApply(t *testing.T) {
	o := options(fleetexport.EngineTALM, nil)
	if _, err := fleetexport.ApplyAccess(o); err == nil || !strings.Contains(err.Error(), "--plan") {
		t.Errorf("no plan: %v", err)
	}
	p := examplePlan(t)
	update := *p
	update.Mode = planfile.ModeUpdate
	o.Plan = &update
	if _, err := fleetexport.ApplyAccess(o); err == nil || !strings.Contains(err.Error(), "remediation plans") {
		t.Errorf("an update plan: %v", err)
	}
	o.Plan = p
	access, err := fleetexport.ApplyAccess(o)
	if err != nil {
		t.Fatal(err)
	}
	// The example's relax-pdb patches ci/deck, and only there.
	var patches []string
	for _, a := range access {
		if a.Resource == "poddisruptionbudgets" && a.Verb == "patch" {
			patches = append(patches, a.Namespace)
		}
	}
	if strings.Join(patches, ",") != "ci" {
		t.Errorf("budgets patched in %v, want only in ci: %+v", patches, access)
	}
	// A kind inspect does not read cannot be mapped without the cluster:
	// the template is refused, naming it.
	odd := *p
	odd.Steps = append([]planfile.Step(nil), p.Steps...)
	for i := range odd.Steps {
		if ch := odd.Steps[i].Change; ch != nil && ch.Object.Kind == "PodDisruptionBudget" {
			c := *ch
			c.Object.Kind, c.Object.APIVersion = "Gizmo", "example.com/v1"
			odd.Steps[i].Change = &c
		}
	}
	o.Plan = &odd
	if _, err := fleetexport.ApplyAccess(o); err == nil || !strings.Contains(err.Error(), "Gizmo") || !strings.Contains(err.Error(), "--print-rbac") {
		t.Errorf("a kind outside inspect's catalog: %v", err)
	}
}

// TestHandBackScript runs the exit handler's script with a stand-in oc that
// answers from a verdict and prints what it is asked to do: it scales the CVO
// to the verdict's replicas only when the run left it disabled, and never runs
// what the verdict says as a command.
func TestHandBackScript(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh on PATH")
	}
	o := options(fleetexport.EngineArgo, nil)
	script := fleetexport.HandBackScript(o, "sno-1")
	for _, tc := range []struct {
		name, disabled, replicas, want string
	}{
		{"left disabled", "true", "3", "scale deployment/cluster-version-operator -n openshift-cluster-version --replicas=3"},
		{"replicas not a number", "true", "1; touch /tmp/owned", "scale deployment/cluster-version-operator -n openshift-cluster-version --replicas=1"},
		{"running", "false", "3", ""},
		{"no verdict", "", "", ""},
	} {
		oc := `oc() { case "$1" in
  get) case "$*" in *cvoDisabled*) printf %s "$DISABLED" ;; *cvoReplicas*) printf %s "$REPLICAS" ;; esac ;;
  scale) echo "$*" ;;
esac; }
`
		cmd := exec.Command("sh", "-c", oc+script)
		cmd.Env = append(os.Environ(), "DISABLED="+tc.disabled, "REPLICAS="+tc.replicas)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", tc.name, err, out)
		}
		scaled := ""
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "scale ") {
				scaled = l
			}
		}
		if scaled != tc.want {
			t.Errorf("%s: scaled %q, want %q\n%s", tc.name, scaled, tc.want, out)
		}
	}
}
