package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/charmbracelet/bubbles/progress"
	"github.com/spf13/cobra"

	"github.com/openshift-recover/recover/apply/fleet/verdict"
	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/fleet"
	"github.com/openshift-recover/recover/plan"
)

func init() { registerCommand(newFleetCmd) }

// fleetOptions are the options of recover fleet.
type fleetOptions struct {
	g           *globalOptions
	dir         string
	contexts    []string
	allContexts bool
	concurrency int
	timeout     time.Duration
	accept      []string
	output      *outputFlag

	// resolved by Complete
	targets []fleet.Target
	tty     bool
}

func newFleetCmd(g *globalOptions) *cobra.Command {
	cmd, _ := newFleetCommand(g)
	cmd.AddCommand(newFleetExportCmd(g))
	return cmd
}

// newFleetCommand builds the command and returns the options its flags fill.
func newFleetCommand(g *globalOptions) (*cobra.Command, *fleetOptions) {
	o := &fleetOptions{g: g, timeout: 5 * time.Minute}
	cmd := &cobra.Command{
		Use:   "fleet --dir DIR | --contexts A,B,... | --all-contexts",
		Short: "Inspect many clusters at once and group them by how they are wedged",
		Long: `fleet inspects many clusters at once: every must-gather and Insights archive in a
directory (sub-directories, or .tar.gz/.tgz/.tar files; an archive named *insights* is
read as an Insights archive), or the live clusters of kubeconfig contexts. Each one
gets the verdict recover inspect --verdict writes (wedged or not, the causes, what
recover would do about them), and the report groups the clusters by wedge signature:
the same causes (per-node subjects folded) and the same answer, with counts.

At most --concurrency clusters are inspected at once (the memory a run takes is
about that many snapshots, whatever the fleet's size). On a terminal a progress bar
is drawn on stderr; elsewhere nothing is. It exits 0 whenever it could write the
report; the clusters that could not be inspected are listed in it.

'recover fleet export' writes the documents that run inspect and apply across a
fleet with ACM/TALM or Argo Workflows (docs/fleet.md).`,
		Example: `  # A directory of must-gathers and Insights archives
  recover fleet --dir ./must-gathers

  # The live clusters of three contexts, as Markdown for the incident channel
  recover fleet --contexts prod-east,prod-west,edge-17 -o markdown

  # Every context of the kubeconfig, 8 at a time, as JSON
  recover fleet --all-contexts --concurrency 8 -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Complete(); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context(), g.streams.Out, g.streams.ErrOut)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.dir, "dir", "", "Directory of must-gathers and Insights archives, one per cluster.")
	fs.StringSliceVar(&o.contexts, "contexts", nil, "Kubeconfig contexts of the live clusters to inspect.")
	fs.BoolVar(&o.allContexts, "all-contexts", false, "Inspect the live cluster of every kubeconfig context.")
	fs.IntVar(&o.concurrency, "concurrency", 0, "Clusters inspected at once (default: the number of CPUs).")
	fs.DurationVar(&o.timeout, "timeout", o.timeout, "Give up on one cluster after this long (0: never); it is reported as not inspected.")
	fs.StringSliceVar(&o.accept, "accept", nil, "The admin's promises the remedies may use, as recover plan --accept takes them.")
	_ = cmd.MarkFlagDirname("dir")
	o.output = addOutputFlag(cmd, outputTable, outputJSON, outputYAML, outputMarkdown)
	return cmd, o
}

// Complete lists the targets: the directory's entries or the contexts (when
// one kind of source is given; Validate says what is wrong otherwise).
func (o *fleetOptions) Complete() error {
	o.tty = isTerminal(o.g.streams.ErrOut)
	if o.sources() != 1 {
		return nil
	}
	var err error
	switch {
	case o.dir != "":
		o.targets, err = fleet.Discover(o.dir)
		return err
	case o.allContexts:
		raw, err := o.g.kube.ToRawKubeConfigLoader().RawConfig()
		if err != nil {
			return withExitCode(fmt.Errorf("reading the kubeconfig: %w", err), ExitCluster)
		}
		names := slices.Sorted(maps.Keys(raw.Contexts))
		if len(names) == 0 {
			return usageError{msg: "--all-contexts: the kubeconfig has no context; pass --kubeconfig FILE"}
		}
		o.targets, err = fleet.Contexts(names)
		return err
	case len(o.contexts) > 0:
		if o.targets, err = fleet.Contexts(o.contexts); err != nil {
			return usageError{msg: "--contexts: " + err.Error()}
		}
	}
	return nil
}

// sources counts the kinds of source given.
func (o *fleetOptions) sources() int {
	n := 0
	for _, set := range []bool{o.dir != "", len(o.contexts) > 0, o.allContexts} {
		if set {
			n++
		}
	}
	return n
}

// Validate checks that one kind of source is given, and the numbers.
func (o *fleetOptions) Validate() error {
	switch n := o.sources(); {
	case n == 0:
		return usageError{msg: "nothing to inspect: pass --dir DIR, --contexts A,B or --all-contexts"}
	case n > 1:
		return usageError{msg: "--dir, --contexts and --all-contexts cannot be combined: give one"}
	case o.concurrency < 0:
		return usageError{msg: "--concurrency must be 1 or more"}
	case o.timeout < 0:
		return usageError{msg: "--timeout must not be negative"}
	}
	if err := plan.ValidateAccept(o.accept); err != nil {
		return err
	}
	return o.output.Validate()
}

// Run inspects and judges every target and prints the grouped report.
func (o *fleetOptions) Run(ctx context.Context, out, errOut io.Writer) error {
	bar := newFleetProgress(errOut, o.tty)
	res := fleet.Run(ctx, o.targets, fleet.Options{Concurrency: o.concurrency, Timeout: o.timeout, Kubeconfig: *o.g.kube.KubeConfig, Progress: bar.update},
		func(ctx context.Context, _ fleet.Target, s *inspect.Snapshot) (*verdict.Verdict, error) {
			v, _, err := verdict.Judge(ctx, s, verdict.Options{Accept: o.accept, Now: clock()})
			return v, err
		})
	bar.done()
	if err := ctx.Err(); err != nil {
		return err
	}
	entries := make([]verdict.Entry, len(res))
	for i, r := range res {
		entries[i] = verdict.Entry{Cluster: r.Target.Name, Verdict: r.Value, Err: r.Err}
	}
	r := verdict.Group(entries)
	return o.output.Print(out, r, printers{
		table:    func(w io.Writer) error { return verdict.WriteFleetTable(w, r) },
		markdown: func(w io.Writer) error { return verdict.WriteFleetMarkdown(w, r) },
	})
}

// fleetProgress draws a progress bar on a terminal (bubbles/progress, redrawn
// in place) and nothing elsewhere.
type fleetProgress struct {
	mu  sync.Mutex
	w   io.Writer
	bar *progress.Model
}

func newFleetProgress(w io.Writer, tty bool) *fleetProgress {
	p := &fleetProgress{w: w}
	if tty {
		m := progress.New(progress.WithDefaultGradient(), progress.WithWidth(40))
		p.bar = &m
	}
	return p
}

func (p *fleetProgress) update(done, total int) {
	if p.bar == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\r%s %d/%d clusters", p.bar.ViewAs(float64(done)/float64(total)), done, total)
}

func (p *fleetProgress) done() {
	if p.bar != nil {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
