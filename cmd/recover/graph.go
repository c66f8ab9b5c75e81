package main

import (
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/openshift-recover/recover/plan/graph"
)

func init() { registerCommand(newGraphCmd) }

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

// Run loads the graph and prints the report.
func (o *graphOptions) Run(cmd *cobra.Command) error {
	res, err := o.inputs.loadGraph(cmd.Context())
	if err != nil {
		return err
	}
	r, err := graph.NewReport(res, graph.Query{From: o.from, To: o.to, Accept: o.accept})
	if err != nil {
		return err
	}
	return o.out.Print(o.streams.Out, r, printers{table: r.WriteTable})
}
