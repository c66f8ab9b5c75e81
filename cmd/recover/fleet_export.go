package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	fleetexport "github.com/openshift-recover/recover/apply/fleet/export"
	"github.com/openshift-recover/recover/plan/planfile"
)

// fleetExportOptions are the options of recover fleet export.
type fleetExportOptions struct {
	g        *globalOptions
	o        fleetexport.Options
	engine   string
	planPath string
	labels   []string
	outDir   string
}

func newFleetExportCmd(g *globalOptions) *cobra.Command {
	cmd, _ := newFleetExportCommand(g)
	return cmd
}

// newFleetExportCommand builds the command and returns the options its flags fill.
func newFleetExportCommand(g *globalOptions) (*cobra.Command, *fleetExportOptions) {
	e := &fleetExportOptions{g: g, engine: string(fleetexport.EngineTALM)}
	o := &e.o
	cmd := &cobra.Command{
		Use:   "export --for talm|ocm|argo --wave NAME --image IMAGE ...",
		Short: "Write the documents that run inspect and apply across a fleet with TALM, OCM or Argo",
		Long: `export writes the documents a fleet engine needs to run recover on many clusters
(docs/fleet.md):

  --for talm  two ManifestWorkReplicaSet templates (inspect, then apply) and the
              ClusterGroupUpgrade that runs them per cluster, canaries first,
              --max-concurrency at a time, within --timeout; created with
              enable: false, so nothing runs until the SRE sets it to true.
  --for ocm   the two templates, rolled out by the hub's ManifestWorkReplicaSet
              controller to --placement, progressively (create the apply one
              once the inspect verdicts are reviewed).
  --for argo  an Argo Workflow that pushes to each cluster with its kubeconfig:
              the canaries, an approval (argo resume), the rest; on exit it gives
              the CVO back wherever a run left it disabled.

The inspect template writes each cluster's verdict (recover inspect --verdict)
and its remediation plan; the apply template applies that plan and keeps its
progress in the verdict, which the templates read back through feedback rules.
The apply RBAC is generated from --plan, one cluster's plan of the wave's wedge
(recover fleet groups clusters wedged the same way).

A staged plan as --plan (recover plan --to VERSION [--eus]) makes a staged wave:
the inspect Job stores each cluster's own staged plan to the goal (recover
inspect --save-plan --to GOAL [--eus]), and one step per stage runs it until that
stage has landed (recover apply --in-cluster --until-stage N, resuming the journal
the stage before kept). docs/fleet.md, Staged waves.

The documents go to stdout as one YAML stream, or into --dir, one file each.`,
		Example: `  # A TALM wave over the clusters recover fleet grouped under one signature
  recover fleet export --for talm --wave pdb-0601 --image quay.io/acme/recover@sha256:... \
    --plan canary-plan.json --i-have-a-backup \
    --clusters sno-17,sno-18,sno-19 --canaries sno-17 --max-concurrency 10 --timeout 4h --dir wave/

  # The same wave from an Argo hub, each cluster's kubeconfig in <cluster>-kubeconfig
  recover fleet export --for argo --wave pdb-0601 --image quay.io/acme/recover@sha256:... \
    --i-have-a-backup --canaries sno-17 --clusters sno-18,sno-19 > workflow.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := e.Complete(); err != nil {
				return err
			}
			if err := e.Validate(); err != nil {
				return err
			}
			return e.Run(g.streams.Out)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&e.engine, "for", e.engine, "The fleet engine: talm (ACM with TALM), ocm (plain OCM) or argo (Argo Workflows, no ACM).")
	fs.StringVar(&o.Wave, "wave", "", "Name of the wave (lowercase letters, digits, '-'): part of the Jobs', templates' and plan's names, and of each fresh verdict.")
	fs.StringVar(&o.Image, "image", "", "recover's image, by digest preferably (make image; README says how to push it).")
	fs.StringVar(&o.Namespace, "namespace", "", "Namespace of recover's objects on each cluster (default recover).")
	fs.StringVar(&o.HubNamespace, "hub-namespace", "", "Namespace of the templates, ClusterGroupUpgrade or Workflow on the hub (default "+fleetexport.DefaultHubNamespace+").")
	fs.StringSliceVar(&o.Accept, "accept", nil, "The admin's promises the wave's remedies may use, as recover plan --accept takes them.")
	fs.StringVar(&e.planPath, "plan", "", "One cluster's remediation plan of the wave's wedge (recover plan -o json): the apply RBAC covers what it does (talm, ocm).")
	fs.BoolVar(&o.BackupAcknowledged, "i-have-a-backup", false, "Acknowledge that every cluster of the wave has a current etcd backup (the apply Jobs pass it on; required).")
	fs.StringSliceVar(&o.Clusters, "clusters", nil, "The wave's clusters (ManagedCluster names, or Argo's cluster names).")
	fs.StringSliceVar(&o.Canaries, "canaries", nil, "The clusters that go first (talm: among --clusters; argo: not in --clusters; ocm: the Placement's \""+fleetexport.CanaryGroup+"\" decision group).")
	fs.StringSliceVar(&e.labels, "cluster-labels", nil, "Select the wave's clusters by label too, KEY=VALUE (talm).")
	fs.IntVar(&o.MaxConcurrency, "max-concurrency", 1, "Clusters worked on at once.")
	fs.DurationVar(&o.Timeout, "timeout", fleetexport.DefaultTimeout, "Bound of the whole wave (TALM's timeout, Argo's activeDeadlineSeconds, OCM's progressDeadline).")
	fs.StringVar(&o.Placement, "placement", "", "The Placement that selects the wave's clusters (ocm).")
	fs.StringVar(&o.KubeconfigSecret, "kubeconfig-secret", fleetexport.DefaultKubeconfigSecret, "Each cluster's kubeconfig Secret in the hub namespace, {cluster} standing for its name; key kubeconfig (argo).")
	fs.StringVar(&o.HandBackImage, "hand-back-image", fleetexport.DefaultHandBackImage, "An image with sh and oc for the Workflow's exit handler (argo).")
	fs.StringVar(&e.outDir, "dir", "", "Write one file per document into this directory (created) instead of stdout.")
	_ = cmd.MarkFlagFilename("plan", "json")
	_ = cmd.MarkFlagDirname("dir")
	_ = cmd.RegisterFlagCompletionFunc("for", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"talm", "ocm", "argo"}, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd, e
}

// Complete loads the plan and parses the labels.
func (e *fleetExportOptions) Complete() error {
	e.o.Engine = fleetexport.Engine(e.engine)
	if len(e.labels) > 0 {
		e.o.ClusterLabels = map[string]string{}
		for _, kv := range e.labels {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return usageError{msg: fmt.Sprintf("--cluster-labels %q: want KEY=VALUE", kv)}
			}
			e.o.ClusterLabels[k] = v
		}
	}
	if e.planPath != "" {
		p, _, err := planfile.Load(e.planPath)
		if err != nil {
			return err
		}
		e.o.Plan = p
	}
	e.o.Complete()
	return nil
}

// Validate checks the options, before anything is written.
func (e *fleetExportOptions) Validate() error {
	if err := e.o.Validate(); err != nil {
		return usageError{msg: err.Error()}
	}
	return nil
}

// Run builds the documents and writes them.
func (e *fleetExportOptions) Run(out io.Writer) error {
	docs, err := fleetexport.Documents(e.o)
	if err != nil {
		return usageError{msg: err.Error()}
	}
	if e.outDir == "" {
		return fleetexport.WriteYAML(out, docs)
	}
	if err := os.MkdirAll(e.outDir, 0o755); err != nil {
		return err
	}
	for _, d := range docs {
		f, err := os.Create(filepath.Join(e.outDir, d.File))
		if err != nil {
			return err
		}
		err = fleetexport.WriteYAML(f, []fleetexport.Document{d})
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(e.g.streams.ErrOut, "wrote %s\n", filepath.Join(e.outDir, d.File))
	}
	return nil
}
