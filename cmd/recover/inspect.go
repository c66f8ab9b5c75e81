package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/shell"
)

func init() { registerCommand(newInspectCmd) }

// inspectOptions are the options of recover inspect.
type inspectOptions struct {
	g       *globalOptions
	source  *sourceFlags
	output  *outputFlag
	verdict *verdictFlags
	// outputSet is true when -o was given.
	outputSet bool
}

func newInspectCmd(g *globalOptions) *cobra.Command {
	cmd, _ := newInspectCommand(g)
	return cmd
}

// newInspectCommand builds the command and returns the options its flags fill.
func newInspectCommand(g *globalOptions) (*cobra.Command, *inspectOptions) {
	o := &inspectOptions{g: g}
	cmd := &cobra.Command{
		Use:   "inspect",
		Short: "Snapshot the cluster and show where its claims and reality disagree",
		Long: `inspect reads the cluster's state (live by default, or offline from a must-gather,
an Insights archive, 'oc get' dumps or a saved snapshot) and reports the cluster's
claims (ClusterVersion history and conditions, ClusterOperator versions, static-pod
operators' nodeStatuses) beside what actually runs (operator Deployments, mirror pods
and their revisions, installer pods, kubelet versions, machine-config state), with
findings for every contradiction. Finding codes are documented in docs/findings.md.

Every output starts with why the cluster is stuck: one line per cause, the most
blocking first, each naming its findings and the command to run next (a 'recover
plan' for what recover can remedy, the oc command for what only the admin can do),
then the update's timeline, oldest first, whose entries the causes cite.
-o markdown is a readable report for a support case.

The components' own logs are evidence: the CVO's, the machine-config daemons' and
controller's, the static-pod installers' and the machine approver's, read from the
must-gather or Insights archive, or live through pods/log for the pods that matter
(bounded by --log-limit-bytes), line by line.

It exits 0 whenever it could inspect, whatever it found.`,
		Example: `  # The live cluster of the current kubeconfig context
  recover inspect

  # A must-gather, offline; the whole snapshot as JSON for 'recover plan --snapshot'
  recover inspect --must-gather ./must-gather.local.123 -o json > snapshot.json

  # An Insights archive
  recover inspect --insights-archive ./insights-archive

  # A report for a support case
  recover inspect --must-gather ./must-gather.local.123 -o markdown > report.md

  # The verdict a fleet hub reads, written into the live cluster (docs/fleet.md)
  recover inspect --verdict --verdict-namespace recover

  # A staged fleet wave's inspect: the verdict, and the staged plan to the goal
  # stored for recover apply --in-cluster (the graph from the cluster's update service)
  recover inspect --verdict --verdict-namespace recover --wave eus-0601 --save-plan --to 4.20.3 --eus`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.outputSet = cmd.Flags().Changed("output")
			o.verdict.staged = o.verdict.stagedFlagsSet(cmd)
			if err := o.Complete(); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context(), g.streams.Out)
		},
	}
	o.source = addSourceFlags(cmd)
	o.source.addLogFlags(cmd)
	o.output = addOutputFlag(cmd, outputTable, outputJSON, outputYAML, outputMarkdown)
	o.verdict = addVerdictFlags(cmd)
	return cmd, o
}

// Complete makes YAML the default output of --verdict; the other flags are the
// options as given.
func (o *inspectOptions) Complete() error {
	o.verdict.complete(o.output, o.outputSet)
	return nil
}

// Validate checks the output format and the source flags, before anything is read.
func (o *inspectOptions) Validate() error {
	if err := o.output.Validate(); err != nil {
		return err
	}
	if err := o.source.Validate(); err != nil {
		return err
	}
	return o.verdict.Validate(o.source.Live(), o.output, o.outputSet)
}

// Run opens the source, collects the snapshot and prints it.
func (o *inspectOptions) Run(ctx context.Context, out io.Writer) error {
	src, err := o.source.Source(o.g)
	if err != nil {
		return err
	}
	snap, err := src.Collect(ctx)
	if err != nil {
		return fmt.Errorf("inspect: %w", err)
	}
	if o.verdict.enabled {
		return o.verdict.write(ctx, o.g, snap, o.source.Live(), out, o.output)
	}
	ro := inspect.ReportOptions{SourceArgs: sourceArgs(o.source)}
	return o.output.Print(out, snap, printers{
		table:    func(w io.Writer) error { return inspect.WriteReport(w, snap, ro) },
		markdown: func(w io.Writer) error { return inspect.WriteMarkdown(w, snap, ro) },
	})
}

// sourceArgs returns the source flags as given, for the recover commands the
// wedge summary names ("" for the live cluster; a snapshot read from stdin is
// named as a file to save first).
func sourceArgs(f *sourceFlags) string {
	switch {
	case f.mustGather != "":
		return "--must-gather " + shell.Quote(f.mustGather)
	case f.insights != "":
		return "--insights-archive " + shell.Quote(f.insights)
	case len(f.files) > 0:
		var parts []string
		for _, p := range f.files {
			parts = append(parts, "--from-file "+shell.Quote(p))
		}
		return strings.Join(parts, " ")
	case f.snapshot == "-":
		return "--snapshot SNAPSHOT.json"
	case f.snapshot != "":
		return "--snapshot " + shell.Quote(f.snapshot)
	}
	return ""
}
