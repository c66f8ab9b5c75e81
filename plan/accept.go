package plan

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/openshift-recover/recover/plan/planfile"
)

// AcceptUsage lists the remedy name forms of the registered actions, for
// messages and flag help.
func AcceptUsage() string {
	var out []string
	for _, s := range planfile.Actions() {
		if s.Accept != "" {
			out = append(out, s.AcceptForm)
		}
	}
	return strings.Join(out, ", ")
}

// remedyNameRE is what makes a name a remedy name rather than a risk name: a
// lowercase, hyphenated word, alone or before a colon.
var remedyNameRE = regexp.MustCompile(`^[a-z][a-z-]*(:|$)`)

// AcceptError is a malformed --accept name. The CLI exits 2.
type AcceptError struct {
	Name string
	Why  string
}

func (e *AcceptError) Error() string {
	return fmt.Sprintf("--accept %s: %s (remedy names: %s; risk names as the update service spells them)", e.Name, e.Why, AcceptUsage())
}

// ExitCode is 2: a flag is wrong.
func (e *AcceptError) ExitCode() int { return planfile.ExitUsage }

// IsRemedyName reports whether an --accept name is a remedy name (well formed or
// not) rather than a conditional-update risk name.
func IsRemedyName(name string) bool {
	for _, s := range planfile.Actions() {
		if s.Accept != "" && !strings.HasSuffix(s.Accept, ":") && name == s.Accept {
			return true
		}
	}
	return strings.Contains(name, ":") && remedyNameRE.MatchString(name)
}

// ValidateAccept checks every --accept name: a risk name is taken as it is; a
// remedy name must have a known prefix and a well-formed subject.
func ValidateAccept(names []string) error {
	for _, n := range names {
		if strings.TrimSpace(n) == "" {
			return &AcceptError{Name: `""`, Why: "an empty name"}
		}
		if !IsRemedyName(n) {
			continue
		}
		if err := validateRemedyName(n); err != nil {
			return err
		}
	}
	return nil
}

func validateRemedyName(n string) error {
	for _, s := range planfile.Actions() {
		switch {
		case s.Accept == "":
		case !strings.HasSuffix(s.Accept, ":"):
			if n == s.Accept {
				return nil
			}
			if strings.HasPrefix(n, s.Accept+":") {
				return &AcceptError{Name: n, Why: s.Accept + " takes no subject"}
			}
		case strings.HasPrefix(n, s.Accept):
			if why := s.AcceptSubject(strings.TrimPrefix(n, s.Accept)); why != "" {
				return &AcceptError{Name: n, Why: why}
			}
			return nil
		}
	}
	prefix, _, _ := strings.Cut(n, ":")
	return &AcceptError{Name: n, Why: fmt.Sprintf("unknown remedy %q", prefix)}
}

// acceptSet holds the --accept names.
type acceptSet []string

func (a acceptSet) has(name string) bool { return slices.Contains(a, name) }
