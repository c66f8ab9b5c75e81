package journal

import (
	"encoding/json"
	"slices"
	"sort"
	"time"
)

// State is what a journal says about a run: where each step is, what the CVO was
// and is, and how the last run ended. It is derived from the records alone; resume
// re-checks the in-flight step against the cluster.
type State struct {
	// Steps holds every step the journal mentions, in the order first mentioned.
	Steps []*StepState
	// CVO is the cluster-version operator as the journal knows it.
	CVO CVOState
	// Backup is the last backup record.
	Backup *Backup
	// Runs counts the runs (the first and every resume); RunID is the last one's.
	Runs  int
	RunID string
	// LastStop is the last stop record, when the last run stopped; Finished is
	// true when a run reached the end of the plan.
	LastStop *Stop
	Finished bool
	// InFlight is the step with an intent and no step record, if any.
	InFlight string
	// Stages are a staged run's stages (from the header, formatVersion 1.2)
	// with where each is; Stage is the one running or last run (0: none yet,
	// or not a staged run).
	Stages []StageStatus
	Stage  int

	byID map[string]*StepState
}

// StepState is one step as the journal knows it.
type StepState struct {
	ID     string     `json:"id"`
	Action string     `json:"action,omitempty"`
	Status StepStatus `json:"status"`
	// Intents and Outcomes count the records; Mutations counts outcomes that
	// changed the cluster (created, updated, deleted, scaled, patched).
	Intents   int `json:"intents"`
	Outcomes  int `json:"outcomes"`
	Mutations int `json:"mutations"`
	// LastOutcome and Gate are the latest of their kind.
	LastOutcome *Outcome    `json:"lastOutcome,omitempty"`
	Gate        *GateResult `json:"gate,omitempty"`
	Message     string      `json:"message,omitempty"`
	Started     time.Time   `json:"started,omitzero"`
	Finished    time.Time   `json:"finished,omitzero"`

	// The remediation facts (formatVersion 1.1).

	// Object is the object the step's change patches, from its first intent
	// that carries a pre-image; ObjectUID is its UID then.
	Object    *ObjectRef `json:"object,omitempty"`
	ObjectUID string     `json:"objectUID,omitempty"`
	// PreImage is the pre-image of the step's FIRST intent: the live values of
	// the fields its change sets, read before anything was changed (null: absent).
	// A resume, a revert and the restored gate use it, never a later read.
	PreImage map[string]json.RawMessage `json:"preImage,omitempty"`
	// After is what the change sets the same fields to (from that intent).
	After map[string]json.RawMessage `json:"after,omitempty"`
	// Temporary is true when a revert step of the plan undoes the change.
	Temporary bool `json:"temporary,omitempty"`
	// ChangeOutstanding is true when the change may be in effect: an intent was
	// journaled (the change may have been made even when no outcome says so) and
	// no revert of it succeeded since.
	ChangeOutstanding bool `json:"changeOutstanding,omitempty"`
	// Reverts counts the successful reverts of the change; RestoredBy names the
	// last: the plan's revert step, or RestoredOnStop when the engine undid it
	// because the run stopped before that step.
	Reverts    int    `json:"reverts,omitempty"`
	RestoredBy string `json:"restoredBy,omitempty"`
	// RevertOf, on a revert step, is the step whose change it undoes.
	RevertOf string `json:"revertOf,omitempty"`

	changeSeq  int    // seq of the last forward intent
	revertOpen string // the step whose revert this step's last intent announced
}

// RestoredOnStop is StepState.RestoredBy when the engine reverted a temporary
// change because the run stopped before the plan's revert step.
const RestoredOnStop = "revert-on-stop"

// Operations of intents, as recorded in Intent.Operation, that the state reads.
const (
	// OperationRevert: the intent writes a change's pre-image back.
	OperationRevert = "revert"
	// OperationCreate: the intent creates an object that is absent.
	OperationCreate = "create"
)

// Results of revert outcomes.
const (
	// ResultReverted: the pre-image was written back.
	ResultReverted = "reverted"
)

