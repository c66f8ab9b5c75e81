package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/inspect"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/internal/testing/golden"
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/tui/common"
	"github.com/openshift-recover/recover/tui/dialog"
	"github.com/openshift-recover/recover/tui/state"
)

// The remediation examples the tests read (examples/<name>/must-gather).
const (
	pdbExample      = "pdb-blocks-drain"
	guardExample    = "guard-pdb"
	adminAckExample = "admin-ack-required"
	adminAckName    = "admin-ack:ack-4.18-kube-1.32-api-removals-in-4.19"
)

// TestWedgeViews renders the overview, the Target and the Plan screens of the
// wedge examples at both sizes against their goldens: the wedge summary first,
// a remediation plan (no new release), the paired steps with their change, a
// refusal.
func TestWedgeViews(t *testing.T) {
	for _, tc := range []struct {
		name    string
		example string
		accept  []string
		keys    []string
	}{
		{"overview-pdb", pdbExample, nil, nil},
		{"overview-guard-pdb", guardExample, nil, nil},
		{"target-remediation", pdbExample, nil, []string{"2"}},
		{"plan-relax", pdbExample, nil, []string{"3", "j"}},
		{"plan-revert", pdbExample, nil, []string{"3", "j", "p"}},
		{"target-refusal", guardExample, nil, []string{"2"}},
		{"target-promise", adminAckExample, nil, []string{"2"}},
		{"plan-promise-accepted", adminAckExample, []string{adminAckName}, []string{"3", "j"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, sz := range sizes {
				t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
					m := newTestModel(t, remediationSession(t, tc.example, nil, tc.accept...), sz[0], sz[1])
					press(m, tc.keys...)
					v := m.View()
					checkFrame(t, v, sz[0], sz[1])
					golden.Assert(t, golden.Path(t), []byte(v))
				})
			}
		})
	}
}

// TestOverviewShowsTheFirstWedgeAt80x24: however much the overview holds, the
// smallest terminal opens on why the cluster is stuck: its first wedge line.
func TestOverviewShowsTheFirstWedgeAt80x24(t *testing.T) {
	for _, ex := range []string{pdbExample, guardExample, adminAckExample, "csr-pending", "paused-pool", "static-pod-stuck", "cvo-stuck-on-webhook"} {
		s := remediationSessionOrNone(t, ex)
		m := newTestModel(t, s, 80, 24)
		w := s.Snapshot.WhyStuck()
		if len(w) == 0 {
			t.Fatalf("%s: no wedge", ex)
		}
		lines := strings.Split(m.View(), "\n")
		if !strings.HasPrefix(lines[2], "WHY THIS CLUSTER IS STUCK") || !strings.Contains(lines[3], " 1 ") || !strings.Contains(lines[3], w[0].Code) {
			t.Errorf("%s: the overview does not open on the first wedge %s:\n%s", ex, w[0].Code, m.View())
		}
	}
}

// remediationSessionOrNone is remediationSession for examples the planner may
// refuse or find nothing to remedy in: the overview does not depend on it.
func remediationSessionOrNone(t *testing.T, example string) *Session {
	t.Helper()
	snap := wedgeSnapshot(t, example)
	return &Session{Source: "must-gather " + example, Snapshot: snap, ReadOnly: true}
}

// TestOverviewFilterMatchesClass: / matches a finding's class, so "blocks-update"
// leaves exactly the findings that hold the update.
func TestOverviewFilterMatchesClass(t *testing.T) {
	m := newTestModel(t, remediationSession(t, pdbExample, nil), 80, 24)
	press(m, append([]string{"/"}, strings.Split("blocks-update", "")...)...)
	press(m, "enter")
	want := 0
	for _, f := range m.session.Snapshot.Findings {
		if f.Class == "blocks-update" {
			want++
		}
	}
	if want == 0 || want == len(m.session.Snapshot.Findings) {
		t.Fatalf("the example has %d blocking findings of %d: the test shows nothing", want, len(m.session.Snapshot.Findings))
	}
	if !strings.Contains(m.View(), fmt.Sprintf(`filter "blocks-update": %d of %d`, want, len(m.session.Snapshot.Findings))) {
		t.Fatalf("the class filter does not leave the %d blocking findings:\n%s", want, m.View())
	}
	if f := m.overview.Selected(); f == nil || f.Class != "blocks-update" {
		t.Fatalf("selected %+v", f)
	}
}

