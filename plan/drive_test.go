package plan

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan/payload"
	"github.com/openshift-recover/recover/plan/planfile"
)

// riskyInFlight is the second incident's cluster updating to 4.4.4, which
// inspect found exposed to EtcdSlow: the retarget-in-flight rule (drive-cvo).
func riskyInFlight(t testing.TB) *inspect.Snapshot {
	s := healthyUpdating(t)
	addFinding(s, inspect.CodeConditionalRiskOnTarget, "clusterversion/version", map[string]string{"target": "4.4.4", "risks": "EtcdSlow"})
	return s
}

// relabeled loads the example 4.4.4 payload as the release version: the
// manifests are 4.4.4's, the release another z-stream (a retarget's target).
func relabeled(version string) PayloadFunc {
	return func(_ context.Context, t planfile.Target, in payload.Inclusion) (*payload.Payload, planfile.InputRef, error) {
		pl, err := payload.LoadDir(payload444, payload.Options{Inclusion: in, ReleaseImage: t.Image})
		if err != nil {
			return nil, planfile.InputRef{}, err
		}
		pl.Release.Version = version
		return pl, planfile.InputRef{Source: payload444, Digest: "sha256:relabeled"}, nil
	}
}

// TestDriveCVOPlanKeepsTheCVORunning: a risk on the in-flight target, with a
// graph and the target's payload, is the drive-cvo outcome, and its plan
// keeps the CVO at the wheel: no disable-cvo, restore-cvo, apply or delete;
// the set-desired-update to the retarget (by digest), gated on the CVO working
// on it, then the wait for the control plane to land there (machine-config at
// what the target's manifest declares). It validates and round-trips.
func TestDriveCVOPlanKeepsTheCVORunning(t *testing.T) {
	g := testGraph(t, wireEdge{from: "4.4.3", to: "4.4.4"}, wireEdge{from: "4.4.3", to: "4.4.5"}, wireEdge{from: "4.4.4", to: "4.4.5"})
	p, err := Make(t.Context(), Options{Snapshot: riskyInFlight(t), Graph: g, Payload: relabeled("4.4.5"), Now: fixedClock})
	if err != nil {
		t.Fatal(err)
	}
	if p.Outcome == nil || p.Outcome.Kind != planfile.OutcomeDriveCVO || p.Outcome.Rule != "retarget-in-flight" || p.Mode != planfile.ModeDriveCVO || p.FormatVersion != planfile.FormatVersionDriveCVO {
		t.Fatalf("outcome %+v mode %s format %s", p.Outcome, p.Mode, p.FormatVersion)
	}
	for _, a := range []planfile.Action{planfile.ActionDisableCVO, planfile.ActionRestoreCVO, planfile.ActionApply, planfile.ActionDelete} {
		if n := planfile.CountAction(p, a); n != 0 {
			t.Fatalf("a drive-cvo plan has %d %s step(s): %v", n, a, actions(p))
		}
	}
	set := stepIndex(p, func(st *planfile.Step) bool { return st.Action == planfile.ActionSetDesiredUpdate })
	if set < 0 || set != len(p.Steps)-2 {
		t.Fatalf("set-desired-update at %d of %v", set, actions(p))
	}
	du, gate := p.Steps[set].DesiredUpdate, p.Steps[set].Gate
	if du.Version != "4.4.5" || du.Image != image445 || du.Force || len(du.AcceptRisks) != 0 || gate == nil || gate.Kind != planfile.GateCVORunning {
		t.Fatalf("set-desired-update %+v gate %+v", du, gate)
	}
	land := p.Steps[set+1]
	if land.Action != planfile.ActionWait || land.Gate.Kind != planfile.GateClusterOperator || land.Gate.ClusterOperator != "machine-config" ||
		!slices.Contains(land.Gate.Versions, planfile.OperandVersion{Name: "operator", Version: "4.4.4"}) {
		t.Fatalf("the landing wait: %+v", land.Gate)
	}
	var retarget bool
	for _, r := range p.Remediations {
		retarget = retarget || r.Remedy == planfile.RemedyRetarget && slices.Equal(r.Steps, []string{p.Steps[set].ID})
	}
	if !retarget || !strings.Contains(p.Steps[set].Reason, "keeps running") {
		t.Fatalf("remediations %+v, reason %q", p.Remediations, p.Steps[set].Reason)
	}
	var buf bytes.Buffer
	if err := planfile.Encode(&buf, p); err != nil {
		t.Fatal(err)
	}
	back, _, err := planfile.Parse(buf.Bytes(), "drive.json")
	if err != nil || back.Mode != planfile.ModeDriveCVO || back.Outcome.Kind != planfile.OutcomeDriveCVO {
		t.Fatalf("round trip: %v %+v", err, back)
	}
}

