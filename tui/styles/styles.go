package styles

import (
	"io"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/openshift-recover/recover/inspect"
)

// Styles are the TUI's styles.
type Styles struct {
	// Renderer made every style; its profile decides colour.
	Renderer *lipgloss.Renderer

	App       lipgloss.Style
	Header    lipgloss.Style
	Title     lipgloss.Style
	Badge     lipgloss.Style
	Danger    lipgloss.Style
	TabActive lipgloss.Style
	Tab       lipgloss.Style
	Section   lipgloss.Style
	Label     lipgloss.Style
	Dim       lipgloss.Style
	Bold      lipgloss.Style
	Selected  lipgloss.Style
	Box       lipgloss.Style
	Dialog    lipgloss.Style
	Footer    lipgloss.Style

	// Severities of findings.
	Error   lipgloss.Style
	Warning lipgloss.Style
	Info    lipgloss.Style

	// Distance of a version to the target: at it, a patch away, a minor or more
	// away, or unknown.
	AtTarget lipgloss.Style
	Near     lipgloss.Style
	Far      lipgloss.Style

	// Step and run states.
	OK      lipgloss.Style
	Pending lipgloss.Style
	Failed  lipgloss.Style

	// Diff lines.
	Added   lipgloss.Style
	Removed lipgloss.Style

	// Help styles the footer and the ? overlay.
	Help help.Styles
}

// New builds the styles on renderer r (nil: the default renderer).
func New(r *lipgloss.Renderer) *Styles {
	if r == nil {
		r = lipgloss.DefaultRenderer()
	}
	red, yellow, green, blue, grey := lipgloss.Color("9"), lipgloss.Color("11"), lipgloss.Color("10"), lipgloss.Color("12"), lipgloss.Color("8")
	s := &Styles{Renderer: r}
	s.App = r.NewStyle()
	s.Header = r.NewStyle().Bold(true)
	s.Title = r.NewStyle().Bold(true).Foreground(lipgloss.Color("14"))
	s.Badge = r.NewStyle().Bold(true).Foreground(lipgloss.Color("0")).Background(yellow)
	s.Danger = r.NewStyle().Bold(true).Foreground(lipgloss.Color("15")).Background(lipgloss.Color("1"))
	s.TabActive = r.NewStyle().Bold(true).Underline(true)
	s.Tab = r.NewStyle().Foreground(grey)
	s.Section = r.NewStyle().Bold(true)
	s.Label = r.NewStyle().Foreground(grey)
	s.Dim = r.NewStyle().Foreground(grey)
	s.Bold = r.NewStyle().Bold(true)
	s.Selected = r.NewStyle().Reverse(true)
	s.Box = r.NewStyle().Border(lipgloss.NormalBorder()).BorderForeground(grey)
	s.Dialog = r.NewStyle().Border(lipgloss.DoubleBorder()).Padding(0, 1)
	s.Footer = r.NewStyle()

	s.Error = r.NewStyle().Bold(true).Foreground(red)
	s.Warning = r.NewStyle().Foreground(yellow)
	s.Info = r.NewStyle().Foreground(blue)

	s.AtTarget = r.NewStyle().Foreground(green)
	s.Near = r.NewStyle().Foreground(yellow)
	s.Far = r.NewStyle().Foreground(red)

	s.OK = r.NewStyle().Foreground(green)
	s.Pending = r.NewStyle().Foreground(yellow)
	s.Failed = r.NewStyle().Bold(true).Foreground(red)

	s.Added = r.NewStyle().Foreground(green)
	s.Removed = r.NewStyle().Foreground(red)

	s.Help = help.Styles{
		ShortKey:       r.NewStyle().Bold(true),
		ShortDesc:      r.NewStyle().Foreground(grey),
		ShortSeparator: r.NewStyle().Foreground(grey),
		Ellipsis:       r.NewStyle().Foreground(grey),
		FullKey:        r.NewStyle().Bold(true),
		FullDesc:       r.NewStyle().Foreground(grey),
		FullSeparator:  r.NewStyle().Foreground(grey),
	}
	return s
}

// Plain returns styles that render no escape sequences at all (Ascii profile):
// what NO_COLOR gives, and what golden files are written with.
func Plain() *Styles {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	return New(r)
}

// Severity returns the style of a finding severity ("error", "warning", "info").
func (s *Styles) Severity(sev string) lipgloss.Style {
	switch sev {
	case inspect.SeverityError:
		return s.Error
	case inspect.SeverityWarning:
		return s.Warning
	}
	return s.Info
}
