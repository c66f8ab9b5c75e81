package planfile

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// RemedyRefusedError says that something holds the update (a finding of class
// blocks-update) and every remedy for it is refused: unsafe ones recover never
// takes (a guard PodDisruptionBudget, a CSR nobody vouches for), or admin
// promises not named with --accept. No plan is made.
type RemedyRefusedError struct {
	// Refused are the refusals of the blocking findings without any remedy.
	Refused []RefusedRemedy
	// All are every refusal the plan would have listed.
	All []RefusedRemedy
}

// Unsafe reports whether a blocking refusal is one --accept cannot lift.
func (e *RemedyRefusedError) Unsafe() bool {
	for _, r := range e.Refused {
		if r.Accept == "" {
			return true
		}
	}
	return false
}

// Accept returns the --accept names that would lift the refusals that need one,
// sorted, once each.
func (e *RemedyRefusedError) Accept() []string {
	var out []string
	for _, r := range e.Refused {
		if r.Accept != "" && !slices.Contains(out, r.Accept) {
			out = append(out, r.Accept)
		}
	}
	sort.Strings(out)
	return out
}

func (e *RemedyRefusedError) Error() string {
	first := e.Refused[0]
	more := ""
	if n := len(e.Refused) - 1; n > 0 {
		more = fmt.Sprintf(" (and %d more; see the report)", n)
	}
	if e.Unsafe() {
		for _, r := range e.Refused {
			if r.Accept == "" {
				first = r
				break
			}
		}
		return fmt.Sprintf("what holds the cluster has no remedy recover may take: %s %s: %s%s", first.Finding, first.Subject, first.Reason, more)
	}
	return fmt.Sprintf("what holds the cluster needs the admin's promise: %s %s needs --accept %s%s; review the report, then pass --accept %s", first.Finding, first.Subject, first.Accept, more, strings.Join(e.Accept(), ","))
}

// ExitCode is 12 when a refusal is unsafe, 3 when --accept would lift them all.
func (e *RemedyRefusedError) ExitCode() int {
	if e.Unsafe() {
		return ExitRemedyRefused
	}
	return ExitRisksNotAccepted
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
