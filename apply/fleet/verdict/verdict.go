package verdict

import (
	"fmt"
	"time"

	"github.com/openshift-recover/recover/plan/planfile"
)

// FormatVersion is the verdict's version: a minor bump only adds fields (readers
// ignore unknown ones), a major bump breaks, and readers refuse a major they do
// not know.
const FormatVersion = "1.1"

// Verdict is one cluster's answer for a hub.
type Verdict struct {
	FormatVersion string `json:"formatVersion"`
	// Wave names the fleet run that wrote it (recover fleet export --wave); ""
	// for a verdict written by hand. A hub compares it to tell a fresh verdict
	// from one an earlier wave left behind.
	Wave string `json:"wave,omitempty"`
	// Source is where the cluster was read ("live:<server>",
	// "must-gather:<path>", ...); InspectedAt when.
	Source      string    `json:"source"`
	InspectedAt time.Time `json:"inspectedAt"`
	// Wedged is true when something holds the update back: a cause of class
	// blocks-update in inspect's wedge summary.
	Wedged bool `json:"wedged"`
	// Causes are the blocking causes, most blocking first (inspect.Wedges).
	Causes []Cause `json:"causes,omitempty"`
	// Remedy is what recover would do about them.
	Remedy Remedy `json:"remedy"`
	// Signature identifies the wedge: clusters with the same causes and the
	// same answer share it (see Signature).
	Signature string `json:"signature"`
	// Settled is true when recover has nothing left to do: nothing was wedged
	// when inspected, or an apply run of the verdict's plan completed.
	Settled bool `json:"settled"`
	// Apply is how the apply run of the plan is going; nil until one starts.
	Apply *ApplyState `json:"apply,omitempty"`
}

// Cause is one line of inspect's wedge summary that holds the update.
type Cause struct {
	Rank int `json:"rank"`
	// Code is the finding code of the cause; Subject its first subject
	// ("poddisruptionbudget/ci/deck", "node/master-1").
	Code    string `json:"code"`
	Subject string `json:"subject"`
	// Summary is the wedge summary's sentence.
	Summary string `json:"summary,omitempty"`
}

// Answer is the kind of answer the planner gave.
type Answer string

// The answers, from "nothing to do" to "recover cannot".
const (
	// AnswerNone: nothing holds the update; nothing to do.
	AnswerNone Answer = "none"
	// AnswerPlan: recover has a remediation plan it may take as it is.
	AnswerPlan Answer = "plan"
	// AnswerNeedsAccept: the remedies are an admin's promises; recover takes
	// them once the names in Remedy.Accept are passed with --accept.
	AnswerNeedsAccept Answer = "needs-accept"
	// AnswerRefused: the only remedies are ones recover never takes (a guard
	// PodDisruptionBudget, a CSR nobody vouches for); repair what the findings
	// name.
	AnswerRefused Answer = "refused"
	// AnswerNewRelease: the cluster needs a new release, not remedies in
	// place: plan with an update graph (recover plan --graph).
	AnswerNewRelease Answer = "new-release"
	// AnswerAdvice: something holds the update that recover does not change
	// (a webhook, an expiring certificate, a release the CVO refuses); the
	// findings say what the admin does.
	AnswerAdvice Answer = "advice"
)

// Remedy is the planner's remediation-only answer for the snapshot.
type Remedy struct {
	Answer Answer `json:"answer"`
	// Outcome and Rule are the decision the answer comes from (plan.Decide),
	// the same for recover plan, the TUI and this verdict.
	Outcome planfile.OutcomeKind `json:"outcome,omitempty"`
	Rule    string               `json:"rule,omitempty"`
	// Remedies are the remedies the plan takes (AnswerPlan) or the ones refused
	// (AnswerNeedsAccept, AnswerRefused), in plan order, each once
	// (plan.RemedyRelaxPDB, ...).
	Remedies []string `json:"remedies,omitempty"`
	// Accept are the --accept names the refused promises wait for, sorted.
	Accept []string `json:"accept,omitempty"`
	// Accepted are the --accept names the plan's remedies were allowed by.
	Accepted []string `json:"accepted,omitempty"`
	// Reason says why, in one line.
	Reason string `json:"reason"`
	// PlanDigest is the sha256 of the plan document (as recover plan -o json
	// writes it) when there is a plan; the plan ConfigMap holds those bytes.
	PlanDigest string `json:"planDigest,omitempty"`
}

