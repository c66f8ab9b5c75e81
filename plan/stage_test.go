package plan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/testing/shareddata"
	"github.com/openshift-recover/recover/plan/graph"
	"github.com/openshift-recover/recover/plan/payload"
	"github.com/openshift-recover/recover/plan/planfile"
)

// stagedGraph is an update-service graph of the given "from>to" edges, every
// release with a by-digest image (the example releases keep theirs).
func stagedGraph(t testing.TB, edges ...string) *graph.Result {
	t.Helper()
	known := map[string]string{"4.3.19": image4319, "4.4.3": image443, "4.4.4": image444, "4.4.5": image445}
	var nodes, es []string
	idx := map[string]int{}
	node := func(v string) int {
		if i, ok := idx[v]; ok {
			return i
		}
		img := known[v]
		if img == "" {
			img = fmt.Sprintf("quay.io/openshift-release-dev/ocp-release@sha256:%064x", len(nodes)+4096)
		}
		idx[v] = len(nodes)
		nodes = append(nodes, fmt.Sprintf(`{"version":%q,"payload":%q,"metadata":{}}`, v, img))
		return idx[v]
	}
	for _, e := range edges {
		f, to, _ := strings.Cut(e, ">")
		es = append(es, fmt.Sprintf("[%d,%d]", node(f), node(to)))
	}
	data := []byte(`{"version":1,"nodes":[` + strings.Join(nodes, ",") + `],"edges":[` + strings.Join(es, ",") + `]}`)
	g, err := graph.Parse("staged-graph.json", data)
	if err != nil {
		t.Fatal(err)
	}
	return &graph.Result{Graph: g, Digest: planfile.DigestBytes(data)}
}

// makeStagedExample plans the second incident's cluster (4.4.3, updating to
// 4.4.4) to a goal, with the example 4.4.4 payload for stage 1.
func makeStagedExample(t testing.TB, s *inspect.Snapshot, g *graph.Result, to string, eus bool, accept ...string) (*planfile.Plan, error) {
	t.Helper()
	return MakeStaged(context.Background(), StagedOptions{To: to, EUS: eus, Options: Options{Snapshot: s, Graph: g, Payload: PayloadDir{Dir: payload444}, Accept: accept,
		Now: func() time.Time { return fixedTime }, Generator: "recover test"}})
}

var stagedEdges = []string{"4.4.3>4.4.4", "4.4.4>4.5.1", "4.4.4>4.5.3", "4.5.1>4.6.1", "4.5.2>4.6.1"}

func TestStagedPlanNamesEachIntermediateAndWhy(t *testing.T) {
	s := healthyUpdating(t)
	p, err := makeStagedExample(t, s, stagedGraph(t, stagedEdges...), "4.6.1", false)
	if err != nil {
		t.Fatal(err)
	}
	var chain []string
	for _, st := range p.Stages {
		chain = append(chain, st.To)
	}
	if got := strings.Join(chain, " "); got != "4.4.4 4.5.1 4.6.1" {
		t.Fatalf("stages: %s", got)
	}
	// Stage 1 is a hop the CVO drives (the staged-goal rule): a drive-cvo
	// plan, format 1.5, which carries the stages of 1.4.
	if p.FormatVersion != planfile.FormatVersionDriveCVO || p.Goal != "4.6.1" || p.Target.Version != "4.4.4" {
		t.Fatalf("format %s goal %s target %s", p.FormatVersion, p.Goal, p.Target.Version)
	}
	if p.Mode != planfile.ModeDriveCVO || p.Outcome == nil || p.Outcome.Rule != RuleStagedGoal || planfile.CountAction(p, planfile.ActionDisableCVO)+planfile.CountAction(p, planfile.ActionApply)+planfile.CountAction(p, planfile.ActionDelete) != 0 {
		t.Fatalf("stage 1 is not driven by the CVO: mode %s outcome %+v actions %v", p.Mode, p.Outcome, actions(p))
	}
	if why := strings.Join(p.Stages[1].Reasons, " "); !strings.Contains(why, "Not 4.5.3") || !strings.Contains(why, "no usable edge onward") {
		t.Fatalf("stage 2 reasons do not say why not 4.5.3: %q", why)
	}
	if why := strings.Join(p.GoalReasons, " "); !strings.Contains(why, "no edge 4.4.3 -> 4.6.1") {
		t.Fatalf("goal reasons: %q", why)
	}
	if st := p.Stages[2].Steps; len(st) != 2 || st[0].Action != planfile.ActionSetDesiredUpdate || st[0].DesiredUpdate.Version != "4.6.1" || st[1].Gate.ClusterOperator != "machine-config" {
		t.Fatalf("stage 3 outline: %+v", st)
	}
	if p.Stages[1].Workers != planfile.WorkersFollow {
		t.Fatalf("without --eus the workers follow: %s", p.Stages[1].Workers)
	}
	if err := planfile.Validate(p); err != nil {
		t.Fatalf("the staged plan does not validate: %v", err)
	}
}

