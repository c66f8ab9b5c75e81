package e2e_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	mcfgclient "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The relax-pdb remedy on examples/pdb-blocks-drain: the PodDisruptionBudget
// ci/deck (minAvailable 2) holds the drains of worker-1 and worker-2.

// pdbPlanShape is the remediation-only plan's steps for the budget.
var pdbPlanShape = []string{"disable-cvo:cvo-scaled-down", "relax-pdb", "wait:nodes-settled", "revert:restored", "restore-cvo:cvo-running"}

// pdbWedge loads the scenario, checks that inspect finds the wedge, and makes
// the plan: the cluster, the budget as it was before the plan, the plan and
// its path.
func pdbWedge(t *testing.T) (*cluster, map[string]any, *planfile.Plan, string) {
	t.Helper()
	c := load(t, "pdb-blocks-drain")
	snap, wedge := c.inspectCLI()
	if want := "1. BLOCKS DrainBlockedByPDB poddisruptionbudget/ci/deck"; wedge != want {
		t.Errorf("the wedge summary's first line is %q, want %q", wedge, want)
	}
	codes := findingCodes(snap)
	if !slices.Contains(codes[inspect.CodeDrainBlockedByPDB], "poddisruptionbudget/ci/deck") {
		t.Errorf("inspect does not find the budget holding the drain: %v", codes)
	}
	for _, n := range []string{"node/worker-1", "node/worker-2"} {
		if !slices.Contains(codes[inspect.CodeNodeDegraded], n) {
			t.Errorf("inspect does not find %s degraded: %v", n, codes[inspect.CodeNodeDegraded])
		}
	}
	before := c.object(deckPDB)
	p, path := c.planCLI()
	if p.Mode != planfile.ModeRemediation {
		t.Errorf("recover plan without --graph made a %q plan, want remediation", p.Mode)
	}
	if got := stepShape(p); !slices.Equal(got, pdbPlanShape) {
		t.Fatalf("the plan's steps are %v, want %v", got, pdbPlanShape)
	}
	relax := p.Steps[1]
	if relax.Change == nil || relax.Change.Object.Namespace != "ci" || relax.Change.Object.Name != "deck" || relax.RevertedBy != p.Steps[3].ID || p.Steps[3].Reverts != relax.ID {
		t.Errorf("the relax step does not relax ci/deck, paired with its revert: %+v", relax)
	}
	if g := p.Steps[2].Gate; !slices.Equal(g.Nodes, []string{"worker-1", "worker-2"}) {
		t.Errorf("the nodes-settled wait is on %v, want worker-1 and worker-2", g.Nodes)
	}
	return c, before, p, path
}

// assertDrained checks that the wedge is gone: every worker drained, updated,
// uncordoned and Done, the pool rolled out, and inspect no longer finds the
// budget nor a degraded node.
func (c *cluster) assertDrained() {
	c.t.Helper()
	kube := kubernetes.NewForConfigOrDie(c.cfg)
	nodes, err := kube.CoreV1().Nodes().List(c.ctx, metav1.ListOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	for _, n := range nodes.Items {
		a := n.Annotations
		if n.Spec.Unschedulable || a[openshift.AnnotationMCDState] != "Done" || a[openshift.AnnotationDesiredDrain] != a[openshift.AnnotationLastAppliedDrain] ||
			a[openshift.AnnotationCurrentConfig] != a[openshift.AnnotationDesiredConfig] {
			c.t.Errorf("node %s after the run: unschedulable %v, state %s, desiredDrain %s, lastAppliedDrain %s, config %s -> %s", n.Name, n.Spec.Unschedulable,
				a[openshift.AnnotationMCDState], a[openshift.AnnotationDesiredDrain], a[openshift.AnnotationLastAppliedDrain], a[openshift.AnnotationCurrentConfig], a[openshift.AnnotationDesiredConfig])
		}
	}
	mcfg := mcfgclient.NewForConfigOrDie(c.cfg)
	c.eventually("the worker pool rolled out", func() (bool, string, error) {
		p, err := mcfg.MachineconfigurationV1().MachineConfigPools().Get(c.ctx, "worker", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		return p.Status.UpdatedMachineCount == 3 && p.Status.DegradedMachineCount == 0, fmt.Sprintf("%d updated, %d degraded", p.Status.UpdatedMachineCount, p.Status.DegradedMachineCount), nil
	})
	c.assertFindingsGone(inspect.CodeDrainBlockedByPDB, inspect.CodeNodeDegraded, inspect.CodePoolDegraded)
}

// assertFindingsGone waits until a live inspect has none of codes and nothing
// that blocks the update.
func (c *cluster) assertFindingsGone(codes ...string) {
	c.t.Helper()
	c.eventually("inspect finds the wedge gone", func() (bool, string, error) {
		snap := c.snapshot()
		var left []string
		for _, f := range snap.Findings {
			if slices.Contains(codes, f.Code) || f.Class == inspect.ClassBlocks {
				left = append(left, f.Code+" "+f.Subject)
			}
		}
		return len(left) == 0, strings.Join(left, "; "), nil
	})
}

// TestRemedyRelaxPDB is the relax-pdb remedy end to end: recover inspect finds
// the budget holding the drains, recover plan (no graph) relaxes it, waits for
// the nodes and restores it, recover apply --yes completes, the nodes are
// drained, updated and schedulable, the budget is exactly as before, the run
// wrote nothing but the budget and the CVO's Deployment (both as they were),
// and recover journal says what was changed and that it is restored.
func TestRemedyRelaxPDB(t *testing.T) {
	t.Parallel()
	c, before, p, path := pdbWedge(t)
	objs := c.objects(cvoDeployment, deckPDB)
	if !reflect.DeepEqual(objs[deckPDB], before) {
		t.Fatalf("the budget changed while recover planned")
	}
	audit, kc := c.auditProxy("apply", nil)
	journalPath := filepath.Join(c.dir, "run.journal")
	release := c.releaser(p)
	pr := c.startCLI(kc, func(_ *proc, ev map[string]any) { release(ev) },
		"apply", "--plan", path, "--journal", journalPath, "--i-have-a-backup", "--yes", "--events", "json")
	if code := pr.wait(t); code != 0 {
		t.Fatalf("recover apply: exit %d, result %v\n%s", code, pr.result(), pr.stderr)
	}
	if r := pr.result(); r["outcome"] != "completed" {
		t.Fatalf("recover apply: %v", r)
	}
	c.assertDrained()
	c.assertChangedOnly(audit.Log(), objs, nil)
	if n := written(audit.Log())[deckPDB]; n != 2 {
		t.Errorf("the budget was written %d times, want 2 (one relax, one restore)", n)
	}

	s := c.journalCLI(journalPath)
	if s.State != "finished" || len(s.Changes) != 1 {
		t.Fatalf("recover journal: state %s, changes %+v", s.State, s.Changes)
	}
	ch := s.Changes[0]
	want := map[string]string{"spec.minAvailable": "2", "spec.maxUnavailable": "null"}
	if ch.Step != p.Steps[1].ID || !ch.Temporary || ch.State != "reverted" || ch.RestoredBy != p.Steps[3].ID || !reflect.DeepEqual(raw(ch.PreImage), want) {
		t.Errorf("recover journal's change: %+v (pre-image %v), want %s temporary, reverted by %s, pre-image %v", ch, raw(ch.PreImage), p.Steps[1].ID, p.Steps[3].ID, want)
	}
}
