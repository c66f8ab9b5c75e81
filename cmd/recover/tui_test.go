package main

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/tui"
	"github.com/openshift-recover/recover/tui/styles"
)

// asTerminal pretends stdin and stdout are a terminal for the test.
func asTerminal(t *testing.T) {
	t.Helper()
	old := tuiTerminal
	tuiTerminal = func(*globalOptions) bool { return true }
	t.Cleanup(func() { tuiTerminal = old })
}

func TestTUIWithoutATerminalPointsToApplyYes(t *testing.T) {
	code, out, errOut := runRecover(t, "tui", "--must-gather", exampleDir+"/must-gather")
	if code != ExitUsage {
		t.Fatalf("exit %d, want %d (stderr %q)", code, ExitUsage, errOut)
	}
	if out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "recover apply --plan FILE --yes") {
		t.Fatalf("want one line pointing to recover apply --yes, got stdout %q stderr %q", out, errOut)
	}
	if strings.Contains(errOut, "reading") {
		t.Fatal("the terminal check must come before reading anything")
	}
}

func TestTUIRefusesBadInvocations(t *testing.T) {
	asTerminal(t)
	mg := exampleDir + "/must-gather"
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--resume", "x.journal", "--must-gather", mg}, ExitUsage, "--resume reattaches to a run on the live cluster"},
		{[]string{"--resume", "x.journal", "--read-only"}, ExitUsage, "--read-only forbids"},
		{[]string{"--resume", "x.journal", "--journal", "y.journal"}, ExitUsage, "do not pass --journal"},
		{[]string{"--plan", "plan.json", "--graph", exampleGraph}, ExitUsage, "give one or the other"},
		{[]string{"--must-gather", mg, "--accept", "EtcdSlow"}, ExitUsage, "pass it with --graph and --payload"},
		{[]string{"--must-gather", mg, "--accept", "force-redeployment:kube-proxy"}, ExitUsage, "is not a static-pod component"},
		{[]string{"--must-gather", mg, "--accept", "admin-ack:"}, ExitUsage, "is not an admin gate key"},
		{[]string{"--plan", "plan.json", "--accept", "remove-overrides"}, ExitUsage, "drop one or the other"},
		{[]string{"--must-gather", mg, "--backup-record", "b.yaml", "--i-have-a-backup"}, ExitUsage, "not both"},
		{[]string{"--must-gather", mg, "--snapshot", "s.json"}, ExitUsage, "cannot be combined"},
		{[]string{"--snapshot", "-"}, ExitUsage, "save the snapshot to a file"},
		{[]string{"--must-gather", mg, "--graph-data", exampleData}, ExitUsage, "--graph-data needs --graph"},
		{[]string{"--must-gather", filepath.Join(t.TempDir(), "nothing")}, ExitBadInput, ""},
		{[]string{"--must-gather", mg, "--plan", filepath.Join(t.TempDir(), "missing.json")}, ExitBadInput, "plan"},
		{[]string{"--must-gather", mg, "--graph", filepath.Join(t.TempDir(), "missing.json")}, ExitBadInput, "graph"},
		{[]string{"--plan", "plan.json", "--policy", "p.yaml"}, ExitUsage, "drop one or the other"},
		{[]string{"--must-gather", mg, "--force-reason", "why"}, ExitUsage, "pass it with --graph and --payload"},
		{[]string{"--must-gather", mg, "--release-signature", "signature-1"}, ExitUsage, "--release-signature needs --release-keyring"},
		{[]string{"--plan", "plan.json", "--release-keyring", "k.gpg", "--release-signature", "signature-1"}, ExitUsage, "drop one or the other"},
		{[]string{"--must-gather", mg, "--gate-timeout", "cluster-operator=45m"}, ExitUsage, "--gate-timeout is for a run on the live cluster"},
		{[]string{"--plan", "plan.json", "--read-only", "--gate-timeout", "cluster-operator=45m"}, ExitUsage, "--gate-timeout is for a run on the live cluster"},
		{[]string{"--plan", "plan.json", "--gate-timeout", "operator=45m"}, ExitUsage, "want KIND=DURATION"},
		{[]string{"--plan", "plan.json", "--gate-timeout", "cluster-operator=-1m"}, ExitUsage, "want KIND=DURATION"},
		{[]string{"--must-gather", mg, "--graph", exampleGraph, "--payload", exampleDir + "/releases/4.4.4", "--policy", filepath.Join(t.TempDir(), "missing.yaml")}, ExitBadInput, "cannot read policy"},
	} {
		code, _, errOut := runRecover(t, append([]string{"tui"}, tc.args...)...)
		last := errOut[strings.LastIndex(strings.TrimSuffix(errOut, "\n"), "\n")+1:]
		if code != tc.code || !strings.HasPrefix(last, "error: ") || !strings.Contains(last, tc.want) {
			t.Errorf("%v: exit %d (want %d), last line %q (want %q)", tc.args, code, tc.code, last, tc.want)
		}
	}
}