func TestEUSPlanPausesTheWorkersAcrossTheOddMinorAndUnpausesAtTheEnd(t *testing.T) {
	p, err := makeStagedExample(t, healthyUpdating(t), stagedGraph(t, stagedEdges...), "4.6.1", true)
	if err != nil {
		t.Fatal(err)
	}
	var workers []string
	for _, st := range p.Stages {
		workers = append(workers, st.Workers)
	}
	if got := strings.Join(workers, " "); got != "follow paused follow" {
		t.Fatalf("workers per stage: %s", got)
	}
	// Updated first, then paused, then the desiredUpdate.
	s2, s3 := p.Stages[1].Steps, p.Stages[2].Steps
	if len(s2) != 4 || s2[0].Gate.Kind != planfile.GatePoolUpdated || s2[1].Action != planfile.ActionPausePool || s2[1].Pool != "worker" || s2[2].Action != planfile.ActionSetDesiredUpdate {
		t.Fatalf("stage 2 must pause the workers before its desiredUpdate: %+v", s2)
	}
	if last := s3[len(s3)-1]; last.Action != planfile.ActionUnpausePool || last.Pool != "worker" || last.Gate.Kind != planfile.GatePoolUpdated {
		t.Fatalf("the last stage must unpause the workers: %+v", last)
	}
	if len(p.Stages[1].Warnings) == 0 || !strings.Contains(p.Stages[1].Warnings[0], "MachineConfigControllerPausedPoolKubeletCA") {
		t.Fatalf("no kubelet CA warning: %v", p.Stages[1].Warnings)
	}
}

func TestEUSPausedPoolWarningNamesTheDeadline(t *testing.T) {
	s := healthyUpdating(t)
	s.Certificates = append(s.Certificates, inspect.CertificateSecret{Namespace: "openshift-kube-apiserver-operator", Name: "kube-apiserver-to-kubelet-signer", NotAfter: time.Date(2021, 3, 1, 0, 0, 0, 0, time.UTC)})
	p, err := makeStagedExample(t, s, stagedGraph(t, stagedEdges...), "4.6.1", true)
	if err != nil {
		t.Fatal(err)
	}
	if w := p.Stages[1].Warnings[0]; !strings.Contains(w, "unpaused before 2021-02-15T00:00:00Z") {
		t.Fatalf("warning: %s", w)
	}
}

