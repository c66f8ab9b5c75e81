package e2e_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The admin-ack remedy on examples/admin-ack-required: 4.18.9 asked for 4.19.0,
// refused while the admin gate ack-4.18-kube-1.32-api-removals-in-4.19 is not
// acknowledged.

const (
	adminGate       = "ack-4.18-kube-1.32-api-removals-in-4.19"
	acceptAdminGate = "admin-ack:" + adminGate
)

// TestRemedyAdminAck is the acknowledge-admin-gate remedy end to end: recover
// inspect finds AdminAckRequired first; recover plan refuses the ack without
// --accept admin-ack:<gate> (exit 3, naming it) and writes nothing; with it
// the plan acknowledges the gate and waits for the restored CVO to clear
// AdminAckRequired; recover apply --yes completes, admin-acks holds "true" for
// the gate, the CVO no longer reports Upgradeable=False for it, the run
// changed admin-acks only (the CVO's Deployment as it was), and recover journal
// lists the acknowledgement as a lasting change.
func TestRemedyAdminAck(t *testing.T) {
	t.Parallel()
	c := load(t, "admin-ack-required")
	snap, wedge := c.inspectCLI()
	if want := "1. BLOCKS AdminAckRequired admingate/" + adminGate; wedge != want {
		t.Errorf("the wedge summary's first line is %q, want %q", wedge, want)
	}
	if codes := findingCodes(snap); !slices.Contains(codes[inspect.CodeAdminAckRequired], "admingate/"+adminGate) {
		t.Errorf("inspect does not find the unacknowledged gate: %v", codes)
	}

	objs := c.objects(cvoDeployment, adminAcks)
	audit, kc := c.auditProxy("plan", nil)
	refused := c.recoverVia(kc, "plan", "-o", "json")
	if refused.code != 3 || !strings.Contains(refused.stderr+refused.stdout, "--accept "+acceptAdminGate) {
		t.Fatalf("recover plan without --accept: %s; want exit 3 (ExitRisksNotAccepted) naming --accept %s", refused, acceptAdminGate)
	}
	if w := writes(audit.Log()); len(w) != 0 {
		t.Errorf("recover plan wrote to the cluster: %v", w)
	}

	p, path := c.planCLI("--accept", acceptAdminGate)
	if p.Mode != planfile.ModeRemediation {
		t.Errorf("recover plan made a %q plan, want remediation", p.Mode)
	}
	shape := stepShape(p)
	ack := slices.Index(shape, string(planfile.ActionAcknowledgeGate))
	cleared := slices.Index(shape, "wait:"+string(planfile.GateConditionCleared))
	if ack < 0 || cleared < ack {
		t.Fatalf("the plan's steps are %v, want acknowledge-admin-gate, then a condition-cleared wait", shape)
	}
	cvoKeepsTheWheel(t, p)
	if ch := p.Steps[ack].Change; ch == nil || ch.Object.Namespace != openshift.AdminAcksNamespace || ch.Object.Name != openshift.AdminAcksConfigMap {
		t.Errorf("the acknowledge step changes %+v, want openshift-config/admin-acks", ch)
	}
	if g := p.Steps[cleared].Gate; g.Object == nil || g.Object.Kind != "ClusterVersion" || g.Condition != "Upgradeable" || g.Reason != openshift.ReasonAdminAckRequired {
		t.Errorf("the condition-cleared gate: %+v, want ClusterVersion Upgradeable AdminAckRequired", g)
	}

	audit, journalPath := c.applyAudited(p, path)

	kube := kubernetes.NewForConfigOrDie(c.cfg)
	acks, err := kube.CoreV1().ConfigMaps(openshift.AdminAcksNamespace).Get(c.ctx, openshift.AdminAcksConfigMap, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if acks.Data[adminGate] != "true" {
		t.Errorf("admin-acks after the run: %v, want %s: \"true\"", acks.Data, adminGate)
	}
	config := configclient.NewForConfigOrDie(c.cfg)
	c.eventually("the CVO no longer reports Upgradeable=False for AdminAckRequired", func() (bool, string, error) {
		cv, err := config.ConfigV1().ClusterVersions().Get(c.ctx, openshift.ClusterVersionName, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		for _, cond := range cv.Status.Conditions {
			if cond.Type == configv1.OperatorUpgradeable {
				return !(cond.Status == configv1.ConditionFalse && cond.Reason == openshift.ReasonAdminAckRequired), fmt.Sprintf("%s %s", cond.Status, cond.Reason), nil
			}
		}
		return false, "no Upgradeable condition", nil
	})
	c.assertChangedOnly(audit.Log(), objs, map[objectPath]func(map[string]any){
		adminAcks: func(o map[string]any) {
			data, _ := o["data"].(map[string]any)
			if data == nil {
				data = map[string]any{}
				o["data"] = data
			}
			data[adminGate] = "true"
		},
	})

	s := c.journalCLI(journalPath)
	if s.State != "finished" || len(s.Changes) != 1 {
		t.Fatalf("recover journal: state %s, changes %+v", s.State, s.Changes)
	}
	if ch := s.Changes[0]; ch.Action != string(planfile.ActionAcknowledgeGate) || ch.Temporary || ch.State != "made" || ch.Step != p.Steps[ack].ID {
		t.Errorf("recover journal's change: %+v, want %s's acknowledgement, lasting, made", ch, p.Steps[ack].ID)
	}
}
