package main

import (
	"github.com/spf13/cobra"

	"github.com/openshift-recover/recover/apply/journal"
)

func init() { registerCommand(newJournalCmd) }

type journalOptions struct {
	g    *globalOptions
	out  *outputFlag
	path string
}

func newJournalCmd(g *globalOptions) *cobra.Command {
	cmd, _ := newJournalCommand(g)
	return cmd
}

// newJournalCommand builds the command and returns the options its flags fill.
func newJournalCommand(g *globalOptions) (*cobra.Command, *journalOptions) {
	o := &journalOptions{g: g}
	cmd := &cobra.Command{
		Use:   "journal JOURNAL",
		Short: "Summarize an apply journal: where the run is, the CVO's state, what to do next",
		Long: `Journal reads a recover apply journal (read-only) and says how far the run got,
whether the cluster-version operator is left disabled and with how many replicas it
ran, which etcd backup the run relied on, the state of every step, and the commands
to resume the run or restore the CVO.`,
		Example: `  recover journal recover-apply-20200524T160251Z.journal
  recover journal run.journal -o json | jq '.cvo'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.path = args[0]
			if err := o.out.Validate(); err != nil {
				return err
			}
			return o.Run()
		},
	}
	o.out = addOutputFlag(cmd, outputTable, outputJSON, outputYAML)
	return cmd, o
}

// Run loads the journal and prints its summary.
func (o *journalOptions) Run() error {
	j, err := journal.Load(o.path)
	if err != nil {
		return err
	}
	s := journal.Summarize(j)
	return o.out.Print(o.g.streams.Out, s, printers{table: s.WriteTable})
}