// session builds the session recover tui would open for args.
func session(t *testing.T, args ...string) (*tui.Session, error) {
	t.Helper()
	return sessionOn(t, genericclioptions.NewConfigFlags(true), args...)
}

// sessionOn is session with the global kube flags given (a kubeconfig).
func sessionOn(t *testing.T, kube *genericclioptions.ConfigFlags, args ...string) (*tui.Session, error) {
	t.Helper()
	streams, _, _, _ := genericiooptions.NewTestIOStreams()
	g := &globalOptions{kube: kube, streams: streams}
	cmd, got := newTUICommand(g)
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	got.terminal = func() bool { return true }
	if err := got.Complete(); err != nil {
		return nil, err
	}
	if err := got.Validate(); err != nil {
		return nil, err
	}
	if err := got.open(context.Background()); err != nil {
		return nil, err
	}
	return got.session, nil
}

// frames renders every screen of a session at 80×24 and checks each fills the
// terminal exactly; it returns them joined.
func frames(t *testing.T, s *tui.Session) string {
	t.Helper()
	m := tui.New(s, tui.Options{Styles: styles.Plain()})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	var all []string
	for _, k := range []string{"1", "2", "3", "4"} {
		m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)})
		v := m.View()
		lines := strings.Split(v, "\n")
		if len(lines) != 24 {
			t.Errorf("screen %s: %d lines", k, len(lines))
		}
		for i, l := range lines {
			if w := lipgloss.Width(l); w != 80 {
				t.Errorf("screen %s line %d: %d cells", k, i+1, w)
			}
		}
		all = append(all, v)
	}
	return strings.Join(all, "\n")
}

// TestTUISessionComputesThePlan: a must-gather with the example graph and payload
// opens a read-only session with the planner's plan to 4.4.4, and every screen
// renders it at 80×24.
func TestTUISessionComputesThePlan(t *testing.T) {
	s, err := session(t, "--must-gather", exampleDir+"/must-gather", "--graph", exampleGraph, "--graph-data", exampleData,
		"--channel", "stable-4.4", "--payload", exampleDir+"/releases/4.4.4")
	if err != nil {
		t.Fatal(err)
	}
	if !s.ReadOnly || s.ReadOnlyReason != "must-gather session" || s.Engine != nil || s.Replan == nil {
		t.Fatalf("session: read-only %v %q, engine %v, replan %v", s.ReadOnly, s.ReadOnlyReason, s.Engine != nil, s.Replan != nil)
	}
	if s.Plan == nil || s.Plan.Target.Version != "4.4.4" || s.PlanPath != "" {
		t.Fatalf("plan %+v (path %q)", s.Plan, s.PlanPath)
	}
	out := frames(t, s)
	for _, want := range []string{"target 4.4.4", "TARGET 4.4.4", "001-disable-cvo", "READ-ONLY", "blocked-edge"} {
		if !strings.Contains(out, want) {
			t.Errorf("the screens lack %q", want)
		}
	}
}

// TestTUISessionPlansUnderThePolicy: --policy is used for the first plan and for
// every re-plan the Target screen asks for, and the plan records it.
func TestTUISessionPlansUnderThePolicy(t *testing.T) {
	args := []string{"--must-gather", exampleDir + "/must-gather", "--graph", exampleGraph, "--graph-data", exampleData,
		"--channel", "stable-4.4", "--payload", exampleDir + "/releases/4.4.4"}
	pol := writePolicy(t, "kubeletSkew: Upstream\n")
	s, err := session(t, append(args, "--policy", pol)...)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range []*planfile.Plan{s.Plan, replan(t, s)} {
		if p == nil || p.Inputs.Policy == nil || p.Inputs.Policy.Source != pol || p.Inputs.Policy.Digest == "" ||
			!strings.Contains(strings.Join(p.Target.Reasons, " "), "upstream limit") {
			t.Fatalf("plan %d does not follow --policy: %+v", i, p)
		}
	}

	strict, err := session(t, append(args, "--policy", writePolicy(t, "maxMinorHop: 0\n"))...)
	if err != nil {
		t.Fatal(err)
	}
	var nte *plan.NoTargetError
	if strict.Plan != nil || !errors.As(strict.PlanErr, &nte) {
		t.Fatalf("with maxMinorHop 0 the session planned %v (error %v), want no target", strict.Plan, strict.PlanErr)
	}
}