// TestPairJump: p jumps from a temporary change to its revert and back, also
// when a filter hides the other one (the filter is cleared).
func TestPairJump(t *testing.T) {
	m := newTestModel(t, remediationSession(t, pdbExample, nil), 80, 24)
	p := m.session.Plan
	relax, revert := p.Steps[1], p.Steps[3]
	if relax.Action != planfile.ActionRelaxPDB || relax.RevertedBy != revert.ID || revert.Reverts != relax.ID {
		t.Fatalf("the example plan changed: %s %s", relax.ID, revert.ID)
	}
	press(m, "3")
	if m.c.Keys.Pair.Enabled() {
		t.Fatal("p is offered on disable-cvo, which has no pair")
	}
	press(m, "j")
	if !m.c.Keys.Pair.Enabled() || !strings.Contains(m.View(), "p paired step") {
		t.Fatalf("p is not offered on the temporary change:\n%s", m.View())
	}
	press(m, "p")
	if s := m.steps.Selected(); s == nil || s.ID != revert.ID {
		t.Fatalf("p on %s selects %v, want %s", relax.ID, s, revert.ID)
	}
	if !strings.Contains(flat(m.View()), "restores what step 002 changed (from the journaled pre-image)") {
		t.Fatalf("the revert does not say what it restores:\n%s", m.View())
	}
	press(m, "p")
	if s := m.steps.Selected(); s == nil || s.ID != relax.ID {
		t.Fatalf("p on the revert selects %v, want %s", s, relax.ID)
	}
	// A filter that shows only the change: p clears it to reach the revert.
	press(m, "/", "0", "0", "2", "enter", "p")
	if s := m.steps.Selected(); s == nil || s.ID != revert.ID || strings.Contains(m.View(), `filter "002"`) {
		t.Fatalf("p under a filter selects %v:\n%s", s, m.View())
	}
	press(m, "?")
	if !strings.Contains(m.View(), "paired step") {
		t.Fatalf("the ? overlay lacks the pair key:\n%s", m.View())
	}
}

// TestPlanStepShowsExactlyTheChangesFields: the detail pane shows each field the
// Change sets, from Before to the patch, and nothing else.
func TestPlanStepShowsExactlyTheChangesFields(t *testing.T) {
	m := newTestModel(t, remediationSession(t, pdbExample, nil), 160, 48)
	press(m, "3", "j")
	v := flat(m.View())
	for _, want := range []string{
		"temporary restored by step 004",
		"change spec.minAvailable: 2 -> 0",
		"spec.maxUnavailable: (absent) -> (absent)",
		"remedy relax-pdb: answers DrainBlockedByPDB poddisruptionbudget/ci/deck",
		"uid " + m.session.Plan.Steps[1].Change.UID,
	} {
		if !strings.Contains(v, want) {
			t.Errorf("the relax step's pane lacks %q:\n%s", want, m.View())
		}
	}
	if n := len(common.ChangeFields(m.session.Plan.Steps[1].Change)); n != 2 {
		t.Fatalf("%d fields", n)
	}
}