// StageStatus is one stage of a staged run and where it is.
type StageStatus struct {
	StageRef
	State StageState `json:"state"`
	// StepIDs are the steps the journal records for the stage (the plan
	// holds the others).
	StepIDs []string `json:"stepIDs,omitempty"`
}

// CVOState is the cluster-version operator as recorded.
type CVOState struct {
	// OriginalReplicas is the replicas recorded before the first scale-down.
	OriginalReplicas *int32 `json:"originalReplicas,omitempty"`
	// Disabled is true from the scale-down intent until a restore outcome.
	Disabled bool `json:"disabled"`
	Restored bool `json:"restored"`
}

// Operations that change the cluster, as recorded in Outcome.Result.
var mutatingResults = map[string]bool{"created": true, "updated": true, "deleted": true, "scaled": true, "patched": true, "approved": true, ResultReverted: true}

// State derives the run state from the records.
func (j *Journal) State() *State {
	s := newState()
	for _, r := range j.Records {
		s.apply(r)
	}
	s.settle()
	return s
}

func newState() *State { return &State{byID: map[string]*StepState{}} }

// apply folds one record into the state.
func (s *State) apply(r Record) {
	switch r.Type {
	case TypeHeader:
		s.Runs++
		s.RunID = r.Header.RunID
		for _, ref := range r.Header.Stages {
			s.Stages = append(s.Stages, StageStatus{StageRef: ref, State: StagePending})
		}
	case TypeStage:
		s.stageMark(r.StageMark)
	case TypeResume:
		s.Runs++
		if r.Resume != nil {
			s.RunID = r.Resume.RunID
		}
		s.LastStop = nil
	case TypeBackup:
		s.Backup = r.Backup
	case TypeStop:
		s.LastStop = r.Stop
	case TypeFinish:
		s.Finished = true
	}
	if r.Step == "" {
		return
	}
	known := s.byID[r.Step] != nil
	st := s.step(r.Step, r.Action)
	if !known && s.Stage > 0 && s.Stage <= len(s.Stages) {
		ss := &s.Stages[s.Stage-1]
		ss.StepIDs = append(ss.StepIDs, st.ID)
	}
	switch r.Type {
	case TypeIntent:
		st.Intents++
		if st.Started.IsZero() {
			st.Started = r.Time
		}
		if s.remediationIntent(st, r) {
			// A revert the engine made of the step's own change when a run
			// stopped: the step's status is not the revert's.
			break
		}
		if st.Status != StepDone && st.Status != StepSkipped {
			st.Status = StepInFlight
		}
		if r.Intent != nil && r.Intent.Operation == "scale-down" {
			if s.CVO.OriginalReplicas == nil {
				s.CVO.OriginalReplicas = r.Intent.CVOReplicas
			}
			s.CVO.Disabled = true
			s.CVO.Restored = false
		}
	case TypeOutcome:
		st.Outcomes++
		st.LastOutcome = r.Outcome
		if s.revertOutcome(st, r) {
			break
		}
		if r.Outcome != nil {
			if mutatingResults[r.Outcome.Result] {
				st.Mutations++
			}
			if r.Outcome.Result == "failed" {
				st.Status = StepFailed
			} else if st.Status != StepDone && st.Status != StepSkipped {
				st.Status = StepApplied
			}
			if r.Action == "restore-cvo" && r.Outcome.Result != "failed" {
				s.CVO.Disabled = false
				s.CVO.Restored = true
			}
		}
	case TypeGate:
		st.Gate = r.Gate
		if r.Gate != nil && r.Gate.Result != "passed" && r.Gate.Result != "skipped" {
			st.Status = StepFailed
		}
	case TypeStep:
		st.Status = r.Status
		st.Message = r.Message
		st.Finished = r.Time
		if r.Status == StepDone && st.RevertOf != "" {
			// A revert step is done only once its object is back at the pre-image.
			if target := s.byID[st.RevertOf]; target != nil && target.ChangeOutstanding {
				target.ChangeOutstanding = false
				target.Reverts++
				target.RestoredBy = st.ID
			}
		}
	case TypeReverted:
		st.Status = StepReverted
		st.Message = r.Message
		if st.ChangeOutstanding {
			st.Reverts++
		}
		st.ChangeOutstanding = false
		st.RestoredBy = RestoredOnStop
	}
}

