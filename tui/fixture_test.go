package tui

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/mustgather"
	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/tui/internal/tuitest"
	"github.com/openshift-recover/recover/tui/styles"
)

// fixedNow is the clock of every pure test, so elapsed times render the same.
var fixedNow = time.Date(2020, 5, 24, 17, 10, 0, 0, time.UTC)

// repoRoot is the repository root, relative to the package's directory, where go
// test runs (make test's -trimpath leaves runtime.Caller no absolute path).
func repoRoot() string {
	return ".."
}

// incidentSnapshot reads the first incident's must-gather (examples/, part of the
// repository).
func incidentSnapshot(t testing.TB) *inspect.Snapshot {
	t.Helper()
	s, err := mustgather.New(filepath.Join(repoRoot(), "examples", "reconciled-4.3-to-4.4", "must-gather")).Collect(context.Background())
	if err != nil {
		t.Fatalf("reading the example must-gather: %v", err)
	}
	return s
}

// incidentPlan is a hand-built plan modeled on the first incident's: to 4.4.4,
// etcd then the kube-apiserver, with a blocked and a risky alternative. It does
// not come from the planner, so the goldens do not move when the planner does.
func incidentPlan() *planfile.Plan {
	etcd := `
apiVersion: apps/v1
kind: Deployment
metadata: {name: etcd-operator, namespace: openshift-etcd-operator}
spec:
  replicas: 1
  selector: {matchLabels: {app: etcd-operator}}
  template:
    metadata: {labels: {app: etcd-operator}}
    spec:
      containers:
      - name: operator
        image: quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:1111111111111111111111111111111111111111111111111111111111111111
        env: [{name: RELEASE_VERSION, value: "4.4.4"}]
`
	kas := strings.ReplaceAll(strings.ReplaceAll(etcd, "etcd-operator", "kube-apiserver-operator"), "1111", "2222")
	b := applytest.NewPlan().DisableCVO().
		Apply(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"openshift-etcd-operator"}}`, nil).
		Apply(etcd, &planfile.Gate{Kind: planfile.GateClusterOperator, Description: "etcd reports 4.4.4, Available, not Degraded", ClusterOperator: "etcd",
			Versions: []planfile.OperandVersion{{Name: "operator", Version: "4.4.4"}}}).
		Apply(kas, &planfile.Gate{Kind: planfile.GateClusterOperator, Description: "kube-apiserver reports 4.4.4 and 1.17.1", ClusterOperator: "kube-apiserver",
			Versions: []planfile.OperandVersion{{Name: "operator", Version: "4.4.4"}, {Name: "kube-apiserver", Version: "1.17.1"}}}).
		Wait("kube-apiserver", applytest.KubeAPIServerGate()).
		PausePool("worker").
		SetDesiredUpdate().
		RestoreCVO()
	p := b.Plan()
	p.Generator = "tui-fixture"
	levels := []struct{ level, component, reason string }{
		{"", "", "the CVO must not reconcile 4.4.3's manifests over the mixed cluster while the plan runs"},
		{"12", "etcd-operator", "etcd moves first: run level 12"},
		{"12", "etcd-operator", "the etcd operator at 4.4.4"},
		{"20", "kube-apiserver-operator", "the kube-apiserver before any kubelet: master-0 already runs kubelet v1.17.1"},
		{"20", "kube-apiserver-operator", "every master must run the new revision before the next level"},
		{"80", "machine-config-operator", "keep the workers on 4.3's kubelet until the control plane is at 4.4.4"},
		{"", "", "hand the update back to the CVO, at 4.4.4"},
		{"", "", "the CVO reconciles from a consistent 4.4.4"},
	}
	for i := range p.Steps {
		p.Steps[i].RunLevel, p.Steps[i].Component, p.Steps[i].Reason = levels[i].level, levels[i].component, levels[i].reason
	}
	p.Cluster.ClaimedVersion, p.Cluster.ClaimedState, p.Cluster.CVOMode = "4.4.3", "Completed", "Reconciling"
	p.Target.Channels = []string{"stable-4.4"}
	p.Target.Reasons = []string{
		"4.4.4 is the nearest release every component can reach: 6 operators at 4.3.19 and 5 at 4.4.3 all move forward",
		"4.3.19 -> 4.4.4 and 4.4.3 -> 4.4.4 are supported edges in stable-4.4",
		"master-0's kubelet v1.17.1 is only legal once every kube-apiserver runs 1.17",
	}
	p.Target.Distance = planfile.Distance{Components: 11, Minor: 6, Patch: 5}
	p.Alternatives = []planfile.Candidate{
		{Version: "4.4.5", Rank: 2, Verdict: "demoted", Rule: "unaccepted-risk", Distance: planfile.Distance{Components: 11, Minor: 6, Patch: 10},
			Reason: "4.4.4 -> 4.4.5 is a conditional edge; its risk was not accepted",
			Risks:  []planfile.Risk{{Name: "AWSOldBootImages", URL: "https://issues.redhat.com/browse/OCPBUGS-0000", Message: "Clusters installed on AWS before 4.2 may fail to boot new nodes."}}},
		{Version: "4.4.3", Rank: 3, Verdict: "rejected", Rule: "blocked-edge", Distance: planfile.Distance{Components: 6, Minor: 6},
			Reason: "4.3.19 -> 4.4.3 is blocked (graph-data blocked-edges/4.4.3.yaml): upgrades from 4.3 to 4.4.3 can leave the cluster reconciling a half-applied release"},
		{Version: "4.3.19", Rank: 4, Verdict: "rejected", Rule: "no-cross-minor-downgrade",
			Reason: "5 operators already run 4.4.3: going back to 4.3 is a cross-minor downgrade, which OpenShift does not support"},
	}
	return p
}

// newTestModel builds a model on plain styles and the fixed clock, sized w×h,
// with the spinner held (it would tick on a real timer).
func newTestModel(t testing.TB, s *Session, w, h int) *Model {
	t.Helper()
	return newTestModelWith(t, s, w, h, Options{})
}

// newTestModelWith is newTestModel with options (a keymap); its styles and clock
// are the pure tests' whatever o says.
func newTestModelWith(t testing.TB, s *Session, w, h int, o Options) *Model {
	t.Helper()
	o.Styles, o.Now = styles.Plain(), func() time.Time { return fixedNow }
	m := New(s, o)
	m.ticking = true
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// send delivers messages in order and returns the commands Update returned.
func send(m *Model, msgs ...tea.Msg) []tea.Cmd {
	var cmds []tea.Cmd
	for _, msg := range msgs {
		_, cmd := m.Update(msg)
		if cmd != nil {
			cmds = append(cmds, cmd)
		}
	}
	return cmds
}

// exec runs commands that return at once and returns their messages, batches
// expanded.
func exec(cmds ...tea.Cmd) []tea.Msg {
	var out []tea.Msg
	for _, c := range cmds {
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			out = append(out, exec(msg...)...)
		case nil:
		default:
			out = append(out, msg)
		}
	}
	return out
}

// keys presses each key in turn (a string per key) and runs the commands that
// answer at once (dialogs, screen requests), feeding their messages back.
func press(m *Model, ks ...string) {
	for _, k := range ks {
		for _, msg := range exec(send(m, tuitest.Key(k))...) {
			send(m, msg)
		}
	}
}

func teaSize(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }

// wedgeSnapshot reads the must-gather of a wedge example (examples/<name>).
func wedgeSnapshot(t testing.TB, name string) *inspect.Snapshot {
	t.Helper()
	s, err := mustgather.New(filepath.Join(repoRoot(), "examples", name, "must-gather")).Collect(context.Background())
	if err != nil {
		t.Fatalf("reading the %s must-gather: %v", name, err)
	}
	return s
}

// planTime is the clock of the plans the tests make, so plan IDs and reasons
// render the same.
func planTime() time.Time { return time.Date(2020, 5, 25, 9, 0, 0, 0, time.UTC) }

// remediationSession is a live-looking session over a wedge example's snapshot
// whose plan the planner makes without a graph (a remediation plan), as
// recover tui does when no new release is needed; Replan runs the planner
// again with more names accepted. The plan is whatever plan.Make returns for
// accept: a *plan.RemedyRefusedError leaves the session without a plan,
// showing the refusals.
func remediationSession(t testing.TB, example string, f *fakeRunner, accept ...string) *Session {
	t.Helper()
	snap := wedgeSnapshot(t, example)
	s := &Session{
		Source:   "live https://api.wedged.example:6443",
		Snapshot: snap,
		Engine:   f,
		Options:  apply.Options{JournalPath: "run.journal"},
		Accepted: accept,
	}
	if f == nil {
		s.Engine = nil
		s.Source = "must-gather examples/" + example + "/must-gather"
		s.ReadOnly, s.ReadOnlyReason = true, "must-gather session"
	}
	s.Replan = func(ctx context.Context, snap *inspect.Snapshot, accept []string) (*planfile.Plan, error) {
		return plan.Make(ctx, plan.Options{Snapshot: snap, Accept: accept, Now: planTime, Generator: "recover (tui test)"})
	}
	p, err := s.Replan(context.Background(), s.Snapshot, accept)
	var rre *planfile.RemedyRefusedError
	switch {
	case errors.As(err, &rre):
		s.PlanErr = err
	case err != nil:
		t.Fatalf("planning %s: %v", example, err)
	default:
		s.Plan = p
	}
	return s
}
