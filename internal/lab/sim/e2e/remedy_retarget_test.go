package e2e_test

import (
	"slices"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan"
)

// The retarget remedy on examples/conditional-risk: 4.12.16 updates to 4.13.4,
// which is exposed to MultiNetworkAttachmentsWhereaboutsVersion; the scenario's
// graph offers 4.13.5, a z-stream of the same minor without it.

const (
	riskyTarget = "4.13.4"
	fixedZ      = "4.13.5"
	fixedZImage = "quay.io/openshift-release-dev/ocp-release@sha256:140620529ae2951ea0a8565665821946bf307fdb5d2dee4f3abde652b773d580"

	cvoNamespace objectPath = "/api/v1/namespaces/openshift-cluster-version"
)

// TestRemedyRetarget is the retarget remedy end to end: recover inspect finds
// ConditionalRiskOnTarget; recover plan with the scenario's graph and 4.13.5's
// payload picks 4.13.5, demotes the in-flight 4.13.4 for its risk, and answers
// the finding with the set-desired-update step; recover apply --yes completes,
// the restored CVO takes 4.13.5 (status.desired, ReleaseAccepted, history[0]
// over 4.13.4's closed Partial entry) and completes it, the finding is gone, the
// run wrote only the payload's CVO manifests and ClusterVersion's desiredUpdate,
// and recover journal reads the run as finished.
func TestRemedyRetarget(t *testing.T) {
	t.Parallel()
	c := load(t, "conditional-risk")
	snap, _ := c.inspectCLI()
	if codes := findingCodes(snap); !slices.Contains(codes[inspect.CodeConditionalRiskOnTarget], "clusterversion/version") {
		t.Fatalf("inspect does not find the risk on the in-flight target: %v", codes)
	}

	objs := c.objects(cvoDeployment, cvoNamespace, clusterVersion)
	ex := c.root + "/examples/conditional-risk"
	p, path := c.planCLI("--graph", ex+"/graph.json", "--payload", ex+"/releases/"+fixedZ)
	if p.Mode == plan.ModeRemediation || p.Target.Version != fixedZ {
		t.Fatalf("recover plan: mode %q, target %+v; want an update plan to %s", p.Mode, p.Target, fixedZ)
	}
	var demoted bool
	for _, cand := range p.Alternatives {
		demoted = demoted || cand.Version == riskyTarget && cand.Verdict == plan.VerdictDemoted
	}
	if !demoted {
		t.Errorf("the in-flight %s is not demoted for its risk: %+v", riskyTarget, p.Alternatives)
	}
	var retarget *plan.Remediation
	for i, r := range p.Remediations {
		if r.Remedy == plan.RemedyRetarget {
			retarget = &p.Remediations[i]
		}
	}
	if retarget == nil || retarget.Finding != inspect.CodeConditionalRiskOnTarget || len(retarget.Steps) != 1 {
		t.Fatalf("the plan's remediations %+v, want a retarget answering %s", p.Remediations, inspect.CodeConditionalRiskOnTarget)
	}
	shape := stepShape(p)
	set := slices.Index(shape, string(plan.ActionSetDesiredUpdate))
	restore := slices.Index(shape, "restore-cvo:cvo-running")
	if shape[0] != "disable-cvo:cvo-scaled-down" || set < 0 || restore != set+1 || p.Steps[set].ID != retarget.Steps[0] {
		t.Fatalf("the plan's steps are %v, want disable-cvo first and the retarget's set-desired-update just before restore-cvo", shape)
	}

	audit, journalPath := c.applyAudited(p, path)

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
	c.assertChangedOnly(audit.Log(), objs, map[objectPath]func(map[string]any){
		clusterVersion: func(o map[string]any) {
			setField(o, "spec.desiredUpdate", map[string]any{"version": fixedZ, "image": fixedZImage})
		},
		// 4.13.5's namespace manifest, applied with the CVO's semantics: its
		// labels and annotations merged in, ClusterVersion made the owner.
		cvoNamespace: func(o map[string]any) {
			setField(o, "metadata.annotations", map[string]any{
				"include.release.openshift.io/self-managed-high-availability": "true",
				"include.release.openshift.io/single-node-developer":          "true"})
			labels, _ := field(o, "metadata.labels").(map[string]any)
			if labels == nil {
				labels = map[string]any{}
			}
			labels["openshift.io/cluster-monitoring"], labels["openshift.io/run-level"] = "true", "0"
			setField(o, "metadata.labels", labels)
			setField(o, "metadata.ownerReferences", []any{map[string]any{
				"apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion", "name": openshift.ClusterVersionName,
				"uid": string(cv.UID), "controller": true}})
		},
	})

	s := c.journalCLI(journalPath)
	if s.State != "finished" {
		t.Fatalf("recover journal: state %s", s.State)
	}
	// recover journal's change list holds the remedies' object changes; a
	// retarget's desiredUpdate is the update plan's own step, not listed there.
	if len(s.Changes) != 0 {
		t.Errorf("recover journal lists changes for a retarget: %+v", s.Changes)
	}
}
