package plan

import (
	"slices"
	"testing"

	"github.com/openshift-recover/recover/plan/planfile"
)

// TestErrorReports: the machine-readable forms carry the error's own message,
// exit code and lists, so -o json says what the table says.
func TestErrorReports(t *testing.T) {
	cands := []planfile.Candidate{{Version: "4.4.4", Rank: 1}, {Version: "4.4.5", Rank: 2}}
	for _, tc := range []struct {
		name  string
		err   *NoTargetError
		code  int
		risks []string
	}{
		{"risks would let a candidate qualify", &NoTargetError{Selection: &Selection{Candidates: cands}, Risks: []string{"R"}, Nearest: "4.4.4"}, planfile.ExitRisksNotAccepted, []string{"R"}},
		{"nothing qualifies", &NoTargetError{Selection: &Selection{Candidates: cands}}, planfile.ExitNoSafeTarget, nil},
	} {
		r := tc.err.Report()
		if r.FormatVersion != planfile.FormatVersion || r.Error != tc.err.Error() || r.ExitCode != tc.code || !slices.Equal(r.Risks, tc.risks) || len(r.Candidates) != 2 {
			t.Errorf("%s: %+v", tc.name, r)
		}
	}

	promise := planfile.RefusedRemedy{Remedy: "ack", Finding: "AdminAckRequired", Accept: "admin-ack:k"}
	unsafe := planfile.RefusedRemedy{Remedy: "relax-pdb", Finding: "GuardPDBBlocksDrain"}
	for _, tc := range []struct {
		name    string
		refused []planfile.RefusedRemedy
		code    int
		accept  []string
	}{
		{"a promise the admin can give", []planfile.RefusedRemedy{promise}, planfile.ExitRisksNotAccepted, []string{"admin-ack:k"}},
		{"an unsafe remedy among them", []planfile.RefusedRemedy{unsafe, promise}, planfile.ExitRemedyRefused, []string{"admin-ack:k"}},
	} {
		e := &planfile.RemedyRefusedError{Refused: tc.refused, All: tc.refused}
		r := e.Report()
		if r.FormatVersion != planfile.FormatVersion || r.Error != e.Error() || r.ExitCode != tc.code || !slices.Equal(r.Accept, tc.accept) || len(r.Refused) != len(tc.refused) {
			t.Errorf("%s: %+v", tc.name, r)
		}
	}
}