func replan(t *testing.T, s *tui.Session) *planfile.Plan {
	t.Helper()
	p, err := s.Replan(context.Background(), s.Snapshot, s.Accepted)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTUISessionWithoutTargetOffersTheRisk: when only a risky target exists the
// session still opens with the candidate table, and accepting the risk re-plans.
func TestTUISessionWithoutTargetOffersTheRisk(t *testing.T) {
	s, err := session(t, "--must-gather", exampleDir+"/must-gather", "--graph", writeGraph(t), "--channel", "stable-4.4",
		"--payload", exampleDir+"/releases/4.4.4")
	if err != nil {
		t.Fatal(err)
	}
	var nte *plan.NoTargetError
	if s.Plan != nil || !errors.As(s.PlanErr, &nte) || len(s.Candidates) == 0 {
		t.Fatalf("plan %v, error %v, %d candidates", s.Plan, s.PlanErr, len(s.Candidates))
	}
	m := tui.New(s, tui.Options{Styles: styles.Plain()})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	press := func(k string) {
		_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)})
		for cmd != nil {
			msg := cmd()
			if msg == nil {
				return
			}
			_, cmd = m.Update(msg)
		}
	}
	press("2")
	if !strings.Contains(m.View(), "EtcdSlow") {
		t.Fatalf("the candidate table does not show the risk:\n%s", m.View())
	}
	for i := 0; i < 5 && m.State().Dialog == ""; i++ {
		press("a")
		if m.State().Dialog == "" {
			press("j")
		}
	}
	if m.State().Dialog == "" {
		t.Fatalf("no candidate offered to accept EtcdSlow:\n%s", m.View())
	}
	press("y")
	if st := m.State(); st.Target != "4.4.4" {
		t.Fatalf("after accepting EtcdSlow the target is %q:\n%s", st.Target, m.View())
	}
	if !slicesContains(s.Accepted, "EtcdSlow") || len(s.Plan.Target.AcceptedRisks) != 1 {
		t.Fatalf("accepted %v, plan risks %v", s.Accepted, s.Plan.Target.AcceptedRisks)
	}
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestTUISavePlanIsWhatApplyLoads: a plan computed in the session is saved as
// apply reads it (same digest), and never over an existing file.
func TestTUISavePlanIsWhatApplyLoads(t *testing.T) {
	s, err := session(t, "--must-gather", exampleDir+"/must-gather", "--graph", exampleGraph, "--graph-data", exampleData,
		"--channel", "stable-4.4", "--payload", exampleDir+"/releases/4.4.4")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "plan.json")
	o := &tuiOptions{planOut: path}
	got, digest, saved, err := o.savePlan(s.Plan)
	if err != nil || got != path {
		t.Fatalf("savePlan: %q %v", got, err)
	}
	// The session applies the plan as read back from the file.
	if saved == nil || saved == s.Plan || saved.Target.Version != s.Plan.Target.Version || len(saved.Steps) != len(s.Plan.Steps) || saved.Outcome == nil {
		t.Fatalf("the read-back plan: %+v", saved)
	}
	p, want, err := planfile.Load(path)
	if err != nil || digest != want || p.Target.Version != "4.4.4" {
		t.Fatalf("LoadPlan: digest %s vs %s, %v", digest, want, err)
	}
	if _, _, _, err := o.savePlan(s.Plan); err == nil || !strings.Contains(err.Error(), "--plan-out") {
		t.Fatalf("saving over an existing plan: %v", err)
	}
}

func TestTUIRunSummaryNamesTheNextCommands(t *testing.T) {
	var b bytes.Buffer
	printRunSummary(&b, &apply.Result{Outcome: apply.OutcomeAborted, Message: "aborted by the user before step 004-x",
		Next: []string{"recover apply --resume run.journal --yes", "oc scale deployment/cluster-version-operator -n openshift-cluster-version --replicas=1"}})
	want := "recover tui: aborted: aborted by the user before step 004-x\nnext:\n  recover apply --resume run.journal --yes\n  oc scale"
	if !strings.HasPrefix(b.String(), want) {
		t.Fatalf("summary:\n%s", b.String())
	}
}

// wedgeExample is a wedge example's must-gather.
func wedgeExample(name string) string { return "../../examples/" + name + "/must-gather" }