// TestRemediationDiffPreview: d on a remediation step asks the engine's Preview
// and shows its field lines; a revert, whose pre-image is journaled only when
// its change runs, says there is nothing to restore yet.
func TestRemediationDiffPreview(t *testing.T) {
	f := &fakeRunner{}
	m := newTestModel(t, remediationSession(t, pdbExample, f), 80, 24)
	d := newDriver(t, m)
	p := m.session.Plan
	d.press("3", "j", "d")
	d.until("the relax preview", func() bool { df := m.steps.Diff(p.Steps[1].ID); return df != nil && !df.Loading })
	if !strings.Contains(flat(m.View()), "spec.minAvailable: 2 -> 0") {
		t.Fatalf("the preview does not show the field's change:\n%s", m.View())
	}
	d.press("p", "d")
	d.until("the revert preview", func() bool { df := m.steps.Diff(p.Steps[3].ID); return df != nil && !df.Loading })
	if !strings.Contains(flat(m.View()), "nothing to restore yet: step 002 journals the pre-image when it runs") {
		t.Fatalf("the revert's preview:\n%s", m.View())
	}
}

// TestAcceptPromiseReplans: a on a refused admin's promise opens a dialog that
// says what the promise means; only y re-plans, with the name added to
// --accept; the new plan records it in inputs.accepted and carries the step.
func TestAcceptPromiseReplans(t *testing.T) {
	s := remediationSession(t, adminAckExample, nil)
	if s.Plan != nil || s.PlanErr == nil {
		t.Fatalf("the example's plan without --accept: %v, %v", s.Plan, s.PlanErr)
	}
	var asked [][]string
	replan := s.Replan
	s.Replan = func(ctx context.Context, snap *inspect.Snapshot, accept []string) (*planfile.Plan, error) {
		asked = append(asked, accept)
		return replan(ctx, snap, accept)
	}
	m := newTestModel(t, s, 80, 24)
	d := newDriver(t, m)
	d.press("2")
	if !m.c.Keys.AcceptRisk.Enabled() || m.c.Keys.AcceptRisk.Help().Desc != "accept promise" {
		t.Fatalf("a is not offered on the refused promise: %q\n%s", m.c.Keys.AcceptRisk.Help().Desc, m.View())
	}
	d.press("a")
	d.until("the dialog", func() bool { return m.dialog != nil })
	body := flat(m.dialog.View())
	if m.dialog.Kind != dialog.AcceptPromise || !strings.Contains(body, "openshift-config/admin-acks") || !strings.Contains(body, "You promise") {
		t.Fatalf("the dialog does not say what the promise means:\n%s", m.View())
	}
	goldenAt(t, m, "promise-dialog")
	d.press("enter")
	if m.dialog == nil || len(asked) != 0 {
		t.Fatal("enter answered the dialog")
	}
	d.answer("y")
	d.until("the re-plan", func() bool { return m.session.Plan != nil })
	if !slices.Equal(asked[0], []string{adminAckName}) || !slices.Equal(m.session.Accepted, []string{adminAckName}) {
		t.Fatalf("asked %v, accepted %v", asked, m.session.Accepted)
	}
	np := m.session.Plan
	if !slices.Contains(np.Inputs.Accepted, adminAckName) || np.Mode != planfile.ModeRemediation {
		t.Fatalf("the new plan: mode %s, accepted %v", np.Mode, np.Inputs.Accepted)
	}
	found := false
	for _, r := range np.Remediations {
		found = found || (r.Remedy == planfile.RemedyAdminAck && r.Accepted == adminAckName)
	}
	send(m, teaSize(120, 60))
	if !found || !strings.Contains(flat(m.View()), "ACCEPTED (--accept, recorded in inputs.accepted) "+adminAckName) {
		t.Fatalf("the re-planned Target screen does not show the accepted promise:\n%s", m.View())
	}
}

