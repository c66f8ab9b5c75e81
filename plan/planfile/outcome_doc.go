package planfile

// OutcomeKind is how far recover intervenes.
type OutcomeKind string

// The outcomes, from doing nothing to taking the wheel.
const (
	// OutcomeNothing: nothing holds the update; recover changes nothing.
	OutcomeNothing OutcomeKind = "nothing"
	// OutcomeAdvice: something holds the update that recover does not change;
	// the findings say what the admin does. The CVO keeps the wheel.
	OutcomeAdvice OutcomeKind = "advice"
	// OutcomeRemediation: remedies unblock the cluster in place; the CVO is
	// stopped only where it would act on a half-unblocked cluster (not in
	// Updating mode, where it moves forward in its own order).
	OutcomeRemediation OutcomeKind = "remediation"
	// OutcomeDriveCVO: the CVO is given another desired update (a retarget
	// within the minor under way) and carries it out itself.
	OutcomeDriveCVO OutcomeKind = "drive-cvo"
	// OutcomeReplaceCVO: the CVO would do harm (reconcile a mixed cluster
	// flat and shuffled) or the admin asked: it is disabled and recover pushes
	// the target's manifests in its order.
	OutcomeReplaceCVO OutcomeKind = "replace-cvo"
	// OutcomeRefused: remedies exist but recover will not take them, unsafe or
	// waiting for the admin's --accept names.
	OutcomeRefused OutcomeKind = "refused"
)

// Makes reports whether the outcome is carried out by a plan.
func (k OutcomeKind) Makes() bool {
	switch k {
	case OutcomeRemediation, OutcomeDriveCVO, OutcomeReplaceCVO:
		return true
	}
	return false
}

// NeedsRelease reports whether the outcome needs a target release (an update
// graph to choose it from).
func (k OutcomeKind) NeedsRelease() bool { return k == OutcomeDriveCVO || k == OutcomeReplaceCVO }

// Outcome is the decision for one snapshot: its kind, the rule that chose it,
// one sentence why, and the findings that rule read.
type Outcome struct {
	Kind OutcomeKind `json:"kind"`
	// Rule names the rule of Rules that chose it.
	Rule string `json:"rule"`
	// Why says in one sentence why this outcome was chosen (the plan's
	// header, the verdict's reason, "nothing to apply").
	Why string `json:"why"`
	// Evidence are the findings the rule read.
	Evidence []Evidence `json:"evidence,omitempty"`
}

// Evidence is one finding an outcome's rule read.
type Evidence struct {
	Finding string `json:"finding"`
	Subject string `json:"subject,omitempty"`
}