// TestTUISessionPlansTheRemediation: without --graph, --payload or --plan, a
// cluster that needs no new release gets the remediation plan recover plan
// makes (no graph), and every screen shows it.
func TestTUISessionPlansTheRemediation(t *testing.T) {
	s, err := session(t, "--must-gather", wedgeExample("pdb-blocks-drain"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Plan == nil || s.Plan.Mode != planfile.ModeRemediation || s.Replan == nil || s.PlanPath != "" || !s.ReadOnly {
		t.Fatalf("session: plan %+v, replan %v, read-only %v", s.Plan, s.Replan != nil, s.ReadOnly)
	}
	if len(s.Plan.Remediations) != 1 || s.Plan.Remediations[0].Remedy != planfile.RemedyRelaxPDB {
		t.Fatalf("remediations %+v", s.Plan.Remediations)
	}
	out := frames(t, s)
	for _, want := range []string{"WHY THIS CLUSTER IS STUCK", "DrainBlockedByPDB", "NO NEW RELEASE", "relax-pdb →004", "remediation plan (no new release)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the screens lack %q", want)
		}
	}
}

// TestTUISessionShowsTheRefusals: a guard PDB holds the cluster and recover never
// relaxes one: plan.Make refuses (exit 12 for recover plan), the session still
// opens, the Target screen shows the error and the refusal.
func TestTUISessionShowsTheRefusals(t *testing.T) {
	s, err := session(t, "--must-gather", wedgeExample("guard-pdb"))
	if err != nil {
		t.Fatal(err)
	}
	var rre *planfile.RemedyRefusedError
	if s.Plan != nil || !errors.As(s.PlanErr, &rre) || !rre.Unsafe() {
		t.Fatalf("plan %v, error %v", s.Plan, s.PlanErr)
	}
	out := frames(t, s)
	for _, want := range []string{"NO PLAN", "what holds the cluster has no remedy recover may take", "REFUSED", "guard-pdb", "never taken by recover"} {
		if !strings.Contains(out, want) {
			t.Errorf("the screens lack %q:\n%s", want, out)
		}
	}
}

// TestTUISessionAcceptsAPromise: an unacknowledged admin gate is refused until
// accepted; --accept takes the remedy name, and so does the Target screen's a,
// which re-plans and records the name in the plan's inputs.
func TestTUISessionAcceptsAPromise(t *testing.T) {
	const name = "admin-ack:ack-4.18-kube-1.32-api-removals-in-4.19"
	s, err := session(t, "--must-gather", wedgeExample("admin-ack-required"), "--accept", name)
	if err != nil {
		t.Fatal(err)
	}
	if s.Plan == nil || !slicesContains(s.Plan.Inputs.Accepted, name) || !slicesContains(s.Accepted, name) {
		t.Fatalf("with --accept: plan %+v, error %v", s.Plan, s.PlanErr)
	}

	s, err = session(t, "--must-gather", wedgeExample("admin-ack-required"))
	if err != nil {
		t.Fatal(err)
	}
	var rre *planfile.RemedyRefusedError
	if s.Plan != nil || !errors.As(s.PlanErr, &rre) || rre.Unsafe() {
		t.Fatalf("without --accept: plan %v, error %v", s.Plan, s.PlanErr)
	}
	m := tui.New(s, tui.Options{Styles: styles.Plain()})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	press := func(k string) {
		_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)})
		for cmd != nil {
			msg := cmd()
			if msg == nil {
				return
			}
			_, cmd = m.Update(msg)
		}
	}
	press("2")
	press("a")
	if m.State().Dialog != "accept-promise" || !strings.Contains(m.View(), "Accept "+name) {
		t.Fatalf("a did not ask to accept the promise:\n%s", m.View())
	}
	press("y")
	if s.Plan == nil || !slicesContains(s.Plan.Inputs.Accepted, name) || !slicesContains(s.Accepted, name) {
		t.Fatalf("after accepting: plan %v, accepted %v\n%s", s.Plan, s.Accepted, m.View())
	}
}

// TestTUISessionSaysWhyATargetIsNeeded: the first incident needs a new release;
// without --graph the session has no plan, and the Target screen says why and
// how to get one.
func TestTUISessionSaysWhyATargetIsNeeded(t *testing.T) {
	s, err := session(t, "--must-gather", exampleDir+"/must-gather")
	if err != nil {
		t.Fatal(err)
	}
	if s.Plan != nil || s.Replan != nil || !strings.Contains(s.PlanHint, "A new release is needed") ||
		!strings.Contains(s.PlanHint, "UpdateClaimedCompleteButMixed") || !strings.Contains(s.PlanHint, "--graph GRAPH") {
		t.Fatalf("plan %v, hint %q", s.Plan, s.PlanHint)
	}
	if out := frames(t, s); !strings.Contains(out, "A new release is needed") {
		t.Errorf("the Target screen does not say why a target is needed:\n%s", out)
	}
}