// stageMark folds a stage record: a stage running means every stage before
// it landed (a run killed between a stage's last step and its landed record
// has its landing implied by the next stage's start).
func (s *State) stageMark(m *StageMark) {
	if m == nil || m.Index < 1 || m.Index > len(s.Stages) {
		return
	}
	s.Stage = m.Index
	for i := range s.Stages[:m.Index-1] {
		s.Stages[i].State = StageLanded
	}
	s.Stages[m.Index-1].State = m.State
}

// StageOf returns the stage a journaled step belongs to (0 when none).
func (s *State) StageOf(id string) int {
	for _, st := range s.Stages {
		if slices.Contains(st.StepIDs, id) {
			return st.Index
		}
	}
	return 0
}

// settle derives InFlight and a stopped run's stage.
func (s *State) settle() {
	if s.Stage > 0 && s.Stage <= len(s.Stages) {
		if st := &s.Stages[s.Stage-1]; st.State == StageRunning && s.LastStop != nil {
			st.State = StageStopped
		} else if st.State == StageStopped && s.LastStop == nil {
			st.State = StageRunning
		}
	}
	s.InFlight = ""
	for _, st := range s.Steps {
		if st.Status == StepInFlight || st.Status == StepApplied || st.Status == StepFailed {
			s.InFlight = st.ID
		}
	}
}

func (s *State) step(id, action string) *StepState {
	st, ok := s.byID[id]
	if !ok {
		st = &StepState{ID: id, Status: StepPending}
		s.byID[id] = st
		s.Steps = append(s.Steps, st)
	}
	if action != "" {
		st.Action = action
	}
	return st
}

// remediationIntent records what an intent says about a change and its revert,
// and reports whether it is a revert of the step's own change (made by the
// engine when a run stopped), which leaves the step's status alone.
func (s *State) remediationIntent(st *StepState, r Record) bool {
	in := r.Intent
	if in == nil {
		return false
	}
	if in.RevertOf != "" {
		st.revertOpen = in.RevertOf
		if in.RevertOf != st.ID {
			st.RevertOf = in.RevertOf
			return false
		}
		return true
	}
	st.revertOpen = ""
	if in.PreImage == nil {
		return false
	}
	if st.PreImage == nil {
		st.PreImage = in.PreImage
		obj := in.Object
		st.Object, st.ObjectUID = &obj, in.LiveUID
		var after map[string]json.RawMessage
		if json.Unmarshal([]byte(in.After), &after) == nil {
			st.After = after
		}
	}
	st.Temporary = st.Temporary || in.Temporary
	st.ChangeOutstanding = true
	st.changeSeq = r.Seq
	return false
}

// revertOutcome records the outcome of a revert (the plan's revert step, or the
// engine's revert of a step's own change) on the step whose change it undoes,
// and reports whether it was the latter.
func (s *State) revertOutcome(st *StepState, r Record) bool {
	if st.revertOpen == "" || r.Outcome == nil {
		return false
	}
	own := st.revertOpen == st.ID
	if r.Outcome.Result != "failed" {
		target := s.step(st.revertOpen, "")
		if target.ChangeOutstanding {
			target.Reverts++
		}
		target.ChangeOutstanding = false
		if own {
			target.RestoredBy = RestoredOnStop
		} else {
			target.RestoredBy = st.ID
		}
	}
	if own {
		st.revertOpen = ""
	}
	return own
}

// Outstanding returns the temporary changes that may still be in effect, the
// newest first: what the engine reverts when a run stops.
func (s *State) Outstanding() []*StepState {
	var out []*StepState
	for _, st := range s.Steps {
		if st.Temporary && st.ChangeOutstanding {
			out = append(out, st)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].changeSeq > out[j].changeSeq })
	return out
}

// Step returns the state of the step with the given ID, or nil when the journal
// does not mention it.
func (s *State) Step(id string) *StepState { return s.byID[id] }

// Complete reports whether the step is done or skipped.
func (st *StepState) Complete() bool {
	return st != nil && (st.Status == StepDone || st.Status == StepSkipped)
}