// TestDriveCVOPlanCarriesTheAcceptedRisk: the admin accepts the in-flight
// target's risk (--accept EtcdSlow): the CVO is handed 4.4.4 again with the
// risk in spec.desiredUpdate.acceptRisks.
func TestDriveCVOPlanCarriesTheAcceptedRisk(t *testing.T) {
	g := testGraph(t, wireEdge{from: "4.4.3", to: "4.4.4", risks: []string{"EtcdSlow"}})
	p, err := Make(t.Context(), Options{Snapshot: riskyInFlight(t), Graph: g, Payload: PayloadDir{Dir: payload444}, Accept: []string{"EtcdSlow"}, Now: fixedClock})
	if err != nil {
		t.Fatal(err)
	}
	set := stepIndex(p, func(st *planfile.Step) bool { return st.Action == planfile.ActionSetDesiredUpdate })
	if p.Mode != planfile.ModeDriveCVO || set < 0 || !slices.Equal(p.Steps[set].DesiredUpdate.AcceptRisks, []string{"EtcdSlow"}) || planfile.CountAction(p, planfile.ActionDisableCVO) != 0 {
		t.Fatalf("mode %s steps %v", p.Mode, actions(p))
	}
	if !strings.Contains(p.Steps[set].Reason, "acceptRisks names EtcdSlow") {
		t.Fatalf("reason %q", p.Steps[set].Reason)
	}
	// The checker refuses a risk the admin did not accept.
	p.Inputs.Accepted = nil
	var ce *CheckError
	if err := Check(p, riskyInFlight(t), nil); !errors.As(err, &ce) || ce.Rule != InvariantDesiredUpdate {
		t.Fatalf("an unaccepted acceptRisks name: %v", err)
	}
}

// TestDriveCVOPlanRemediesBesideTheRunningCVO: with a drain held by a PDB as
// well, the remedy runs before the hand-over where the CVO updates (it undoes
// none of it), and after it where the CVO reconciles (it is updating to the
// target by then); never inside a disable-cvo bracket.
func TestDriveCVOPlanRemediesBesideTheRunningCVO(t *testing.T) {
	g := testGraph(t, wireEdge{from: "4.4.3", to: "4.4.4"}, wireEdge{from: "4.4.3", to: "4.4.5"}, wireEdge{from: "4.4.4", to: "4.4.5"})
	s := riskyInFlight(t)
	holdDrain(t, s, "ci", "build", "worker-0")
	p, err := Make(t.Context(), Options{Snapshot: s, Graph: g, Payload: relabeled("4.4.5"), Now: fixedClock})
	if err != nil {
		t.Fatal(err)
	}
	relax := stepIndex(p, func(st *planfile.Step) bool { return st.Action == planfile.ActionRelaxPDB })
	set := stepIndex(p, func(st *planfile.Step) bool { return st.Action == planfile.ActionSetDesiredUpdate })
	if p.Mode != planfile.ModeDriveCVO || relax < 0 || relax > set || planfile.CountAction(p, planfile.ActionDisableCVO) != 0 {
		t.Fatalf("updating: %v", actions(p))
	}
}

// TestDriveCVOPlanInvariants: Validate and the checker refuse what a drive-cvo
// plan may not contain.
func TestDriveCVOPlanInvariants(t *testing.T) {
	g := testGraph(t, wireEdge{from: "4.4.3", to: "4.4.4"}, wireEdge{from: "4.4.3", to: "4.4.5"}, wireEdge{from: "4.4.4", to: "4.4.5"})
	good, err := Make(t.Context(), Options{Snapshot: riskyInFlight(t), Graph: g, Payload: relabeled("4.4.5"), Now: fixedClock})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		mutate func(p *planfile.Plan)
		says   string
	}{
		{"a disable-cvo bracket", func(p *planfile.Plan) {
			p.Steps = append([]planfile.Step{{ID: "000-disable-cvo", Action: planfile.ActionDisableCVO, Gate: &planfile.Gate{Kind: planfile.GateCVOScaledDown}}}, p.Steps...)
			p.Steps = append(p.Steps, planfile.Step{ID: "099-restore-cvo", Action: planfile.ActionRestoreCVO, Gate: &planfile.Gate{Kind: planfile.GateCVORunning}})
		}, "no disable-cvo or restore-cvo"},
		{"no set-desired-update", func(p *planfile.Plan) {
			p.Steps = slices.DeleteFunc(p.Steps, func(st planfile.Step) bool { return st.Action == planfile.ActionSetDesiredUpdate })
		}, "in one set-desired-update step; it has 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := clonePlan(t, good)
			tc.mutate(p)
			if err := planfile.Validate(p); err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("Validate: %v", err)
			}
			if err := Check(p, riskyInFlight(t), nil); err == nil {
				t.Fatal("the checker passes it")
			}
		})
	}
}