// The refusals: each names the stage and the rule.
func TestStagedPlanRefusals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edges  []string
		to     string
		eus    bool
		mutate func(*inspect.Snapshot)
		stage  int
		rule   string
		says   string
	}{
		{name: "an intermediate with no edge onward", edges: []string{"4.4.3>4.4.4", "4.4.4>4.5.3", "4.5.1>4.6.1"}, to: "4.6.1",
			rule: StageRuleNoPath, says: "4.5.3 has no usable edge onward"},
		{name: "a skew the paused workers cannot take", edges: []string{"4.4.3>4.4.4", "4.4.4>4.5.1", "4.5.1>4.6.1"}, to: "4.6.1", eus: true,
			mutate: func(s *inspect.Snapshot) {
				for i := range s.Nodes {
					if !strings.HasPrefix(s.Nodes[i].Name, "master") {
						s.Nodes[i].KubeletVersion = "v1.16.2"
					}
				}
			}, stage: 3, rule: "kubelet-skew", says: "more than 2 minor(s) behind"},
		{name: "an operator whose maxOpenShiftVersion is below the next minor", edges: stagedEdges, to: "4.6.1",
			mutate: func(s *inspect.Snapshot) {
				s.OLMOperators = []inspect.OLMOperator{{Namespace: "openshift-logging", Name: "elasticsearch-operator.4.5.0", MaxOpenShiftVersion: "4.5"}}
			}, stage: 3, rule: StageRuleOLMMaxOCP, says: "olm.maxOpenShiftVersion 4.5"},
		{name: "a pool already paused by the admin", edges: stagedEdges, to: "4.6.1", eus: true,
			mutate: func(s *inspect.Snapshot) { pausePool(t, s, "worker", false) }, stage: 1, rule: StageRulePoolAdmin, says: "recover does not unpause what it did not pause"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := healthyUpdating(t)
			if tc.mutate != nil {
				tc.mutate(s)
			}
			_, err := makeStagedExample(t, s, stagedGraph(t, tc.edges...), tc.to, tc.eus)
			var re *StageRefusedError
			if !errors.As(err, &re) || re.Stage != tc.stage || re.Rule != tc.rule || !strings.Contains(re.Reason, tc.says) || re.Hint == "" {
				t.Fatalf("want stage %d refused by %s saying %q, got %#v (%v)", tc.stage, tc.rule, tc.says, re, err)
			}
		})
	}
}

// A staged plan is format 1.4 (1.5 when the CVO drives stage 1); a 1.2 plan saved before stages still reads,
// as an update plan with no stages.
func TestStagedPlanRoundTripsAndOldPlansStillRead(t *testing.T) {
	p, err := makeStagedExample(t, healthyUpdating(t), stagedGraph(t, stagedEdges...), "4.6.1", true)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := planfile.Encode(&buf, p); err != nil {
		t.Fatal(err)
	}
	back, _, err := planfile.Parse(buf.Bytes(), "staged.json")
	if err != nil {
		t.Fatal(err)
	}
	if back.FormatVersion != planfile.FormatVersionDriveCVO || len(back.Stages) != 3 || back.Stages[1].Workers != planfile.WorkersPaused || back.Goal != "4.6.1" {
		t.Fatalf("round trip lost the stages: %s %d", back.FormatVersion, len(back.Stages))
	}
	old, _, err := planfile.Load("testdata/format-1.2.plan.json")
	if err != nil {
		t.Fatal(err)
	}
	if old.FormatVersion != "1.2" || len(old.Stages) != 0 || old.Goal != "" || old.EffectiveMode() != planfile.ModeUpdate {
		t.Fatalf("the 1.2 plan reads as %s with %d stages", old.FormatVersion, len(old.Stages))
	}
}

