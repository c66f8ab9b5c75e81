package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"

	"github.com/openshift-recover/recover/apply/incluster"
	"github.com/openshift-recover/recover/apply/journal"
)

func init() { registerCommand(newJournalCmd) }

type journalOptions struct {
	g         *globalOptions
	out       *outputFlag
	path      string
	inCluster bool
}

func newJournalCmd(g *globalOptions) *cobra.Command {
	cmd, _ := newJournalCommand(g)
	return cmd
}

// newJournalCommand builds the command and returns the options its flags fill.
func newJournalCommand(g *globalOptions) (*cobra.Command, *journalOptions) {
	o := &journalOptions{g: g}
	cmd := &cobra.Command{
		Use:   "journal JOURNAL | --in-cluster NAME",
		Short: "Summarize an apply journal: where the run is, the CVO's state, what to do next",
		Long: `Journal reads a recover apply journal (read-only) and says how far the run got,
whether the cluster-version operator is left disabled and with how many replicas it
ran, which etcd backup the run relied on, the state of every step, and the commands
to resume the run or restore the CVO.

With --in-cluster it reads the journal a run inside the cluster keeps as
ConfigMaps NAME-0, NAME-1, ... in the namespace (--namespace, or the pod's),
through the kubeconfig (in a pod without one, its service account).`,
		Example: `  recover journal recover-apply-20200524T160251Z.journal
  recover journal run.journal -o json | jq '.cvo'
  recover journal --in-cluster recover-plan-journal --namespace openshift-recover`,
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
	cmd.Flags().BoolVar(&o.inCluster, "in-cluster", false, "JOURNAL is the name of a journal kept in the cluster by 'recover apply --in-cluster'.")
	return cmd, o
}

// Run loads the journal and prints its summary.
func (o *journalOptions) Run() error {
	store := journal.Store(journal.NewFileStore(o.path))
	if o.inCluster {
		// The kubeconfig (in a pod without one: its service account).
		cfg, err := o.g.kube.ToRESTConfig()
		if err != nil {
			return withExitCode(fmt.Errorf("loading the kubeconfig: %w", err), ExitCluster)
		}
		var ic inClusterFlags
		client, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return withExitCode(fmt.Errorf("creating the Kubernetes client: %w", err), ExitCluster)
		}
		store = incluster.NewJournalStore(client, ic.resolveNamespace(o.g), o.path)
	}
	j, err := journal.LoadFrom(store)
	if err != nil {
		return err
	}
	s := journal.Summarize(j)
	return o.out.Print(o.g.streams.Out, s, printers{table: s.WriteTable})
}
