package journal

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// stagedJournal is an EUS run 4.18.9 -> 4.19.17 -> 4.20.4: stage 1 paused the
// worker pool and landed, stage 2 started, then whatever tail adds.
func stagedJournal(tail ...Record) *Journal {
	pool := ObjectRef{APIVersion: "machineconfiguration.openshift.io/v1", Kind: "MachineConfigPool", Name: "worker"}
	h := &Header{FormatVersion: FormatVersion, RunID: "r1", Plan: PlanRef{Path: "plan.json", Steps: 5}, StartVersion: "4.18.9", Goal: "4.20.4",
		Stages: []StageRef{{Index: 1, From: "4.18.9", To: "4.19.17", Workers: "paused", Steps: 3}, {Index: 2, From: "4.19.17", To: "4.20.4", Workers: "follow", Steps: 2}}}
	recs := []Record{
		{Type: TypeHeader, Header: h},
		{Type: TypeStage, StageMark: &StageMark{Index: 1, State: StageRunning}},
		{Type: TypeIntent, Step: "stage1-002-pause-pool-worker", Action: "pause-pool", Intent: &Intent{Operation: "patch", Object: pool, PreImage: map[string]json.RawMessage{"spec.paused": json.RawMessage("false")}, Temporary: true}},
		{Type: TypeOutcome, Step: "stage1-002-pause-pool-worker", Action: "pause-pool", Outcome: &Outcome{Result: "patched"}},
		{Type: TypeStep, Step: "stage1-002-pause-pool-worker", Action: "pause-pool", Status: StepDone},
		{Type: TypeStep, Step: "001-set-desired-update", Action: "set-desired-update", Status: StepDone},
		{Type: TypeStage, StageMark: &StageMark{Index: 1, State: StageLanded}},
		{Type: TypeStage, StageMark: &StageMark{Index: 2, State: StageRunning}},
		{Type: TypeStep, Step: "stage2-001-set-desired-update", Action: "set-desired-update", Status: StepDone},
	}
	recs = append(recs, tail...)
	for i := range recs {
		recs[i].Seq = i + 1
	}
	return &Journal{Path: "run.journal", Header: *h, Records: recs}
}