// A staged plan whose decision replaces the CVO (the admin asked, --take-over)
// pushes stage 1 with the CVO disabled and stays format 1.4; the later
// stages are outlined the same way.
func TestStagedPlanTakeOverPushesStageOne(t *testing.T) {
	p, err := MakeStaged(t.Context(), StagedOptions{To: "4.6.1", Options: Options{Snapshot: healthyUpdating(t), Graph: stagedGraph(t, stagedEdges...), Payload: PayloadDir{Dir: payload444},
		TakeOver: "change CHG-1", Now: fixedClock, Generator: "recover test"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.FormatVersion != planfile.FormatVersionStages || p.EffectiveMode() != planfile.ModeUpdate || p.Outcome.Kind != planfile.OutcomeReplaceCVO || p.Steps[0].Action != planfile.ActionDisableCVO {
		t.Fatalf("format %s mode %s outcome %+v first step %s", p.FormatVersion, p.Mode, p.Outcome, p.Steps[0].Action)
	}
	if st := p.Stages[1].Steps; len(st) != 2 || st[0].Action != planfile.ActionSetDesiredUpdate || st[0].Gate.Kind != planfile.GateCVORunning {
		t.Fatalf("stage 2 outline: %+v", st)
	}
}

func TestStagedAcceptNamesAStageThatExists(t *testing.T) {
	_, err := makeStagedExample(t, healthyUpdating(t), stagedGraph(t, stagedEdges...), "4.6.1", false, "7:SomeRisk")
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(ie.Msg, "has 3 stage(s)") {
		t.Fatalf("want an input error naming the stage count, got %v", err)
	}
	p, err := makeStagedExample(t, healthyUpdating(t), stagedGraph(t, stagedEdges...), "4.6.1", false, "2:SomeRisk")
	if err != nil || len(p.Stages[1].Accept) != 1 || p.Stages[1].Accept[0] != "SomeRisk" || len(p.Stages[2].Accept) != 0 {
		t.Fatalf("a stage-scoped accept holds for its stage only: %v", err)
	}
}

// The order apply runs a staged plan in, and Validate over its stages.
func TestRunOrderAndStageValidation(t *testing.T) {
	p, err := makeStagedExample(t, healthyUpdating(t), stagedGraph(t, stagedEdges...), "4.6.1", true)
	if err != nil {
		t.Fatal(err)
	}
	order := planfile.RunOrder(p)
	want := len(p.Stages[0].Steps) + len(p.Steps) + len(p.Stages[1].Steps) + len(p.Stages[2].Steps)
	if len(order) != want {
		t.Fatalf("%d steps in run order, want %d", len(order), want)
	}
	if at := len(p.Stages[0].Steps); order[0].Stage != 1 || order[at].Step != &p.Steps[0] {
		t.Fatalf("stage 1's own steps, then the plan's: %+v", order[at])
	}
	last := order[len(order)-1]
	if last.Stage != 3 || last.Step.Action != planfile.ActionUnpausePool {
		t.Fatalf("the run ends with stage 3's unpause: %+v", last)
	}
	for i := 1; i < len(order); i++ {
		if order[i].Stage < order[i-1].Stage {
			t.Fatalf("stage %d after stage %d at %d", order[i].Stage, order[i-1].Stage, i)
		}
	}
	if err := planfile.Validate(p); err != nil {
		t.Fatalf("the EUS plan does not validate: %v", err)
	}
	bad := *p
	bad.Stages = append([]planfile.Stage(nil), p.Stages...)
	bad.Stages[2].From = "4.5.2"
	bad.Stages[1].Steps = append([]planfile.Step(nil), p.Stages[1].Steps...)
	bad.Stages[1].Steps[0].ID = p.Steps[0].ID
	bad.Stages[1].Steps[1].Pool = ""
	err = planfile.Validate(&bad)
	for _, want := range []string{"stage 3 starts at 4.5.2, not where stage 2 ends (4.5.1)", "stage 2: step " + p.Steps[0].ID + ": duplicate step id", "pause-pool needs pool"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate of the broken plan: %v; want %q", err, want)
		}
	}
	plain := planfile.RunOrder(&planfile.Plan{Steps: []planfile.Step{{ID: "a"}, {ID: "b"}}})
	if len(plain) != 2 || plain[0].Stage != 0 || plain[1].Step.ID != "b" {
		t.Fatalf("a plan without stages runs its steps: %+v", plain)
	}
}

// TestAStageIsValidAsItRuns: where stage 1 is the paused hop, its own steps
// (the pools' Updated wait and pause) run before the plan's Steps, which hold
// its hand-over to the CVO; Validate checks them together, as RunOrder runs
// them, so a drive-cvo stage 1 is not refused for lacking its desiredUpdate.
func TestAStageIsValidAsItRuns(t *testing.T) {
	p, err := makeStagedExample(t, healthyUpdating(t), stagedGraph(t, stagedEdges...), "4.6.1", true)
	if err != nil {
		t.Fatal(err)
	}
	if p.EffectiveMode() != planfile.ModeDriveCVO {
		t.Fatalf("mode %s: this test wants a drive-cvo stage 1", p.EffectiveMode())
	}
	// Make stage 1 the paused hop: the pause moves from stage 2 to stage 1.
	pause := p.Stages[1].Steps[:2]
	p.Stages[0].Steps = append(append([]planfile.Step{}, pause...), p.Stages[0].Steps...)
	p.Stages[1].Steps = p.Stages[1].Steps[2:]
	if err := planfile.Validate(p); err != nil {
		t.Fatalf("a stage 1 that pauses before the plan's desiredUpdate is refused: %v", err)
	}
	// A later stage without its desiredUpdate is still refused.
	p.Stages[1].Steps = p.Stages[1].Steps[1:]
	if err := planfile.Validate(p); err == nil || !strings.Contains(err.Error(), "stage 2") {
		t.Fatalf("a later stage without its desiredUpdate: %v", err)
	}
}

// An EUS path whose first hop recover pushes (the real BZ1838497 wedge, which
// the CVO would reconcile flat): the push plan pauses the worker pool inside
// its CVO bracket (every change between disable-cvo and restore-cvo) once it
// is Updated, and holds it there: it neither unpauses it once the control
// plane is at 4.4.4 (which would roll the workers onto the intermediate minor
// EUS skips) nor waits on it; the last stage unpauses it. Before Options.Hold
// the stage paused it ahead of disable-cvo and the planner refused its own plan.
func TestEUSPushedFirstHopHoldsTheWorkers(t *testing.T) {
	pdir := shareddata.RealData(t, realPayload)
	pl, err := payload.LoadDir(pdir, payload.Options{Version: "4.4.4"})
	if err != nil {
		t.Fatal(err)
	}
	s := realWedge(t, pl)
	// The workers settled on 4.4's kubelet (the skew rule refuses the path
	// with them on 4.3's): the pool is Updated, so it may be paused.
	for i := range s.MachineConfigPools {
		if mp := &s.MachineConfigPools[i]; mp.Name == "worker" {
			mp.UpdatedMachineCount, mp.StatusConfiguration = mp.MachineCount, mp.Configuration
		}
	}
	for i := range s.Nodes {
		if !s.Nodes[i].IsControlPlane() {
			s.Nodes[i].KubeletVersion = "v1.17.1"
		}
	}
	g := stagedGraph(t, "4.3.19>4.4.4", "4.4.3>4.4.4", "4.4.4>4.5.1", "4.5.1>4.6.1")
	p, err := MakeStaged(t.Context(), StagedOptions{To: "4.6.1", EUS: true,
		Options: Options{Snapshot: s, Graph: g, Payload: PayloadDir{Dir: pdir, Version: "4.4.4"}, Now: fixedClock, Generator: "recover test"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Steps[0].Action != planfile.ActionDisableCVO || p.Stages[0].Workers != planfile.WorkersPaused {
		t.Fatalf("want a pushed, paused first hop: first step %s, workers %s", p.Steps[0].Action, p.Stages[0].Workers)
	}
	var touches []string
	for _, rs := range planfile.RunOrder(p) {
		st := rs.Step
		if st.Pool == "worker" || st.Gate != nil && st.Gate.Pool == "worker" {
			touches = append(touches, fmt.Sprintf("%d:%s", rs.Stage, st.Action))
		}
	}
	if got, want := strings.Join(touches, " "), "1:wait 1:pause-pool 3:unpause-pool"; got != want {
		t.Fatalf("the worker pool's steps in run order: %s, want %s", got, want)
	}
	if pause := slices.IndexFunc(p.Steps, func(st planfile.Step) bool { return st.Action == planfile.ActionPausePool && st.Pool == "worker" }); pause < 1 {
		t.Fatalf("the worker pool's pause is not inside the push plan's CVO bracket (at %d)", pause)
	}
	if !slices.ContainsFunc(p.Steps, func(st planfile.Step) bool { return st.Action == planfile.ActionPausePool && st.Pool == "master" }) {
		t.Fatal("the push plan no longer pauses the master pool it must hold behind the kube-apiserver")
	}
	for _, w := range p.Warnings {
		if strings.Contains(w, "MachineConfigPool worker was paused before recovery") {
			t.Fatalf("the stage's own pause is called the user's: %s", w)
		}
	}
}
