package target

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/internal/testing/golden"
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/tui/internal/tuitest"
)

const ackName = "admin-ack:ack-4.18-kube-1.32-api-removals-in-4.19"

// The rows the tests select: a refused admin's promise, a refusal recover never
// takes, and alternatives of every kind.
var (
	promised = planfile.RefusedRemedy{Remedy: planfile.RemedyAdminAck, Finding: "AdminAckRequired", Subject: "configmap/openshift-config/admin-acks",
		Reason: "the update to 4.19 waits for the admin's acknowledgement of the API removals", Accept: ackName}
	never = planfile.RefusedRemedy{Remedy: planfile.RemedyGuardPDB, Finding: "DrainBlockedByGuardPDB", Subject: "poddisruptionbudget/openshift-etcd/etcd-guard-pdb",
		Reason: "a control-plane member is not ready: fix it, the guard then lets the drain go on"}
	risky = planfile.Candidate{Version: "4.4.5", Rank: 2, Verdict: planfile.VerdictDemoted, Rule: "unaccepted-risk", Reason: "4.4.4 -> 4.4.5 is a conditional edge",
		Risks: []planfile.Risk{{Name: "AWSOldBootImages", Message: "Clusters installed on AWS before 4.2 may fail to boot new nodes."}, {Name: "EtcdSlow", Message: "etcd may be slow."}}}
	farther  = planfile.Candidate{Version: "4.4.6", Rank: 3, Verdict: planfile.VerdictDemoted, Rule: "farther", Reason: "farther than 4.4.4"}
	rejected = planfile.Candidate{Version: "4.4.3", Rank: 4, Verdict: planfile.VerdictRejected, Rule: "blocked-edge", Reason: "4.3.19 -> 4.4.3 is blocked",
		Risks: []planfile.Risk{{Name: "SomeRisk", Message: "accepting it would not lift the block"}}}
)

// withRefusals is a plan with two refused remedies and three alternatives.
func withRefusals() *planfile.Plan {
	p := applytest.NewPlan().DisableCVO().RestoreCVO().Plan()
	p.Refused = []planfile.RefusedRemedy{promised, never}
	p.Alternatives = []planfile.Candidate{risky, farther, rejected}
	return p
}

// refusedErr is the planner's refusal when what holds the cluster has no remedy
// (never); promised is refused too, but does not hold it.
func refusedErr() error {
	return &planfile.RemedyRefusedError{Refused: []planfile.RefusedRemedy{never}, All: []planfile.RefusedRemedy{promised, never}}
}

// newScreen is the Target screen at w×h of a session that can re-plan.
func newScreen(w, h int, p *planfile.Plan, err error, cands ...planfile.Candidate) *Model {
	m := New(tuitest.Common())
	m.SetReplan(true)
	m.SetPlan(p, err)
	m.SetCandidates(cands)
	m.SetSize(w, h)
	return m
}

// row names the selected row.
func row(m *Model) string {
	if r := m.SelectedRefusal(); r != nil {
		return "refused " + r.Remedy
	}
	if c := m.Selected(); c != nil {
		return "alternative " + c.Version
	}
	return "none"
}

// listed walks the list from the top and names every row in order.
func listed(m *Model) []string {
	tuitest.Press(m, "g")
	out := []string{row(m)}
	for {
		tuitest.Press(m, "j")
		if r := row(m); r != out[len(out)-1] {
			out = append(out, r)
			continue
		}
		return out
	}
}

// TestListOrder: the refusals of what holds the cluster come first, then the
// other refusals, then the alternatives (or, without a plan, the candidates),
// best first; the sections say which is which, in the same order.
func TestListOrder(t *testing.T) {
	for _, tc := range []struct {
		name     string
		screen   *Model
		want     []string
		sections []string
	}{
		{"plan", newScreen(100, 80, withRefusals(), nil),
			[]string{"refused admin-ack", "refused guard-pdb", "alternative 4.4.5", "alternative 4.4.6", "alternative 4.4.3"},
			[]string{"REFUSED (remedies the plan does not take)", "ALTERNATIVES"}},
		{"refused, no plan", newScreen(100, 80, nil, refusedErr()),
			[]string{"refused guard-pdb", "refused admin-ack"},
			[]string{"NO PLAN", "REFUSED (what holds the cluster has no remedy", "ALSO NOT TAKEN"}},
		{"no target, candidates", newScreen(100, 80, nil, errors.New("no release is reachable"), rejected, risky),
			[]string{"alternative 4.4.3", "alternative 4.4.5"},
			[]string{"NO PLAN", "no release is reachable", "CANDIDATES"}},
		{"nothing to choose", newScreen(100, 80, applytest.NewPlan().Plan(), nil),
			[]string{"none"},
			[]string{"TARGET 4.4.4", "ALTERNATIVES", "none: the planner considered no other release"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := listed(tc.screen); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("rows %v, want %v", got, tc.want)
			}
			v := tc.screen.View()
			at := 0
			for _, s := range tc.sections {
				i := strings.Index(v[at:], s)
				if i < 0 {
					t.Fatalf("no %q after offset %d in\n%s", s, at, v)
				}
				at += i + len(s)
			}
		})
	}
}

