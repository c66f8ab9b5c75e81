package journal

import (
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
var mutatingResults = map[string]bool{"created": true, "updated": true, "deleted": true, "scaled": true, "patched": true}

// State derives the run state from the records.
func (j *Journal) State() *State {
	s := &State{byID: map[string]*StepState{}}
	for _, r := range j.Records {
		switch r.Type {
		case TypeHeader:
			s.Runs++
			s.RunID = r.Header.RunID
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
			continue
		}
		st := s.step(r.Step, r.Action)
		switch r.Type {
		case TypeIntent:
			st.Intents++
			if st.Started.IsZero() {
				st.Started = r.Time
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
		}
	}
	for _, st := range s.Steps {
		if st.Status == StepInFlight || st.Status == StepApplied || st.Status == StepFailed {
			s.InFlight = st.ID
		}
	}
	return s
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

// Step returns the state of the step with the given ID, or nil when the journal
// does not mention it.
func (s *State) Step(id string) *StepState { return s.byID[id] }

// Complete reports whether the step is done or skipped.
func (st *StepState) Complete() bool {
	return st != nil && (st.Status == StepDone || st.Status == StepSkipped)
}
