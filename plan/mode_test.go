package plan

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan/planfile"
)

func TestTargetNeeded(t *testing.T) {
	for _, tc := range []struct {
		name     string
		snap     func(t *testing.T) *inspect.Snapshot
		hard     bool
		retarget bool
		want     string
	}{
		{name: "the first incident needs a release", snap: func(t *testing.T) *inspect.Snapshot { return snapshot(t, incident1) }, hard: true, want: "UpdateClaimedCompleteButMixed"},
		{name: "the second incident's contradiction during an update needs none", snap: func(t *testing.T) *inspect.Snapshot { return snapshot(t, incident2) }},
		{name: "the second incident under a Completed claim needs one", hard: true, want: "claimed Completed",
			snap: func(t *testing.T) *inspect.Snapshot {
				s := snapshot(t, incident2)
				s.ClusterVersion.Status.History[0].State = "Completed"
				return s
			}},
		{name: "a risk on the in-flight target asks for a retarget", retarget: true, want: "EtcdSlow",
			snap: func(t *testing.T) *inspect.Snapshot {
				s := healthyUpdating(t)
				addFinding(s, inspect.CodeConditionalRiskOnTarget, "clusterversion/version", map[string]string{"target": "4.4.4", "risks": "EtcdSlow"})
				return s
			}},
		{name: "a PDB holding a drain needs none", snap: func(t *testing.T) *inspect.Snapshot {
			s := healthyUpdating(t)
			holdDrain(t, s, "ci", "build", "worker-0")
			return s
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			needs := TargetNeeded(tc.snap(t))
			hard := len(hardNeeds(needs)) > 0
			retarget := slices.ContainsFunc(needs, func(n TargetNeed) bool { return n.Retarget })
			if hard != tc.hard || retarget != tc.retarget {
				t.Fatalf("needs %+v: hard %v retarget %v", needs, hard, retarget)
			}
			if tc.want != "" && !slices.ContainsFunc(needs, func(n TargetNeed) bool { return strings.Contains(n.Reason+n.Finding, tc.want) }) {
				t.Fatalf("needs %+v lack %q", needs, tc.want)
			}
		})
	}
}

// TestRemediationPlanFromMustGather is the second incident without a graph: an
// update under way whose kube-apiserver operator claims a revision master-2
// does not run. The remedy is a forced redeployment, behind its --accept name.
func TestRemediationPlanFromMustGather(t *testing.T) {
	s := snapshot(t, incident2)
	_, err := makeRemedies(t, s)
	var re *planfile.RemedyRefusedError
	if !errors.As(err, &re) || re.ExitCode() != 3 || !slices.Equal(re.Accept(), []string{"force-redeployment:kube-apiserver"}) {
		t.Fatalf("without --accept: %v", err)
	}
	p, err := makeRemedies(t, s, "force-redeployment:kube-apiserver")
	if err != nil {
		t.Fatal(err)
	}
	// The CVO is updating to 4.4.4 and keeps the wheel: no bracket.
	if got := actions(p); !slices.Equal(got, []planfile.Action{planfile.ActionForceRedeployment}) {
		t.Fatalf("actions %v", got)
	}
	if !strings.Contains(p.Steps[0].Reason, "an installer on master-2 reported success but the kube-apiserver mirror pod never reached its revision") ||
		!strings.Contains(p.Steps[0].Reason, "revision 10") || len(p.Remediations) != 2 {
		t.Fatalf("%s\n%+v", p.Steps[0].Reason, p.Remediations)
	}
	if p.Outcome == nil || p.Outcome.Kind != planfile.OutcomeRemediation || !strings.Contains(p.Outcome.Why, "with the CVO left running") {
		t.Fatalf("outcome %+v", p.Outcome)
	}
	if !slices.ContainsFunc(p.Warnings, func(w string) bool { return strings.HasPrefix(w, "remediation only: no new release") }) {
		t.Fatalf("warnings %v", p.Warnings)
	}
}

func TestRemediationPlanRefusesWhatNeedsARelease(t *testing.T) {
	_, err := makeRemedies(t, snapshot(t, incident1))
	var ie *InputError
	if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), "a new release is needed: ") || !strings.Contains(err.Error(), "ClusterVersion claims an update complete") || !strings.Contains(err.Error(), "pass --graph") {
		t.Fatalf("%v", err)
	}
	// An update in progress that nothing holds: no plan, the CVO keeps the wheel.
	_, err = makeRemedies(t, healthyUpdating(t))
	var npe *NoPlanError
	if !errors.As(err, &npe) || npe.Outcome.Kind.Makes() || npe.Outcome.Kind == planfile.OutcomeReplaceCVO {
		t.Fatalf("nothing to remedy: %v", err)
	}
}

// TestRemediationPlanSaysAGraphAllowsARetarget: a risk on the in-flight target
// beside a PDB that holds a drain: the PDB is remedied, and the plan says that
// --graph lets recover consider a retarget.
func TestRemediationPlanSaysAGraphAllowsARetarget(t *testing.T) {
	s := healthyUpdating(t)
	holdDrain(t, s, "ci", "build", "worker-0")
	addFinding(s, inspect.CodeConditionalRiskOnTarget, "clusterversion/version", map[string]string{"target": "4.4.4", "risks": "EtcdSlow"})
	p, err := makeRemedies(t, s)
	if err != nil {
		t.Fatal(err)
	}
	if got := refusedNames(p.Refused); !slices.Equal(got, []string{"retarget clusterversion/version"}) || !strings.Contains(p.Refused[0].Reason, "pass --graph") {
		t.Fatalf("refused %+v", p.Refused)
	}
	if !slices.ContainsFunc(p.Warnings, func(w string) bool { return strings.Contains(w, "retarget") && strings.Contains(w, "--graph") }) {
		t.Fatalf("warnings %v", p.Warnings)
	}
}

