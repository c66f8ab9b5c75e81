package e2e_test

import (
	"fmt"
	"testing"

	mcfgclient "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/planfile"
)

// TestRemedyUnpausePool is the unpause-pool remedy end to end on
// examples/paused-pool: the master pool, required for the update, was paused
// with two masters behind, so machine-config cannot sync it and the update
// stays Partial. recover plan unpauses it (gated on the pool), recover apply
// --yes completes, the masters roll, machine-config reports 4.4.4, the restored
// CVO completes the update, and the run changed the pool's spec.paused and
// nothing else.
func TestRemedyUnpausePool(t *testing.T) {
	t.Parallel()
	c := load(t, "paused-pool")
	snap, wedge := c.inspectCLI()
	if want := "1. BLOCKS PoolPaused machineconfigpool/master"; wedge != want {
		t.Errorf("the wedge summary's first line is %q, want %q", wedge, want)
	}
	blocks := false
	for _, f := range snap.FindingsWithCode(inspect.CodePoolPaused) {
		blocks = blocks || f.Subject == "machineconfigpool/master" && f.Details["blocks"] == "true"
	}
	if !blocks {
		t.Errorf("inspect does not find the paused master pool holding the update: %v", findingCodes(snap))
	}
	objs := c.objects(cvoDeployment, masterPool)
	p, path := c.planCLI()
	want := []string{"unpause-pool:pool-updated"}
	if got := stepShape(p); p.Mode != planfile.ModeRemediation || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the plan (%s) has steps %v, want %v", p.Mode, got, want)
	}
	cvoKeepsTheWheel(t, p)
	if st := p.Steps[0]; st.Remedy != planfile.RemedyUnpausePool || st.Change == nil || st.Pool != "master" {
		t.Errorf("the unpause step: %+v", st)
	}

	audit, journalPath := c.applyAudited(p, path)

	mcfg := mcfgclient.NewForConfigOrDie(c.cfg)
	pool, err := mcfg.MachineconfigurationV1().MachineConfigPools().Get(c.ctx, "master", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pool.Spec.Paused || pool.Status.UpdatedMachineCount != 3 || pool.Status.Configuration.Name != pool.Spec.Configuration.Name {
		t.Errorf("master pool after the run: paused %v, %d of 3 updated, on %s (target %s)", pool.Spec.Paused, pool.Status.UpdatedMachineCount, pool.Status.Configuration.Name, pool.Spec.Configuration.Name)
	}
	nodes, err := kubernetes.NewForConfigOrDie(c.cfg).CoreV1().Nodes().List(c.ctx, metav1.ListOptions{LabelSelector: "node-role.kubernetes.io/master"})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes.Items {
		if a := n.Annotations; a[openshift.AnnotationCurrentConfig] != pool.Spec.Configuration.Name || a[openshift.AnnotationMCDState] != "Done" || n.Spec.Unschedulable {
			t.Errorf("%s after the run: config %s, state %s, unschedulable %v", n.Name, a[openshift.AnnotationCurrentConfig], a[openshift.AnnotationMCDState], n.Spec.Unschedulable)
		}
	}
	c.operatorSettles("machine-config", "4.4.4")
	c.updateCompletes("4.4.4")
	c.assertFindingsGone(inspect.CodePoolPaused)
	c.assertChangedOnly(audit.Log(), objs, map[objectPath]func(map[string]any){
		masterPool: func(o map[string]any) { setField(o, "spec.paused", false) },
	})

	s := c.journalCLI(journalPath)
	if len(s.Changes) != 1 || s.Changes[0].State != "made" || raw(s.Changes[0].PreImage)["spec.paused"] != "true" {
		t.Errorf("recover journal's changes: %+v, want the unpause made from spec.paused=true", s.Changes)
	}
}
