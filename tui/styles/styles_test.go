package styles

import (
	"io"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// TestPlainRendersNoEscapes: golden files and NO_COLOR are rendered
// with plain text only, never an escape sequence.
func TestPlainRendersNoEscapes(t *testing.T) {
	s := Plain()
	for name, st := range map[string]lipgloss.Style{
		"Error": s.Error, "Failed": s.Failed, "Danger": s.Danger, "Selected": s.Selected,
		"Badge": s.Badge, "Title": s.Title, "OK": s.OK, "Removed": s.Removed,
	} {
		if got := st.Render("x"); got != "x" {
			t.Errorf("Plain().%s renders %q, want \"x\"", name, got)
		}
	}
}

// TestColourProfileDecidesOnce: on a colour renderer the states are coloured
// (an escape sequence around the text), on the Ascii one they are not.
func TestColourProfileDecidesOnce(t *testing.T) {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI256)
	s := New(r)
	if got := s.Error.Render("x"); !strings.Contains(got, "\x1b[") || !strings.Contains(got, "x") {
		t.Errorf("Error on an ANSI256 renderer renders %q, want colour around x", got)
	}
	if s.Error.Render("x") == s.OK.Render("x") {
		t.Error("Error and OK render alike on a colour renderer")
	}
}

func TestSeverity(t *testing.T) {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI256)
	s := New(r)
	for sev, want := range map[string]lipgloss.Style{"error": s.Error, "warning": s.Warning, "info": s.Info, "": s.Info, "bogus": s.Info} {
		if got := s.Severity(sev).Render("x"); got != want.Render("x") {
			t.Errorf("Severity(%q) renders %q, want %q", sev, got, want.Render("x"))
		}
	}
	if s.Severity("error").Render("x") == s.Severity("warning").Render("x") {
		t.Error("error and warning render alike")
	}
}