// TestRemediationRunRevertsOnStop: applying the remediation plan, the relaxed
// PDB is shown in the header and on the Apply screen while it is in place; an
// abort while its drain is waited for makes the engine revert it, which the log
// and the result say, and the header forgets it.
func TestRemediationRunRevertsOnStop(t *testing.T) {
	f := &fakeRunner{}
	s := remediationSession(t, pdbExample, f)
	s.PlanPath, s.PlanDigest = "plan.json", "sha256:feed"
	s.Options.IHaveABackup = true
	p := s.Plan
	relax, wait := p.Steps[1], p.Steps[2]
	f.blockGate = wait.ID
	m := newTestModel(t, s, 80, 24)
	d := newDriver(t, m)
	d.press("4", "a")
	if v := flat(m.dialog.View()); !strings.Contains(v, "the remediation plan (no new release)") || !strings.Contains(v, "temporary change") {
		t.Fatalf("the start dialog does not describe the remediation plan:\n%s", m.View())
	}
	d.answer("y")
	d.asked(p.Steps[0].ID)
	d.press("y")
	d.asked(relax.ID)
	if len(m.header.Temporary) != 0 {
		t.Fatal("the header shows a temporary change before it was made")
	}
	if !strings.Contains(flat(m.View()), "- spec.minAvailable: 2 + spec.minAvailable: 0") {
		t.Fatalf("the question does not show the pre-image diff:\n%s", m.View())
	}
	d.press("y")
	d.until("the drain wait", func() bool { return m.state.Status(wait.ID) == state.StepWaiting })
	const temp = "PodDisruptionBudget ci/deck relaxed by step 002 — restored by step 004"
	if !slices.Equal(m.header.Temporary, []string{temp}) || !strings.Contains(m.View(), "TEMPORARY  PodDisruptionBudget ci/deck relaxed by step 002") {
		t.Fatalf("the relaxed PDB is not shown while it lasts: %v\n%s", m.header.Temporary, m.View())
	}
	goldenAt(t, m, "relaxed")
	for _, k := range []string{"1", "2", "3"} {
		d.press(k)
		if !strings.Contains(m.View(), "TEMP") {
			t.Errorf("screen %s: the header forgets the relaxed PDB:\n%s", k, m.View())
		}
	}
	d.press("4", "q")
	if m.dialog == nil || !strings.Contains(flat(m.dialog.View()), "Temporary change in place: "+temp) {
		t.Fatalf("the abort dialog does not say the relaxed PDB is reverted:\n%s", m.View())
	}
	d.answer("y")
	d.finished()
	res := m.Result()
	if res == nil || res.Outcome != apply.OutcomeAborted || len(res.Reverted) != 1 {
		t.Fatalf("result %+v", res)
	}
	if len(m.header.Temporary) != 0 || m.state.Status(relax.ID) != state.StepReverted {
		t.Fatalf("after the revert on stop: header %v, step status %q", m.header.Temporary, m.state.Status(relax.ID))
	}
	log := strings.Join(m.apply.Log(), "\n")
	for _, want := range []string{"[002] revert on stop: reverting the temporary change of step " + relax.ID, "[002] reverted: Pod"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
	if !strings.Contains(flat(m.View()), "back to its journaled pre-image because the run stopped before step 004") {
		t.Fatalf("the result does not say what was reverted:\n%s", m.View())
	}
	goldenAt(t, m, "reverted-on-stop")
}

// TestRemediationRunRestores: through the whole plan the relaxed PDB is in place
// from its change to its revert step, and gone after.
func TestRemediationRunRestores(t *testing.T) {
	f := &fakeRunner{}
	s := remediationSession(t, pdbExample, f)
	s.PlanPath, s.PlanDigest = "plan.json", "sha256:feed"
	s.Options.IHaveABackup = true
	p := s.Plan
	m := newTestModel(t, s, 80, 24)
	d := newDriver(t, m)
	d.press("4", "a")
	d.answer("y")
	d.asked(p.Steps[0].ID)
	d.press("y")
	d.asked(p.Steps[1].ID)
	d.press("y")
	d.asked(p.Steps[3].ID)
	if len(m.header.Temporary) != 1 {
		t.Fatalf("before the revert: %v", m.header.Temporary)
	}
	if m.c.Keys.Skip.Enabled() {
		t.Fatal("skip is offered on the revert, which the engine never skips")
	}
	d.press("y")
	d.asked(p.Steps[4].ID)
	if len(m.header.Temporary) != 0 || strings.Contains(m.View(), "TEMPORARY") {
		t.Fatalf("after the revert step: %v\n%s", m.header.Temporary, m.View())
	}
	d.press("y")
	d.finished()
	if r := m.Result(); r == nil || r.Outcome != apply.OutcomeCompleted {
		t.Fatalf("result %+v", r)
	}
}

// TestResumeShowsTheTemporaryChangeInPlace: a journal whose relaxed PDB is still
// in place (the run was killed) shows it before the run resumes.
func TestResumeShowsTheTemporaryChangeInPlace(t *testing.T) {
	f := &fakeRunner{}
	s := remediationSession(t, pdbExample, f)
	s.PlanPath, s.PlanDigest = "plan.json", "sha256:feed"
	relax := s.Plan.Steps[1]
	pdb := journal.ObjectRef{APIVersion: "policy/v1", Kind: "PodDisruptionBudget", Namespace: "ci", Name: "deck"}
	j := &journal.Journal{Records: []journal.Record{
		{Type: journal.TypeHeader, Seq: 1, Header: &journal.Header{RunID: "r1"}},
		{Type: journal.TypeIntent, Seq: 2, Step: relax.ID, Action: string(relax.Action), Intent: &journal.Intent{Operation: "patch", Object: pdb,
			PreImage: map[string]json.RawMessage{"spec.minAvailable": json.RawMessage("2"), "spec.maxUnavailable": json.RawMessage("null")}, Temporary: true}},
		{Type: journal.TypeOutcome, Seq: 3, Step: relax.ID, Action: string(relax.Action), Outcome: &journal.Outcome{Result: "patched"}},
	}}
	s.Resume, s.Journal = true, j.State()
	m := newTestModel(t, s, 80, 24)
	if !slices.Equal(m.header.Temporary, []string{"PodDisruptionBudget ci/deck relaxed by step 002 — restored by step 004"}) {
		t.Fatalf("header %v", m.header.Temporary)
	}
	if !strings.Contains(m.View(), "TEMPORARY  PodDisruptionBudget ci/deck relaxed by step 002") {
		t.Fatalf("the Apply screen does not show the relaxed PDB:\n%s", m.View())
	}
}

// TestUpdatePlanWithRefusalsSelectsBoth: an update plan that also refuses
// remedies lists the refusals before the alternatives; the cursor moves across
// both, and a does what the selected row allows: accept a promise, accept a
// risk, nothing on a remedy recover never takes.
func TestUpdatePlanWithRefusalsSelectsBoth(t *testing.T) {
	s := liveSession(t, &fakeRunner{})
	s.PlanPath, s.PlanDigest = "", ""
	s.Replan = func(context.Context, *inspect.Snapshot, []string) (*planfile.Plan, error) { return incidentPlan(), nil }
	s.Plan.Remediations = []planfile.Remediation{{Remedy: planfile.RemedyApproveCSR, Finding: "CSRPending", Subject: "node/worker-1", Summary: "Approve 1 CSR.", Steps: []string{"002-approve-csr-csr-1"}}}
	s.Plan.Refused = []planfile.RefusedRemedy{
		{Remedy: planfile.RemedyGuardPDB, Finding: "GuardPDBBlocksDrain", Subject: "poddisruptionbudget/openshift-etcd/etcd-guard-pdb", Reason: "recover never relaxes a guard PDB"},
		{Remedy: planfile.RemedyAdminAck, Finding: "AdminAckRequired", Subject: "admingate/ack-4.4-x", Reason: "the admin's promise", Accept: "admin-ack:ack-4.4-x"},
	}
	m := newTestModel(t, s, 160, 48)
	press(m, "2")
	v := flat(m.View())
	for _, want := range []string{"TARGET 4.4.4", "REMEDIATIONS", "approve-csr CSRPending node/worker-1", "steps 002: Approve 1 CSR.", "REFUSED (remedies the plan does not take)", "never guard-pdb", "promise admin-ack", "ALTERNATIVES"} {
		if !strings.Contains(v, want) {
			t.Errorf("the Target screen lacks %q:\n%s", want, m.View())
		}
	}
	if m.target.SelectedRefusal() == nil || m.c.Keys.AcceptRisk.Enabled() {
		t.Fatal("the guard PDB refusal is selected first and a must not accept it")
	}
	press(m, "j")
	if r := m.target.SelectedRefusal(); r == nil || r.Accept == "" || !m.c.Keys.AcceptRisk.Enabled() {
		t.Fatalf("the promise is not selectable for a: %+v", r)
	}
	press(m, "a")
	if m.dialog == nil || m.dialog.Kind != dialog.AcceptPromise {
		t.Fatalf("a on the promise opened %v", m.dialog)
	}
	press(m, "n", "j")
	if c := m.target.Selected(); c == nil || c.Version != "4.4.5" || m.c.Keys.AcceptRisk.Help().Desc != "accept risk" {
		t.Fatalf("after the refusals the first alternative: %+v", c)
	}
	press(m, "a")
	if m.dialog == nil || m.dialog.Kind != dialog.AcceptRisk {
		t.Fatalf("a on the risky alternative opened %v", m.dialog)
	}
}

// TestRemediationScreensFitEverySize: the wedge sessions' screens fill every
// terminal from 80×24 up exactly, as the incident's do.
func TestRemediationScreensFitEverySize(t *testing.T) {
	for _, ex := range []string{pdbExample, guardExample, adminAckExample} {
		m := newTestModel(t, remediationSession(t, ex, &fakeRunner{}), 80, 24)
		for _, w := range []int{80, 99, 120, 139, 140, 200} {
			for _, h := range []int{24, 39, 40, 60} {
				send(m, teaSize(w, h))
				for _, k := range []string{"1", "2", "3", "j", "4", "?"} {
					press(m, k)
					checkFrame(t, m.View(), w, h)
					if k == "?" {
						press(m, "?")
					}
				}
			}
		}
	}
}

// TestRevertOnStopThatFailsStaysOnScreen: when the engine cannot write a
// temporary change's pre-image back, the change stays in the header and the
// Apply screen says NOT REVERTED with the command that restores it by hand.
func TestRevertOnStopThatFailsStaysOnScreen(t *testing.T) {
	f := &fakeRunner{failRevert: true}
	s := remediationSession(t, pdbExample, f)
	s.PlanPath, s.PlanDigest = "plan.json", "sha256:feed"
	s.Options.IHaveABackup = true
	p := s.Plan
	f.blockGate = p.Steps[2].ID
	m := newTestModel(t, s, 100, 30)
	d := newDriver(t, m)
	d.press("4", "a")
	d.answer("y")
	d.asked(p.Steps[0].ID)
	d.press("y")
	d.asked(p.Steps[1].ID)
	d.press("y")
	d.until("the drain wait", func() bool { return m.state.Status(p.Steps[2].ID) == state.StepWaiting })
	d.press("q")
	d.answer("y")
	d.finished()
	if len(m.header.Temporary) != 1 {
		t.Fatalf("the unreverted change left the header: %v", m.header.Temporary)
	}
	v := flat(m.View())
	for _, want := range []string{"NOT REVERTED", "was edited since step 002-relax-pdb-ci-deck", "restore it by hand: oc patch poddisruptionbudget/deck -n ci"} {
		if !strings.Contains(v, want) {
			t.Errorf("the Apply screen lacks %q:\n%s", want, m.View())
		}
	}
	if !strings.Contains(strings.Join(m.apply.Log(), "\n"), "[002] NOT REVERTED: could not revert") {
		t.Errorf("the log lacks the failed revert:\n%s", strings.Join(m.apply.Log(), "\n"))
	}
}