// TestAcceptIntent: the accept key sends the session the intent for the selected
// row, by its names (a risky alternative's candidate, a promise's refusal), and
// nothing where accepting means nothing, while a re-plan runs, or when the
// session cannot re-plan; the footer says which it accepts. Re-planning writes
// nothing to the cluster: a read-only keymap keeps it.
func TestAcceptIntent(t *testing.T) {
	for _, tc := range []struct {
		name   string
		screen func() *Model
		keys   []string
		want   tea.Msg
		help   string
	}{
		{"promise", func() *Model { return newScreen(100, 60, withRefusals(), nil) }, nil, AcceptPromiseMsg{Refused: promised}, "accept promise"},
		{"never", func() *Model { return newScreen(100, 60, withRefusals(), nil) }, []string{"j"}, nil, "accept promise"},
		{"risky alternative", func() *Model { return newScreen(100, 60, withRefusals(), nil) }, []string{"j", "j"}, AcceptRiskMsg{Candidate: risky}, "accept risk"},
		{"farther, no risk", func() *Model { return newScreen(100, 60, withRefusals(), nil) }, []string{"j", "j", "j"}, nil, "accept risk"},
		{"rejected with a risk", func() *Model { return newScreen(100, 60, withRefusals(), nil) }, []string{"G"}, nil, "accept risk"},
		{"promise without a plan", func() *Model { return newScreen(100, 60, nil, refusedErr()) }, []string{"j"}, AcceptPromiseMsg{Refused: promised}, "accept promise"},
		{"risky candidate", func() *Model { return newScreen(100, 60, nil, errors.New("no target"), risky) }, nil, AcceptRiskMsg{Candidate: risky}, "accept risk"},
		{"re-planning", func() *Model { m := newScreen(100, 60, withRefusals(), nil); m.SetBusy("accepting x"); return m }, nil, nil, "accept promise"},
		{"plan from a file", func() *Model { m := newScreen(100, 60, withRefusals(), nil); m.SetReplan(false); return m }, nil, nil, "accept promise"},
		{"read-only", func() *Model {
			m := newScreen(100, 60, withRefusals(), nil)
			m.Keys.ClearDanger()
			m.SetSize(100, 60)
			return m
		},
			[]string{"j", "j"}, AcceptRiskMsg{Candidate: risky}, "accept risk"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.screen()
			tuitest.Press(m, tc.keys...)
			if h := m.Keys.AcceptRisk.Help(); h.Desc != tc.help || h.Key != "a" {
				t.Errorf("the footer says %q %q, want a %q", h.Key, h.Desc, tc.help)
			}
			if m.Keys.AcceptRisk.Enabled() != (tc.want != nil) {
				t.Errorf("accept enabled %v on %s", m.Keys.AcceptRisk.Enabled(), row(m))
			}
			got := tuitest.Press(m, "a")
			if tc.want == nil {
				if len(got) != 0 {
					t.Fatalf("a on %s sent %v", row(m), got)
				}
				return
			}
			if len(got) != 1 || !reflect.DeepEqual(got[0], tc.want) {
				t.Fatalf("a on %s sent %#v, want %#v", row(m), got, tc.want)
			}
		})
	}
}

// TestHowToAccept: the selected row says how to accept it: the key when the
// session re-plans, the recover plan command when the plan came from a file,
// and nothing to do for a remedy recover never takes.
func TestHowToAccept(t *testing.T) {
	for _, tc := range []struct {
		name   string
		keys   []string
		replan bool
		want   string
	}{
		{"promise", nil, true, "allow it with --accept " + ackName + ": press a to accept the promise and re-plan"},
		{"promise, from a file", nil, false, "this plan came from a file; re-plan with recover plan ... --accept " + ackName},
		{"never", []string{"j"}, true, "never taken by recover"},
		{"risk", []string{"j", "j"}, true, "press a to re-plan accepting AWSOldBootImages, EtcdSlow"},
		{"risk, from a file", []string{"j", "j"}, false, "re-plan with recover plan ... --accept AWSOldBootImages --accept EtcdSlow"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newScreen(200, 60, withRefusals(), nil)
			m.SetReplan(tc.replan)
			tuitest.Press(m, tc.keys...)
			if v := strings.Join(strings.Fields(m.View()), " "); !strings.Contains(v, tc.want) {
				t.Fatalf("missing %q in\n%s", tc.want, m.View())
			}
		})
	}
}

// TestView pins the screen with a plan (its risky alternative selected) and
// without one (the planner refused), at the smallest and a large size.
func TestView(t *testing.T) {
	for _, tc := range []struct {
		name   string
		screen func(w, h int) *Model
		keys   []string
	}{
		{"plan", func(w, h int) *Model { return newScreen(w, h, withRefusals(), nil) }, []string{"j", "j"}},
		{"refused", func(w, h int) *Model { return newScreen(w, h, nil, refusedErr()) }, nil},
	} {
		for _, sz := range [][2]int{{80, 21}, {160, 45}} {
			t.Run(fmt.Sprintf("%s/%dx%d", tc.name, sz[0], sz[1]), func(t *testing.T) {
				m := tc.screen(sz[0], sz[1])
				tuitest.Press(m, tc.keys...)
				golden.Assert(t, golden.Path(t), []byte(m.View()))
			})
		}
	}
}
