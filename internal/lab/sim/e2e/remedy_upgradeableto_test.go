package e2e_test

import (
	"fmt"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/planfile"
)

// cloudCredential is cloudcredentials.operator.openshift.io/cluster's API path.
const cloudCredential objectPath = "/apis/operator.openshift.io/v1/cloudcredentials/cluster"

const acceptUpgradeableTo = planfile.AcceptUpgradeableTo + "4.15"

// TestRemedyUpgradeableTo is the upgradeable-to remedy end to end on
// examples/cloud-credential-manual: recover inspect names the cloud-credential
// operator's MissingUpgradeableAnnotation first; recover plan refuses without
// --accept upgradeable-to:4.15 (exit 3) and, with it, annotates the
// CloudCredential once; recover apply --yes completes, the operator lifts
// Upgradeable=False, the restored CVO takes 4.15.3 and completes it, the run
// changed only the annotation, and recover journal lists it as lasting.
func TestRemedyUpgradeableTo(t *testing.T) {
	t.Parallel()
	c := load(t, "cloud-credential-manual")
	_, wedge := c.inspectCLI()
	if want := "1. BLOCKS UpgradeableFalse clusteroperator/" + openshift.CloudCredentialOperator; wedge != want {
		t.Errorf("the wedge summary's first line is %q, want %q", wedge, want)
	}

	objs := c.objects(cvoDeployment, cloudCredential)
	refused := c.recover("plan", "-o", "json")
	if refused.code != 3 || !strings.Contains(refused.stderr+refused.stdout, "--accept "+acceptUpgradeableTo) {
		t.Fatalf("recover plan without --accept: %s; want exit 3 naming --accept %s", refused, acceptUpgradeableTo)
	}
	p, path := c.planCLI("--accept", acceptUpgradeableTo)
	want := []string{string(planfile.ActionAnnotateUpgradeableTo), "wait:" + string(planfile.GateConditionCleared)}
	if got := stepShape(p); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the plan has steps %v, want %v", got, want)
	}
	cvoKeepsTheWheel(t, p)

	audit, journalPath := c.applyAudited(p, path)

	config := configclient.NewForConfigOrDie(c.cfg)
	co, err := config.ConfigV1().ClusterOperators().Get(c.ctx, openshift.CloudCredentialOperator, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, cond := range co.Status.Conditions {
		if cond.Type == configv1.OperatorUpgradeable && cond.Status != configv1.ConditionTrue {
			t.Errorf("cloud-credential after the run: Upgradeable=%s %s", cond.Status, cond.Reason)
		}
	}
	c.updateCompletes("4.15.3")
	c.assertChangedOnly(audit.Log(), objs, map[objectPath]func(map[string]any){
		cloudCredential: func(o map[string]any) {
			setField(o, "metadata.annotations", map[string]any{openshift.AnnotationUpgradeableTo: "4.15"})
		},
	})

	s := c.journalCLI(journalPath)
	if s.State != "finished" || len(s.Changes) != 1 {
		t.Fatalf("recover journal: state %s, changes %+v", s.State, s.Changes)
	}
	if ch := s.Changes[0]; ch.Action != string(planfile.ActionAnnotateUpgradeableTo) || ch.Temporary || ch.State != "made" {
		t.Errorf("recover journal's change: %+v, want the annotation, lasting, made", ch)
	}
}