func TestStagesInTheJournal(t *testing.T) {
	t.Run("killed in stage 2", func(t *testing.T) {
		st := stagedJournal().State()
		if st.Stage != 2 || st.Stages[0].State != StageLanded || st.Stages[1].State != StageRunning {
			t.Fatalf("stage %d, stages %+v", st.Stage, st.Stages)
		}
		if st.StageOf("stage2-001-set-desired-update") != 2 || st.StageOf("001-set-desired-update") != 1 {
			t.Fatalf("steps' stages: %+v", st.Stages)
		}
		if out := st.Outstanding(); len(out) != 1 || out[0].ID != "stage1-002-pause-pool-worker" {
			t.Fatalf("the pause is a temporary change in effect: %+v", out)
		}
	})
	t.Run("stopped in stage 2 with the pause reverted", func(t *testing.T) {
		j := stagedJournal(
			Record{Type: TypeIntent, Step: "stage1-002-pause-pool-worker", Action: "pause-pool", Intent: &Intent{Operation: OperationRevert, RevertOf: "stage1-002-pause-pool-worker"}},
			Record{Type: TypeOutcome, Step: "stage1-002-pause-pool-worker", Action: "pause-pool", Outcome: &Outcome{Result: ResultReverted}},
			Record{Type: TypeReverted, Step: "stage1-002-pause-pool-worker", Action: "pause-pool"},
			Record{Type: TypeStop, Stop: &Stop{Reason: "gate-failed", Message: "machine-config gate not met"}},
		)
		s := Summarize(j)
		if s.Stage != 2 || s.Stages[1].State != StageStopped || len(j.State().Outstanding()) != 0 {
			t.Fatalf("stage %d, stages %+v", s.Stage, s.Stages)
		}
		if !strings.Contains(s.Holds, "stage 2 of 2 (4.19.17 -> 4.20.4) holds the run to 4.20.4") || !strings.Contains(s.Holds, "continues stage 2") || !strings.Contains(s.Holds, "nothing recover changed is left to restore") {
			t.Fatalf("holds: %s", s.Holds)
		}
		var buf bytes.Buffer
		if err := s.WriteTable(&buf); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"Stages:", "2, from 4.18.9 to 4.20.4", "4.18.9 -> 4.19.17  landed (3 steps, workers paused)", "4.19.17 -> 4.20.4  stopped (2 steps, workers follow)  <- holds the run", "Held by:"} {
			if !strings.Contains(buf.String(), want) {
				t.Errorf("the table lacks %q:\n%s", want, buf.String())
			}
		}
	})
	t.Run("stopped after stage 1 landed, as --until-stage 1 asked", func(t *testing.T) {
		j := stagedJournal()
		// Cut at stage 1's landing, then the stop the run journals.
		var recs []Record
		for _, r := range j.Records {
			recs = append(recs, r)
			if r.Type == TypeStage && r.StageMark.Index == 1 && r.StageMark.State == StageLanded {
				break
			}
		}
		j.Records = append(recs, Record{Type: TypeStop, Step: "001-set-desired-update", Stop: &Stop{Reason: "stopped", Message: "stage 1 of 2 landed"}})
		s := Summarize(j)
		if s.Stage != 1 || s.Stages[0].State != StageLanded || s.Stages[1].State != StagePending || len(j.State().Outstanding()) != 1 {
			t.Fatalf("stage %d, stages %+v, outstanding %d", s.Stage, s.Stages, len(j.State().Outstanding()))
		}
		if !strings.Contains(s.Holds, "stage 2 of 2 (4.19.17 -> 4.20.4) holds the run to 4.20.4, after stage 1 landed") || !strings.Contains(s.Holds, "starts stage 2") || !strings.Contains(s.Holds, "the pools recover paused included") {
			t.Fatalf("holds: %s", s.Holds)
		}
		var buf bytes.Buffer
		if err := s.WriteTable(&buf); err != nil {
			t.Fatal(err)
		}
		if want := "4.19.17 -> 4.20.4  pending (2 steps, workers follow)  <- holds the run"; !strings.Contains(buf.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, buf.String())
		}
	})
	t.Run("a stage started implies the ones before landed", func(t *testing.T) {
		j := stagedJournal()
		recs := j.Records[:0:0]
		for _, r := range j.Records {
			if r.Type != TypeStage || r.StageMark.State != StageLanded {
				recs = append(recs, r)
			}
		}
		j.Records = recs
		if st := j.State(); st.Stages[0].State != StageLanded {
			t.Fatalf("stage 1: %s", st.Stages[0].State)
		}
	})
	t.Run("the plan's unpause restores the pause", func(t *testing.T) {
		st := stagedJournal(
			Record{Type: TypeIntent, Step: "stage2-003-unpause-pool-worker", Action: "unpause-pool", Intent: &Intent{Operation: "patch", RevertOf: "stage1-002-pause-pool-worker"}},
			Record{Type: TypeOutcome, Step: "stage2-003-unpause-pool-worker", Action: "unpause-pool", Outcome: &Outcome{Result: "patched"}},
			Record{Type: TypeStep, Step: "stage2-003-unpause-pool-worker", Action: "unpause-pool", Status: StepDone},
			Record{Type: TypeStage, StageMark: &StageMark{Index: 2, State: StageLanded}},
			Record{Type: TypeFinish},
		).State()
		pause := st.Step("stage1-002-pause-pool-worker")
		if pause.ChangeOutstanding || pause.RestoredBy != "stage2-003-unpause-pool-worker" || st.Stages[1].State != StageLanded {
			t.Fatalf("pause %+v, stages %+v", pause, st.Stages)
		}
	})
	t.Run("a run without stages has none", func(t *testing.T) {
		if s := Summarize(summaryJournal()); len(s.Stages) != 0 || s.Holds != "" {
			t.Fatalf("stages %+v holds %q", s.Stages, s.Holds)
		}
	})
}