// NeedsAccept reports whether the remedy waits for --accept names.
func (r Remedy) NeedsAccept() bool { return len(r.Accept) > 0 }

// ApplyPhase is where an apply run is.
type ApplyPhase string

// The apply phases, in the order a run passes them.
const (
	// PhasePreflight: the run started and checks the plan, the cluster, the
	// permissions and the backup.
	PhasePreflight ApplyPhase = "preflight"
	// PhaseRunning: the lock is held and the steps run.
	PhaseRunning ApplyPhase = "running"
	// PhaseReverting: the run stopped before a temporary change's revert step
	// and writes the change's pre-image back.
	PhaseReverting ApplyPhase = "reverting"
	// PhaseDone: the run ended; Result says how.
	PhaseDone ApplyPhase = "done"
)

// ApplyState is an apply run's progress, as the engine's events report it.
type ApplyState struct {
	Phase ApplyPhase `json:"phase"`
	// PlanDigest is the digest of the plan the run executes.
	PlanDigest string `json:"planDigest,omitempty"`
	// Step is the ID of the step running, or the last one that ran.
	Step string `json:"step,omitempty"`
	// StepIndex counts from 1; StepsTotal is the plan's.
	StepIndex  int `json:"stepIndex,omitempty"`
	StepsTotal int `json:"stepsTotal,omitempty"`
	// Result is the run's outcome once done (apply.Outcome: completed,
	// gate-failed, ...); Message its one-line summary.
	Result  string `json:"result,omitempty"`
	Message string `json:"message,omitempty"`
	// CVODisabled is true when the run left the CVO scaled down; HandBack is
	// then the command that gives it control back, with CVOReplicas the
	// replicas it scales the CVO to.
	CVODisabled bool   `json:"cvoDisabled,omitempty"`
	HandBack    string `json:"handBack,omitempty"`
	CVOReplicas int32  `json:"cvoReplicas,omitempty"`
	// Next is the first command to run next, when the run says one.
	Next      string    `json:"next,omitempty"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// ResultCompleted is the outcome of an apply run whose every step is done
// (apply.OutcomeCompleted; the apply printer test keeps them equal).
const ResultCompleted = "completed"

// ResultNoPlan is the outcome of an apply run that found, instead of a plan,
// why there is none (the verdict's answer was not plan): it changed nothing
// and settles nothing.
const ResultNoPlan = "no-plan"

// SetApply records an apply run's state; a completed run settles the cluster.
func (v *Verdict) SetApply(a ApplyState) {
	v.Apply = &a
	if a.Phase == PhaseDone && a.Result == ResultCompleted {
		v.Settled = true
	}
}

// Merge is the record to store when next is written over stored (nil when
// there is none): next, except that an apply run's state of the same wave
// outlives a verdict that has none, with what the run settled. The verdict is
// one record per wave: inspect --verdict run again after the wave's apply
// never erases settled, applyPhase or applyResult (issue 34).
func Merge(stored, next *Verdict) *Verdict {
	if stored == nil || stored.Apply == nil || next.Apply != nil || stored.Wave != next.Wave {
		return next
	}
	merged := *next
	merged.SetApply(*stored.Apply)
	return &merged
}

// MaxWaveLength keeps a wave name short enough for the object names it is part
// of (recover-inspect-<wave>, a Job whose name is also a label value).
const MaxWaveLength = 40

// ValidateWave checks a wave name: lowercase letters, digits and '-', starting
// and ending with a letter or digit, at most MaxWaveLength characters ("" is
// no wave).
func ValidateWave(w string) error {
	if w == "" {
		return nil
	}
	ok := len(w) <= MaxWaveLength && w[0] != '-' && w[len(w)-1] != '-'
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			ok = false
		}
	}
	if !ok {
		return fmt.Errorf("wave %q: use lowercase letters, digits and '-', at most %d characters, starting and ending with a letter or digit", w, MaxWaveLength)
	}
	return nil
}
