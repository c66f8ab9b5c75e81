package plan

// NoTargetReport is the machine-readable form of a NoTargetError (recover plan
// -o json|yaml when no target qualifies): the error, its exit code, the risks
// that would let the nearest candidate qualify, and every candidate with why it
// was refused. It carries the plan's FormatVersion.
type NoTargetReport struct {
	FormatVersion string      `json:"formatVersion"`
	Error         string      `json:"error"`
	ExitCode      int         `json:"exitCode"`
	Risks         []string    `json:"risks,omitempty"`
	Candidates    []Candidate `json:"candidates"`
}

// Report is e in its machine-readable form.
func (e *NoTargetError) Report() *NoTargetReport {
	r := &NoTargetReport{FormatVersion: FormatVersion, Error: e.Error(), ExitCode: e.ExitCode(), Risks: e.Risks}
	if e.Selection != nil {
		r.Candidates = e.Selection.Candidates
	}
	return r
}

// RemedyRefusedReport is the machine-readable form of a RemedyRefusedError
// (recover plan -o json|yaml when what holds the cluster has only refused
// remedies). It carries the plan's FormatVersion.
type RemedyRefusedReport struct {
	FormatVersion string `json:"formatVersion"`
	Error         string `json:"error"`
	ExitCode      int    `json:"exitCode"`
	// Accept are the --accept names that would allow the refused promises.
	Accept []string `json:"accept,omitempty"`
	// Refused are the refusals of the blocking findings; All every refusal.
	Refused []RefusedRemedy `json:"refused"`
	All     []RefusedRemedy `json:"all,omitempty"`
}

// Report is e in its machine-readable form.
func (e *RemedyRefusedError) Report() *RemedyRefusedReport {
	return &RemedyRefusedReport{FormatVersion: FormatVersion, Error: e.Error(), ExitCode: e.ExitCode(), Accept: e.Accept(), Refused: e.Refused, All: e.All}
}
