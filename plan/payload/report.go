package payload

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// ReportFormat is the version of the Report's JSON form (recover payload -o json).
// Minor bumps add fields; major bumps break.
const ReportFormat = "1.0"

// Report is what recover payload shows of a loaded payload: the release, the
// inclusion inputs and rules, and every manifest with its place in the CVO's
// order and why it is included or excluded.
type Report struct {
	FormatVersion string    `json:"formatVersion"`
	Source        string    `json:"source"`
	Digest        string    `json:"digest,omitempty"`
	Version       string    `json:"version"`
	VersionFrom   string    `json:"versionFrom"`
	ReleaseImage  string    `json:"releaseImage,omitempty"`
	Rules         RuleSet   `json:"rules"`
	Inclusion     Inclusion `json:"inclusion"`
	Included      int       `json:"included"`
	Excluded      int       `json:"excluded"`
	Stages        int       `json:"stages"`
	// Manifests are in payload order, which for the included ones is the CVO's
	// update order; Step numbers that order.
	Manifests []Row    `json:"manifests"`
	Warnings  []string `json:"warnings,omitempty"`
}

// Row is one manifest of the report.
type Row struct {
	// Step is the 1-based position in the one-at-a-time apply order (0: excluded);
	// Stage and Group place it in the CVO's graph (-1: excluded).
	Step       int    `json:"step"`
	Stage      int    `json:"stage"`
	Group      int    `json:"group"`
	Barrier    bool   `json:"barrier,omitempty"`
	RunLevel   string `json:"runLevel,omitempty"`
	Component  string `json:"component,omitempty"`
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
	File       string `json:"file"`
	Included   bool   `json:"included"`
	Rule       string `json:"rule"`
	Reason     string `json:"reason"`
	CreateOnly bool   `json:"createOnly,omitempty"`
	Delete     bool   `json:"delete,omitempty"`
}

// NewReport describes p; with includedOnly the excluded manifests are counted
// but not listed.
func NewReport(p *Payload, includedOnly bool) *Report {
	r := &Report{
		FormatVersion: ReportFormat, Source: p.Source, Digest: p.Digest, Version: p.Release.Version,
		VersionFrom: p.VersionFrom, ReleaseImage: p.ReleaseImage, Rules: p.Rules, Inclusion: p.Inclusion,
		Stages: len(p.Order.Stages), Warnings: p.Warnings,
	}
	step := map[*Manifest]int{}
	for i, m := range p.Order.Linear() {
		step[m] = i + 1
	}
	for _, m := range p.Manifests {
		if m.Decision.Included {
			r.Included++
		} else {
			r.Excluded++
			if includedOnly {
				continue
			}
		}
		stage, group := p.Order.Locate(m)
		row := Row{
			Step: step[m], Stage: stage, Group: group, RunLevel: m.RunLevel, Component: m.Component,
			APIVersion: m.APIVersion, Kind: m.Kind, Namespace: m.Namespace, Name: m.Name, File: m.Position(),
			Included: m.Decision.Included, Rule: string(m.Decision.Rule), Reason: m.Decision.Reason,
			CreateOnly: m.CreateOnly, Delete: m.Delete,
		}
		if stage >= 0 {
			row.Barrier = p.Order.Stages[stage].Barrier
		}
		r.Manifests = append(r.Manifests, row)
	}
	return r
}

// WriteTable renders the report for people.
func (r *Report) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "payload %s: release %s (from %s), rules %s, profile %s: %d included in %d stages, %d excluded\n",
		r.Source, r.Version, r.VersionFrom, r.Rules, r.Inclusion.Profile, r.Included, r.Stages, r.Excluded)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STEP\tSTAGE\tGROUP\tLEVEL\tCOMPONENT\tKIND\tNAMESPACE/NAME\tDECISION\tWHY")
	dash := func(n int) string {
		if n < 0 {
			return "-"
		}
		return strconv.Itoa(n)
	}
	for _, m := range r.Manifests {
		stepText := "-"
		if m.Step > 0 {
			stepText = strconv.Itoa(m.Step)
		}
		name := m.Name
		if m.Namespace != "" {
			name = m.Namespace + "/" + m.Name
		}
		decision := "excluded"
		why := m.Reason
		if m.Included {
			decision = "included"
			var notes []string
			if m.Barrier {
				notes = append(notes, "Job: barrier")
			}
			if m.CreateOnly {
				notes = append(notes, "create-only")
			}
			if m.Delete {
				notes = append(notes, "delete")
			}
			if len(notes) > 0 {
				why = strings.Join(notes, ", ") + "; " + why
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", stepText, dash(m.Stage), dash(m.Group),
			orDash(m.RunLevel), orDash(m.Component), m.Kind, name, decision, why)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	return nil
}

// orDash shows an empty cell as a dash.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
