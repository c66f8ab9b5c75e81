package graph

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// ReportFormat is the version of the Report's JSON form (recover graph -o json).
// Minor bumps add fields; major bumps break.
const ReportFormat = "1.0"

// Report is what recover graph shows of a loaded graph: its size, and the
// answer to one query (the releases, the edges out of or into a version, or the
// edge and shortest path between two).
type Report struct {
	FormatVersion string            `json:"formatVersion"`
	Source        string            `json:"source"`
	Digest        string            `json:"digest"`
	GraphData     string            `json:"graphData,omitempty"`
	Channel       string            `json:"channel,omitempty"`
	Arch          string            `json:"arch,omitempty"`
	Releases      int               `json:"releases"`
	Edges         map[EdgeState]int `json:"edges"`
	// Versions lists the releases when neither From nor To was asked.
	Versions []string `json:"versions,omitempty"`
	From     string   `json:"from,omitempty"`
	To       string   `json:"to,omitempty"`
	// EdgesFrom and EdgesTo are the edges out of From and into To (when only one
	// of them was asked).
	EdgesFrom []Edge `json:"edgesFrom,omitempty"`
	EdgesTo   []Edge `json:"edgesTo,omitempty"`
	// Edge is the direct edge From -> To, when the graph has one in any state.
	Edge *Edge `json:"edge,omitempty"`
	// Path is the shortest usable path From -> To; NoPath says why there is none.
	Path     *Path    `json:"path,omitempty"`
	NoPath   string   `json:"noPath,omitempty"`
	Accepted []string `json:"accepted,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// Query is what a Report answers: From and To are versions as the user wrote
// them (resolved against the graph), Accept the conditional-update risks a path
// may cross.
type Query struct {
	From, To string
	Accept   []string
}

// NewReport answers q on the loaded graph r. A version the graph does not hold
// is an error; a missing path is not (NoPath says why).
func NewReport(r *Result, q Query) (*Report, error) {
	rep := &Report{
		FormatVersion: ReportFormat, Source: r.Source, Digest: r.Digest, GraphData: r.GraphData,
		Channel: r.Channel, Arch: r.Arch, Releases: r.Len(), Edges: r.CountEdges(),
		Accepted: q.Accept, Warnings: r.Warnings,
	}
	var err error
	if q.From != "" {
		if rep.From, err = r.Resolve(q.From); err != nil {
			return nil, err
		}
	}
	if q.To != "" {
		if rep.To, err = r.Resolve(q.To); err != nil {
			return nil, err
		}
	}
	switch {
	case rep.From != "" && rep.To != "":
		if e, ok, _ := r.Edge(rep.From, rep.To); ok {
			rep.Edge = &e
		}
		p, err := r.ShortestPath(rep.From, rep.To, q.Accept...)
		switch {
		case err == nil:
			rep.Path = &p
		case errors.Is(err, ErrNoPath):
			rep.NoPath = err.Error()
		default:
			return nil, err
		}
	case rep.From != "":
		rep.EdgesFrom, _ = r.EdgesFrom(rep.From)
	case rep.To != "":
		rep.EdgesTo, _ = r.EdgesTo(rep.To)
	default:
		rep.Versions = r.Versions("")
	}
	return rep, nil
}

// WriteTable renders the report for people.
func (r *Report) WriteTable(w io.Writer) error {
	scope := []string{}
	if r.GraphData != "" {
		scope = append(scope, "graph-data "+r.GraphData)
	}
	if r.Channel != "" {
		scope = append(scope, "channel "+r.Channel)
	}
	if r.Arch != "" {
		scope = append(scope, "arch "+r.Arch)
	}
	head := "graph " + r.Source
	if len(scope) > 0 {
		head += " (" + strings.Join(scope, ", ") + ")"
	}
	fmt.Fprintf(w, "%s: %d releases; edges: %d supported, %d conditional, %d blocked\n",
		head, r.Releases, r.Edges[EdgeSupported], r.Edges[EdgeConditional], r.Edges[EdgeBlocked])
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	edgeTable := func(title, col string, edges []Edge, other func(Edge) string) {
		fmt.Fprintf(w, "\n%s\n", title)
		if len(edges) == 0 {
			fmt.Fprintln(w, "  (none)")
			return
		}
		fmt.Fprintf(tw, "%s\tSTATE\tWHY\n", col)
		for _, e := range edges {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", other(e), e.State, e.Why())
		}
		tw.Flush()
	}
	switch {
	case r.Versions != nil:
		fmt.Fprintf(w, "\nRELEASES\n%s\n", wrapList(r.Versions, 100))
	case r.EdgesFrom != nil || (r.From != "" && r.To == ""):
		edgeTable("EDGES FROM "+r.From, "TO", r.EdgesFrom, func(e Edge) string { return e.To })
	case r.EdgesTo != nil || (r.To != "" && r.From == ""):
		edgeTable("EDGES INTO "+r.To, "FROM", r.EdgesTo, func(e Edge) string { return e.From })
	default:
		if r.Edge != nil {
			fmt.Fprintf(w, "\nEDGE %s -> %s: %s", r.From, r.To, r.Edge.State)
			if why := r.Edge.Why(); why != "" {
				fmt.Fprintf(w, ": %s", why)
			}
			fmt.Fprintln(w)
		} else {
			fmt.Fprintf(w, "\nEDGE %s -> %s: none in the graph\n", r.From, r.To)
		}
		if r.Path != nil {
			fmt.Fprintf(w, "PATH %s (%d hops)\n", strings.Join(r.Path.Versions(), " -> "), len(r.Path.Hops))
			for _, risk := range r.Path.Risks {
				fmt.Fprintf(w, "  accepted risk %s: %s\n", risk.Name, risk.Message)
			}
		} else {
			fmt.Fprintf(w, "PATH none: %s\n", r.NoPath)
		}
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	return nil
}

// Why explains an edge's state in one line: its risks, and for a blocked edge
// the blocked-edges entries and channel removals that took it out.
func (e Edge) Why() string {
	var parts []string
	for _, risk := range e.Risks {
		parts = append(parts, fmt.Sprintf("risk %s: %s", risk.Name, risk.Message))
	}
	if e.State == EdgeBlocked {
		for _, b := range e.BlockedBy {
			parts = append(parts, b.File+": "+b.Reason())
		}
		parts = append(parts, e.RemovedBy...)
	}
	return strings.Join(parts, "; ")
}

// wrapList joins words into lines of at most width characters, indented.
func wrapList(words []string, width int) string {
	var b strings.Builder
	line := 0
	for _, w := range words {
		if line > 0 && line+1+len(w) > width {
			b.WriteString("\n")
			line = 0
		}
		if line > 0 {
			b.WriteString(" ")
			line++
		} else {
			b.WriteString("  ")
			line += 2
		}
		b.WriteString(w)
		line += len(w)
	}
	return b.String()
}
