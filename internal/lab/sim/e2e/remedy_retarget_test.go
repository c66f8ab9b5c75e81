package e2e_test

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The retarget remedy on examples/conditional-risk: 4.12.16 updates to 4.13.4,
// which is exposed to MultiNetworkAttachmentsWhereaboutsVersion; the scenario's
// graph offers 4.13.5, a z-stream of the same minor without it.

const (
	riskyTarget = "4.13.4"
	fixedZ      = "4.13.5"
	fixedZImage = "quay.io/openshift-release-dev/ocp-release@sha256:140620529ae2951ea0a8565665821946bf307fdb5d2dee4f3abde652b773d580"
)

// TestRemedyRetarget is the retarget remedy end to end, a drive-cvo plan on
// the real apiserver: recover inspect finds ConditionalRiskOnTarget; recover
// plan with the scenario's graph and 4.13.5's payload decides drive-cvo
// (retarget-in-flight), picks 4.13.5, demotes the in-flight 4.13.4 for its
// risk, and answers the finding with its one step, set-desired-update gated on
// the CVO working on 4.13.5 (4.13.5's reduced payload declares no
// machine-config ClusterOperator, so there is no landing wait, and the plan
// says so). recover apply --yes completes with the CVO running throughout: no
// disable-cvo, the CVO Deployment never written and its replicas as they were;
// the CVO takes 4.13.5 itself (status.desired, ReleaseAccepted, history[0]
// over 4.13.4's closed Partial entry) and completes it, the finding is gone,
// the run wrote only ClusterVersion's desiredUpdate, and recover journal reads
// the run as finished, with the plan's outcome and the CVO never disabled.
func TestRemedyRetarget(t *testing.T) {
	t.Parallel()
	c := load(t, "conditional-risk")
	snap, _ := c.inspectCLI()
	if codes := findingCodes(snap); !slices.Contains(codes[inspect.CodeConditionalRiskOnTarget], "clusterversion/version") {
		t.Fatalf("inspect does not find the risk on the in-flight target: %v", codes)
	}

	objs := c.objects(cvoDeployment, clusterVersion)
	ex := c.root + "/examples/conditional-risk"
	p, path := c.planCLI("--graph", ex+"/graph.json", "--payload", ex+"/releases/"+fixedZ)
	if p.Mode != planfile.ModeDriveCVO || p.Outcome == nil || p.Outcome.Kind != planfile.OutcomeDriveCVO || p.Outcome.Rule != "retarget-in-flight" || p.Target.Version != fixedZ {
		t.Fatalf("recover plan: mode %q, outcome %+v, target %+v; want a drive-cvo plan to %s", p.Mode, p.Outcome, p.Target, fixedZ)
	}
	var demoted bool
	for _, cand := range p.Alternatives {
		demoted = demoted || cand.Version == riskyTarget && cand.Verdict == planfile.VerdictDemoted
	}
	if !demoted {
		t.Errorf("the in-flight %s is not demoted for its risk: %+v", riskyTarget, p.Alternatives)
	}
	var retarget *planfile.Remediation
	for i, r := range p.Remediations {
		if r.Remedy == planfile.RemedyRetarget {
			retarget = &p.Remediations[i]
		}
	}
	if retarget == nil || retarget.Finding != inspect.CodeConditionalRiskOnTarget || len(retarget.Steps) != 1 {
		t.Fatalf("the plan's remediations %+v, want a retarget answering %s", p.Remediations, inspect.CodeConditionalRiskOnTarget)
	}
	if shape := stepShape(p); !slices.Equal(shape, []string{"set-desired-update:cvo-running"}) || p.Steps[0].ID != retarget.Steps[0] {
		t.Fatalf("the plan's steps are %v, want only the retarget's set-desired-update, gated on the CVO running", shape)
	}
	if du := p.Steps[0].DesiredUpdate; du.Image != fixedZImage || len(du.AcceptRisks) != 0 {
		t.Fatalf("desiredUpdate %+v", du)
	}
	if !slices.ContainsFunc(p.Warnings, func(w string) bool { return strings.Contains(w, "declares no machine-config ClusterOperator") }) {
		t.Errorf("the plan does not say why it has no landing wait: %v", p.Warnings)
	}

	audit, journalPath := c.applyAudited(p, path)
	if n := written(audit.Log())[cvoDeployment]; n != 0 {
		t.Errorf("recover wrote the CVO Deployment %d time(s) in a drive-cvo run: %v", n, writes(audit.Log()))
	}

	config := configclient.NewForConfigOrDie(c.cfg)
	c.updateCompletes(fixedZ)
	cv, err := config.ConfigV1().ClusterVersions().Get(c.ctx, openshift.ClusterVersionName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cv.Status.Desired.Version != fixedZ || cv.Status.Desired.Image != fixedZImage {
		t.Errorf("status.desired after the run: %+v, want %s %s", cv.Status.Desired, fixedZ, fixedZImage)
	}
	if h := cv.Status.History; len(h) < 2 || h[1].Version != riskyTarget || h[1].State != configv1.PartialUpdate || h[1].CompletionTime == nil {
		t.Errorf("history after the run: %+v, want 4.13.5 over a closed Partial entry for %s", h, riskyTarget)
	}
	for _, cond := range cv.Status.Conditions {
		if cond.Type == "ReleaseAccepted" && cond.Status != configv1.ConditionTrue {
			t.Errorf("ReleaseAccepted after the run: %s %s: %s", cond.Status, cond.Reason, cond.Message)
		}
	}
	// The risk's finding is gone. 4.13.5's payload is reduced to the CVO's own
	// manifests and moves no operator, so inspect rightly reports the
	// Completed claim against the operators' 4.12.16
	// (UpdateClaimedCompleteButMixed); the fixture's 2023 certificates have
	// expired by today's clock (CertificateExpiry). Nothing else may block.
	for _, f := range c.snapshot().Findings {
		switch {
		case f.Code == inspect.CodeConditionalRiskOnTarget:
			t.Errorf("inspect after the run still finds %s: %s", f.Code, f.Message)
		case f.Class == inspect.ClassBlocks && f.Code != inspect.CodeUpdateClaimedCompleteButMixed && f.Code != inspect.CodeCertificateExpiry:
			t.Errorf("inspect after the run finds a blocking %s %s: %s", f.Code, f.Subject, f.Message)
		}
	}
	// recover wrote ClusterVersion's desiredUpdate and nothing else; the CVO
	// Deployment's replicas are as before (the CVO itself rolled 4.13.5's).
	c.assertChangedOnly(audit.Log(), objs, map[objectPath]func(map[string]any){
		clusterVersion: func(o map[string]any) {
			setField(o, "spec.desiredUpdate", map[string]any{"version": fixedZ, "image": fixedZImage})
		},
	})

	s := c.journalCLI(journalPath)
	if s.State != "finished" || s.CVO.Disabled || s.CVO.Restored || s.Plan.Mode != planfile.ModeDriveCVO || s.Plan.Outcome == nil || s.Plan.Outcome.Rule != "retarget-in-flight" {
		t.Fatalf("recover journal: state %s, cvo %+v, plan %+v", s.State, s.CVO, s.Plan)
	}
	// recover journal's change list holds the remedies' object changes; a
	// retarget's desiredUpdate is the plan's own step, not listed there.
	if len(s.Changes) != 0 {
		t.Errorf("recover journal lists changes for a retarget: %+v", s.Changes)
	}
}

// riskName is the conditional-update risk on 4.13.4 in the scenario's graph.
const riskName = "MultiNetworkAttachmentsWhereaboutsVersion"

// TestDriveCVOAcceptsTheNamedRisk: the admin accepts the in-flight target's
// risk (recover plan --accept MultiNetworkAttachmentsWhereaboutsVersion) on a
// cluster whose ClusterVersion has spec.desiredUpdate.acceptRisks (the
// TechPreviewNoUpgrade schema, feature gate ClusterUpdateAcceptRisks). The
// drive-cvo plan hands the running CVO 4.13.4 again with the risk in
// acceptRisks; recover apply writes it, and nothing else: the CVO is never
// disabled and its Deployment never written.
func TestDriveCVOAcceptsTheNamedRisk(t *testing.T) {
	t.Parallel()
	c := load(t, "conditional-risk")
	c.acceptRisksSchema()

	objs := c.objects(cvoDeployment, clusterVersion)
	ex := c.root + "/examples/conditional-risk"
	p, path := c.planCLI("--graph", ex+"/graph.json", "--payload", ex+"/releases/"+riskyTarget, "--accept", riskName)
	if p.Mode != planfile.ModeDriveCVO || p.Outcome == nil || p.Outcome.Kind != planfile.OutcomeDriveCVO || p.Target.Version != riskyTarget {
		t.Fatalf("recover plan --accept: mode %q, outcome %+v, target %s; want a drive-cvo plan to %s", p.Mode, p.Outcome, p.Target.Version, riskyTarget)
	}
	if shape := stepShape(p); !slices.Equal(shape, []string{"set-desired-update:cvo-running"}) || !slices.Equal(p.Steps[0].DesiredUpdate.AcceptRisks, []string{riskName}) {
		t.Fatalf("the plan's steps are %v, desiredUpdate %+v; want one set-desired-update accepting %s", shape, p.Steps[0].DesiredUpdate, riskName)
	}

	// plan -o yaml writes the same drive-cvo plan, and apply --plan reads it
	// and runs it as a dry run: nothing written.
	r := c.recover("plan", "-o", "yaml", "--graph", ex+"/graph.json", "--payload", ex+"/releases/"+riskyTarget, "--accept", riskName)
	yamlPath := filepath.Join(c.dir, "plan.yaml")
	if r.code != 0 || os.WriteFile(yamlPath, []byte(r.stdout), 0o600) != nil {
		t.Fatalf("recover plan -o yaml: %s", r)
	}
	fromYAML, _, err := planfile.Load(yamlPath)
	if err != nil || fromYAML.Mode != planfile.ModeDriveCVO || !reflect.DeepEqual(fromYAML.Steps, p.Steps) {
		t.Fatalf("the YAML plan: %v, mode %q, steps %+v", err, fromYAML.Mode, fromYAML.Steps)
	}
	dry, kc := c.auditProxy("dry-run", nil)
	if r := c.recoverVia(kc, "apply", "--plan", yamlPath, "--dry-run"); r.code != 0 || !strings.Contains(r.stdout+r.stderr, "DRY RUN") || !strings.Contains(r.stdout+r.stderr, p.Steps[0].ID) {
		t.Fatalf("recover apply --plan plan.yaml --dry-run: %s", r)
	}
	if w := writes(dry.Log()); len(w) != 0 {
		t.Fatalf("the dry run wrote %v", w)
	}

	audit, journalPath := c.applyAudited(p, path)
	if n := written(audit.Log())[cvoDeployment]; n != 0 {
		t.Errorf("recover wrote the CVO Deployment %d time(s) in a drive-cvo run: %v", n, writes(audit.Log()))
	}
	cv, err := configclient.NewForConfigOrDie(c.cfg).ConfigV1().ClusterVersions().Get(c.ctx, openshift.ClusterVersionName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if du := cv.Spec.DesiredUpdate; du == nil || du.Version != riskyTarget || len(du.AcceptRisks) != 1 || du.AcceptRisks[0].Name != riskName {
		t.Fatalf("spec.desiredUpdate after the run: %+v", du)
	}
	c.assertChangedOnly(audit.Log(), objs, map[objectPath]func(map[string]any){
		clusterVersion: func(o map[string]any) {
			image, _ := field(o, "spec.desiredUpdate.image").(string)
			setField(o, "spec.desiredUpdate", map[string]any{"version": riskyTarget, "image": image, "acceptRisks": []any{map[string]any{"name": riskName}}})
		},
	})
	if s := c.journalCLI(journalPath); s.State != "finished" || s.CVO.Disabled || s.Plan.Mode != planfile.ModeDriveCVO {
		t.Fatalf("recover journal: state %s, cvo %+v, plan %+v", s.State, s.CVO, s.Plan)
	}
}

// acceptRisksSchema gives the cluster the ClusterVersion schema with
// spec.desiredUpdate.acceptRisks (openshift/api's TechPreviewNoUpgrade CRD,
// where the ClusterUpdateAcceptRisks feature gate is on), and waits until the
// API server keeps the field (a server-side dry run that sets it).
func (c *cluster) acceptRisksSchema() {
	c.t.Helper()
	dir, err := kubetest.OpenShiftAPIDir()
	if err != nil {
		c.t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "config/v1/zz_generated.crd-manifests/0000_00_cluster-version-operator_01_clusterversions-TechPreviewNoUpgrade.crd.yaml"))
	if err != nil {
		c.t.Fatal(err)
	}
	var want apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(data, &want); err != nil {
		c.t.Fatal(err)
	}
	crds := apiextensionsclient.NewForConfigOrDie(c.cfg).ApiextensionsV1().CustomResourceDefinitions()
	live, err := crds.Get(c.ctx, want.Name, metav1.GetOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	live.Spec.Versions = want.Spec.Versions
	if _, err := crds.Update(c.ctx, live, metav1.UpdateOptions{}); err != nil {
		c.t.Fatal(err)
	}
	cvs := configclient.NewForConfigOrDie(c.cfg).ConfigV1().ClusterVersions()
	c.eventually("ClusterVersion keeps spec.desiredUpdate.acceptRisks", func() (bool, string, error) {
		cv, err := cvs.Get(c.ctx, openshift.ClusterVersionName, metav1.GetOptions{})
		if err != nil || cv.Spec.DesiredUpdate == nil {
			return false, "no desiredUpdate yet", err
		}
		cv.Spec.DesiredUpdate.AcceptRisks = []configv1.AcceptRisk{{Name: "probe"}}
		out, err := cvs.Update(c.ctx, cv, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			return false, err.Error(), nil
		}
		return out.Spec.DesiredUpdate != nil && len(out.Spec.DesiredUpdate.AcceptRisks) == 1, "pruned", nil
	})
}