// TestUpdatePlanWithRemedies: the second incident with a graph and the 4.4.4
// payload, a PDB holding a worker's drain, a pending CSR, an admin gate and a
// forced redeployment accepted. The remedies come first inside disable-cvo,
// the manifests as always, the acknowledgement before set-desired-update, its
// wait after restore-cvo; the target rolls kube-apiserver anyway, so no forced
// redeployment is added.
func TestUpdatePlanWithRemedies(t *testing.T) {
	s := snapshot(t, incident2)
	holdDrain(t, s, "ci", "build", "worker-0")
	pendingCSRs(t, s, "worker-2", csrSpec{"csr-a", "worker-2", "new"})
	adminGate(s, "ack-4.4-kube-1.18-api-removals-in-4.5")
	p, err := makeExample(t, s, payload444, func(o *Options) {
		o.Accept = []string{"force-redeployment:kube-apiserver", "admin-ack:ack-4.4-kube-1.18-api-removals-in-4.5"}
	})
	if err != nil {
		t.Fatal(err)
	}
	if p.Mode != planfile.ModeUpdate || p.Target.Version != "4.4.4" {
		t.Fatalf("mode %s target %s", p.Mode, p.Target.Version)
	}
	got := actions(p)
	if want := []planfile.Action{planfile.ActionDisableCVO, planfile.ActionApproveCSR, planfile.ActionRelaxPDB, planfile.ActionWait, planfile.ActionRevert, planfile.ActionApply}; !slices.Equal(got[:6], want) {
		t.Fatalf("first actions %v, want %v", got[:6], want)
	}
	n := len(got)
	if want := []planfile.Action{planfile.ActionAcknowledgeGate, planfile.ActionSetDesiredUpdate, planfile.ActionRestoreCVO, planfile.ActionWait}; !slices.Equal(got[n-4:], want) {
		t.Fatalf("last actions %v, want %v", got[n-4:], want)
	}
	if len(stepsWith(p, planfile.ActionForceRedeployment)) != 0 || !slices.ContainsFunc(p.Warnings, func(w string) bool {
		return strings.Contains(w, "rolls a new kube-apiserver revision to every control-plane node") && strings.Contains(w, "no forced redeployment")
	}) {
		t.Fatalf("forced redeployment in an update plan that rolls kube-apiserver anyway; warnings %v", p.Warnings)
	}
	if len(p.Remediations) != 3 {
		t.Fatalf("remediations %+v", p.Remediations)
	}
	if err := Check(p, s, nil); err != nil {
		t.Fatal(err)
	}
}

// TestUpdatePlanUnpausesABlockingPoolWhereItIsSafe: a worker pool the user
// paused whose pause blocks, in the first incident (its configuration carries a
// kubelet newer than the oldest kube-apiserver): the unpause is deferred to where
// the plan unpauses its own pools, after the control plane is verified.
func TestUpdatePlanUnpausesABlockingPoolWhereItIsSafe(t *testing.T) {
	s := snapshot(t, incident1)
	pausePool(t, s, "worker", true)
	p, err := makeExample(t, s, payload444, nil)
	if err != nil {
		t.Fatal(err)
	}
	u := stepIndex(p, isAction(planfile.ActionUnpausePool, "worker"))
	if u < 0 || p.Steps[u].Remedy != planfile.RemedyUnpausePool || u < stepIndex(p, isStaticWait("kube-scheduler")) || stepIndex(p, isAction(planfile.ActionPausePool, "worker")) >= 0 {
		t.Fatalf("worker unpause at %d (remedy %q), kube-scheduler gate at %d", u, p.Steps[u].Remedy, stepIndex(p, isStaticWait("kube-scheduler")))
	}
	if !strings.Contains(p.Steps[u].Reason, "Placed here, not first") {
		t.Fatalf("reason %s", p.Steps[u].Reason)
	}
}

// TestUpdatePlanPromisesBlockOnlyMinorHops: an unacknowledged admin gate does
// not stop a plan within the minor; it is listed with a warning.
func TestUpdatePlanPromisesBlockOnlyMinorHops(t *testing.T) {
	s := snapshot(t, incident2)
	adminGate(s, "ack-4.4-kube-1.18-api-removals-in-4.5")
	p, err := makeExample(t, s, payload444, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := refusedNames(p.Refused); !slices.Equal(got, []string{"admin-ack admingate/ack-4.4-kube-1.18-api-removals-in-4.5"}) || p.Refused[0].Accept != "admin-ack:ack-4.4-kube-1.18-api-removals-in-4.5" {
		t.Fatalf("refused %+v", p.Refused)
	}
}

// TestUpdatePlanRefusedRemedyBlocks: a guard PDB that holds the update stops an
// update plan too.
func TestUpdatePlanRefusedRemedyBlocks(t *testing.T) {
	s := snapshot(t, incident2)
	guardHolds(t, s, "master-0", "master-1")
	_, err := makeExample(t, s, payload444, nil)
	var re *planfile.RemedyRefusedError
	if !errors.As(err, &re) || re.ExitCode() != 12 || !strings.Contains(err.Error(), "the etcd member on master-1 is not ready; repair that member first") {
		t.Fatalf("%v", err)
	}
}
