package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/openshift-recover/recover/plan/graph"
)

func init() { registerCommand(newGraphCmd) }

// graphReportFormat is the version of recover graph's JSON output.
const graphReportFormat = "1.0"

// graphOptions are recover graph's options.
type graphOptions struct {
	inputs  planInputFlags
	from    string
	to      string
	accept  []string
	out     *outputFlag
	streams genericiooptions.IOStreams
}

func newGraphCmd(g *globalOptions) *cobra.Command {
	cmd, _ := newGraphCommand(g)
	return cmd
}

// newGraphCommand builds the command and returns the options its flags fill.
func newGraphCommand(g *globalOptions) (*cobra.Command, *graphOptions) {
	o := &graphOptions{streams: g.streams}
	cmd := &cobra.Command{
		Use:   "graph --graph FILE|URL [--graph-data DIR] [--channel C] [--from V] [--to V]",
		Short: "Show update edges and paths as the update service serves them",
		Long: `graph reads an update graph (an update service response, or a graph-builder graph with
a cincinnati-graph-data directory, as a disconnected update service reads them) and
shows what the update service offers:

  --from V          the edges out of V, each supported, conditional (with its risks) or
                    blocked (with the blocked-edges entry that removed it)
  --to V            the edges into V
  --from V --to W   the edge V -> W and the shortest supported path from V to W
  neither           the releases in the graph

Conditional edges count for a path only when every risk is named in --accept.`,
		Example: `  recover graph --graph graph.json --graph-data graph-data --channel stable-4.4 --from 4.3.19
  recover graph --graph https://api.openshift.com/api/upgrades_info/v1/graph --channel stable-4.4 --from 4.3.19 --to 4.4.4 -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Complete(); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd)
		},
	}
	o.inputs.addGraphFlags(cmd)
	cmd.Flags().StringVar(&o.from, "from", "", "Show the edges out of this version (and, with --to, the path).")
	cmd.Flags().StringVar(&o.to, "to", "", "Show the edges into this version (and, with --from, the path).")
	stringSliceVar(cmd.Flags(), &o.accept, "accept", "Conditional-update risk names to accept when finding a path (comma-separated).")
	o.out = addOutputFlag(cmd, outputTable, outputJSON, outputYAML)
	return cmd, o
}

// Complete normalises the flags.
func (o *graphOptions) Complete() error {
	o.inputs.trim()
	o.from, o.to = strings.TrimSpace(o.from), strings.TrimSpace(o.to)
	return nil
}

// Validate checks the flags.
func (o *graphOptions) Validate() error {
	if err := o.out.Validate(); err != nil {
		return err
	}
	return o.inputs.validateGraph()
}

// GraphReport is recover graph's output.
type GraphReport struct {
	FormatVersion string                  `json:"formatVersion"`
	Source        string                  `json:"source"`
	Digest        string                  `json:"digest"`
	GraphData     string                  `json:"graphData,omitempty"`
	Channel       string                  `json:"channel,omitempty"`
	Arch          string                  `json:"arch,omitempty"`
	Releases      int                     `json:"releases"`
	Edges         map[graph.EdgeState]int `json:"edges"`
	// Versions lists the releases when neither --from nor --to was given.
	Versions []string `json:"versions,omitempty"`
	From     string   `json:"from,omitempty"`
	To       string   `json:"to,omitempty"`
	// EdgesFrom and EdgesTo are the edges out of From and into To (when only one
	// of them was given).
	EdgesFrom []graph.Edge `json:"edgesFrom,omitempty"`
	EdgesTo   []graph.Edge `json:"edgesTo,omitempty"`
	// Edge is the direct edge From -> To, when the graph has one in any state.
	Edge *graph.Edge `json:"edge,omitempty"`
	// Path is the shortest usable path From -> To; NoPath says why there is none.
	Path     *graph.Path `json:"path,omitempty"`
	NoPath   string      `json:"noPath,omitempty"`
	Accepted []string    `json:"accepted,omitempty"`
	Warnings []string    `json:"warnings,omitempty"`
}

// Run loads the graph and prints the report.
func (o *graphOptions) Run(cmd *cobra.Command) error {
	res, err := o.inputs.loadGraph(cmd.Context())
	if err != nil {
		return err
	}
	r := GraphReport{
		FormatVersion: graphReportFormat, Source: res.Source, Digest: res.Digest, GraphData: res.GraphData,
		Channel: res.Channel, Arch: res.Arch, Releases: res.Len(), Edges: res.CountEdges(),
		Accepted: o.accept, Warnings: res.Warnings,
	}
	if o.from != "" {
		if r.From, err = res.Resolve(o.from); err != nil {
			return err
		}
	}
	if o.to != "" {
		if r.To, err = res.Resolve(o.to); err != nil {
			return err
		}
	}
	switch {
	case r.From != "" && r.To != "":
		if e, ok, _ := res.Edge(r.From, r.To); ok {
			r.Edge = &e
		}
		p, err := res.ShortestPath(r.From, r.To, o.accept...)
		switch {
		case err == nil:
			r.Path = &p
		case errors.Is(err, graph.ErrNoPath):
			r.NoPath = err.Error()
		default:
			return err
		}
	case r.From != "":
		r.EdgesFrom, _ = res.EdgesFrom(r.From)
	case r.To != "":
		r.EdgesTo, _ = res.EdgesTo(r.To)
	default:
		r.Versions = res.Versions("")
	}
	return o.out.Print(o.streams.Out, r, printers{table: r.writeTable})
}

// writeTable renders the report for people.
func (r GraphReport) writeTable(w io.Writer) error {
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
		head, r.Releases, r.Edges[graph.EdgeSupported], r.Edges[graph.EdgeConditional], r.Edges[graph.EdgeBlocked])
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	edgeTable := func(title, col string, edges []graph.Edge, other func(graph.Edge) string) {
		fmt.Fprintf(w, "\n%s\n", title)
		if len(edges) == 0 {
			fmt.Fprintln(w, "  (none)")
			return
		}
		fmt.Fprintf(tw, "%s\tSTATE\tWHY\n", col)
		for _, e := range edges {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", other(e), e.State, edgeWhy(e))
		}
		tw.Flush()
	}
	switch {
	case r.Versions != nil:
		fmt.Fprintf(w, "\nRELEASES\n%s\n", wrapList(r.Versions, 100))
	case r.EdgesFrom != nil || (r.From != "" && r.To == ""):
		edgeTable("EDGES FROM "+r.From, "TO", r.EdgesFrom, func(e graph.Edge) string { return e.To })
	case r.EdgesTo != nil || (r.To != "" && r.From == ""):
		edgeTable("EDGES INTO "+r.To, "FROM", r.EdgesTo, func(e graph.Edge) string { return e.From })
	default:
		if r.Edge != nil {
			fmt.Fprintf(w, "\nEDGE %s -> %s: %s", r.From, r.To, r.Edge.State)
			if why := edgeWhy(*r.Edge); why != "" {
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

// edgeWhy explains an edge's state in one line.
func edgeWhy(e graph.Edge) string {
	var parts []string
	for _, risk := range e.Risks {
		parts = append(parts, fmt.Sprintf("risk %s: %s", risk.Name, risk.Message))
	}
	if e.State == graph.EdgeBlocked {
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
