package plan

import (
	"github.com/openshift-recover/recover/plan/planfile"
)

// NoTargetReport is the machine-readable form of a NoTargetError (recover plan
// -o json|yaml when no target qualifies): the error, its exit code, the risks
// that would let the nearest candidate qualify, and every candidate with why it
// was refused. It carries the plan's FormatVersion.
type NoTargetReport struct {
	FormatVersion string               `json:"formatVersion"`
	Error         string               `json:"error"`
	ExitCode      int                  `json:"exitCode"`
	Risks         []string             `json:"risks,omitempty"`
	Candidates    []planfile.Candidate `json:"candidates"`
}

// Report is e in its machine-readable form.
func (e *NoTargetError) Report() *NoTargetReport {
	r := &NoTargetReport{FormatVersion: planfile.FormatVersion, Error: e.Error(), ExitCode: e.ExitCode(), Risks: e.Risks}
	if e.Selection != nil {
		r.Candidates = e.Selection.Candidates
	}
	return r
}
