package apply_test

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/plan/render"
	"github.com/openshift-recover/recover/tui/common"
)

// contractSteps is one step of every action, as a plan carries it: the
// contract test fails for an action registered without one here.
func contractSteps() map[planfile.Action]planfile.Step {
	pdb := planfile.ObjectRef{APIVersion: "policy/v1", Kind: "PodDisruptionBudget", Namespace: "shop", Name: "web"}
	change := func(o planfile.ObjectRef, patch string, fields ...[]string) *planfile.Change {
		return &planfile.Change{Object: o, Patch: []byte(patch), Fields: fields}
	}
	cm := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"n"}}`)
	digest, _ := planfile.ManifestDigest(cm)
	mf := &planfile.Manifest{File: "f.yaml", APIVersion: "v1", Kind: "ConfigMap", Namespace: "n", Name: "a", Object: cm, Digest: digest}
	return map[planfile.Action]planfile.Step{
		planfile.ActionDisableCVO:       {},
		planfile.ActionRestoreCVO:       {},
		planfile.ActionApply:            {Manifest: mf},
		planfile.ActionDelete:           {Manifest: mf},
		planfile.ActionPausePool:        {Pool: "worker"},
		planfile.ActionUnpausePool:      {Pool: "worker", Remedy: planfile.RemedyUnpausePool},
		planfile.ActionWait:             {Remedy: planfile.RemedyRelaxPDB, Gate: &planfile.Gate{Kind: planfile.GateNodesSettled, Nodes: []string{"worker-0"}}},
		planfile.ActionSetDesiredUpdate: {DesiredUpdate: &planfile.DesiredUpdate{Version: "4.4.4", Image: "x@sha256:" + strings.Repeat("a", 64)}},
		planfile.ActionRelaxPDB: {Remedy: planfile.RemedyRelaxPDB, RevertedBy: "003-revert", ID: "002-relax",
			Change: change(pdb, `{"spec":{"minAvailable":0}}`, []string{"spec", "minAvailable"})},
		planfile.ActionRevert: {Remedy: planfile.RemedyRelaxPDB, Reverts: "002-relax", ID: "003-revert",
			Change: change(pdb, `{"spec":{"minAvailable":2}}`, []string{"spec", "minAvailable"})},
		planfile.ActionApproveCSR: {Remedy: planfile.RemedyApproveCSR, CSR: &planfile.CSRApproval{Name: "csr-a", SignerName: "kubernetes.io/kube-apiserver-client-kubelet", Username: "u", CommonName: "system:node:w", Node: "w"}},
		planfile.ActionForceRedeployment: {Remedy: planfile.RemedyForceRedeployment,
			Change: change(planfile.ObjectRef{APIVersion: "operator.openshift.io/v1", Kind: "KubeAPIServer", Name: "cluster"}, `{"spec":{"forceRedeploymentReason":"x"}}`, []string{"spec", "forceRedeploymentReason"})},
		planfile.ActionAcknowledgeGate: {Remedy: planfile.RemedyAdminAck,
			Change: change(planfile.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "openshift-config", Name: "admin-acks"}, `{"data":{"ack-4.18-x":"true"}}`, []string{"data", "ack-4.18-x"})},
		planfile.ActionRemoveOverrides: {Remedy: planfile.RemedyRemoveOverrides,
			Change: change(planfile.ObjectRef{APIVersion: "config.openshift.io/v1", Kind: "ClusterVersion", Name: "version"}, `{"spec":{"overrides":null}}`, []string{"spec", "overrides"})},
		planfile.ActionAnnotateUpgradeableTo: {Remedy: planfile.RemedyUpgradeableTo,
			Change: change(planfile.ObjectRef{APIVersion: "operator.openshift.io/v1", Kind: "CloudCredential", Name: "cluster"}, `{"metadata":{"annotations":{"cloudcredential.openshift.io/upgradeable-to":"4.17"}}}`, []string{"metadata", "annotations", "cloudcredential.openshift.io/upgradeable-to"})},
		planfile.ActionCreateReleaseSignature: {Remedy: planfile.RemedyReleaseSignature,
			Manifest: &planfile.Manifest{APIVersion: "v1", Kind: "ConfigMap", Namespace: "openshift-config-managed", Name: "sha256-" + strings.Repeat("a", 64), CreateOnly: true}},
	}
}

// mapKind maps every kind the sample steps name, as discovery would.
func mapKind(apiVersion, kind string) (schema.GroupVersionResource, bool, error) {
	gv, _ := schema.ParseGroupVersion(apiVersion)
	return gv.WithResource(strings.ToLower(kind) + "s"), kind == "PodDisruptionBudget" || kind == "ConfigMap", nil
}

// TestEveryActionKeepsTheContract walks every registered action (plan's
// registry) and holds it to the contract of an action: the engine has its
// executor; a step that changes the cluster lists the permissions it needs
// (the RBAC preflight checks and a role grants); a temporary change names the
// revert action that undoes it and that revert waits on a restored gate; a
// remedy's change is rendered (the runbook's and the TUI's words, the
// hand command); an --accept name is documented; and the action is in the
// docs' table of what apply changes.
func TestEveryActionKeepsTheContract(t *testing.T) {
	samples := contractSteps()
	applyDoc, err := os.ReadFile("../docs/apply.md")
	if err != nil {
		t.Fatal(err)
	}
	planDoc, err := os.ReadFile("../docs/plan-format.md")
	if err != nil {
		t.Fatal(err)
	}
	p := &planfile.Plan{}
	for _, spec := range planfile.Actions() {
		a := spec.Action
		t.Run(string(a), func(t *testing.T) {
			st, ok := samples[a]
			if !ok {
				t.Fatalf("no sample step of %s in contractSteps: add one", a)
			}
			st.Action = a
			if !apply.HasExecutor(a) {
				t.Fatalf("the engine has no executor for %s (apply/exec_%s.go)", a, strings.ReplaceAll(string(a), "-", "_"))
			}
			if spec.Changes == "" {
				t.Errorf("%s does not say what it changes", a)
			}
			if !bytes.Contains(applyDoc, []byte("| `"+string(a)+"`")) {
				t.Errorf("docs/apply.md's table of actions lacks %s", a)
			}
			access, err := apply.StepAccess(p, &st, mapKind)
			if a == planfile.ActionRevert {
				pp := &planfile.Plan{Steps: []planfile.Step{samples[planfile.ActionRelaxPDB], st}}
				access, err = apply.StepAccess(pp, &pp.Steps[1], mapKind)
			}
			if err != nil {
				t.Fatalf("StepAccess: %v", err)
			}
			changes := a != planfile.ActionWait
			if changes && len(access) == 0 {
				t.Errorf("%s changes the cluster but lists no permission", a)
			}
			if spec.Temporary {
				rev := planfile.SpecOf(spec.RevertedWith)
				if rev == nil || !slices.Contains(rev.Gates, planfile.GateRestored) {
					t.Errorf("%s is temporary but its revert action %q waits on no restored gate", a, spec.RevertedWith)
				}
				if common.TemporaryText(&st) == "" {
					t.Errorf("the TUI says nothing of the temporary change %s", a)
				}
			}
			if spec.Remedy || spec.Mutates && !spec.Temporary && spec.RevertHint == "" && spec.RevertedWith == "" {
				if spec.RevertHint == "" && !spec.Temporary && a != planfile.ActionRevert {
					t.Errorf("%s is lasting but says nothing of what reverts it (RevertHint)", a)
				}
			}
			if spec.Remedy {
				if spec.Note(p, &st) == "" {
					t.Errorf("%s has no words for the runbook and the TUI (note)", a)
				}
				var md bytes.Buffer
				mp := contractPlan(st)
				if err := render.Markdown(&md, mp); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(md.String(), string(a)) {
					t.Errorf("the Markdown runbook does not show the %s step", a)
				}
			}
			if spec.Accept != "" {
				if !bytes.Contains(planDoc, []byte("--accept "+strings.TrimSuffix(spec.Accept, ":"))) {
					t.Errorf("docs/plan-format.md does not document --accept %s", spec.AcceptForm)
				}
				if name := spec.AcceptName(&st); !strings.HasPrefix(name, spec.Accept) || plan.ValidateAccept([]string{name}) != nil {
					t.Errorf("%s's --accept name %q is not one ValidateAccept takes", a, name)
				}
			}
		})
	}
	for a := range samples {
		if planfile.SpecOf(a) == nil {
			t.Errorf("contractSteps has %s, which is not registered", a)
		}
	}
}

// contractPlan is a plan around one remedy step, for the renderer.
func contractPlan(st planfile.Step) *planfile.Plan {
	st.ID = "002-" + string(st.Action)
	return &planfile.Plan{APIVersion: planfile.APIVersion, Kind: planfile.Kind, FormatVersion: planfile.FormatVersion, Mode: planfile.ModeRemediation,
		Steps: []planfile.Step{{ID: "001-disable-cvo", Action: planfile.ActionDisableCVO}, st, {ID: "003-restore-cvo", Action: planfile.ActionRestoreCVO}}}
}
