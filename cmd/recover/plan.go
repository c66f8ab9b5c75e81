package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/render"
)

func init() { registerCommand(newPlanCmd) }

// defaultUpstream is the update service a cluster uses when spec.upstream is unset.
const defaultUpstream = "https://api.openshift.com/api/upgrades_info/v1/graph"

// planOptions are recover plan's options.
type planOptions struct {
	g           *globalOptions
	source      *sourceFlags
	inputs      planInputFlags
	policy      *policyFlag
	accept      []string
	forceReason string
	signatures  *signatureFlags
	output      *outputFlag
	// args are the flags as given, to print the follow-up commands.
	args []string

	src inspect.Source
}

func newPlanCmd(g *globalOptions) *cobra.Command {
	o := &planOptions{g: g}
	cmd := &cobra.Command{
		Use:   "plan [--must-gather DIR | --snapshot FILE | ...] --graph FILE|URL [--payload DIR|PULLSPEC]",
		Short: "Pick the nearest safe next-hop release and order its manifests into gated steps",
		Long: `plan reads the cluster (live by default, or a must-gather, an Insights archive, 'oc get'
dumps or a saved snapshot), finds what each component really runs, and evaluates every
release of the update graph (and of ClusterVersion history) under the transition
policy: no component down across a minor, down within a minor only to the previous
history entry, at most one minor up, no minor hop while Upgradeable=False, an update
edge from every release the cluster runs (never a blocked one; a conditional one only
with --accept), and Kubernetes version skew at every step. It picks the candidate that
moves the fewest components the least, and shows every other candidate with the rule
that rejected or demoted it.

Then it orders the target payload's manifests the way the CVO updates (run-levels,
components, Jobs as barriers), leaves out components verified at the target already,
adds recovery steps (pause the pools whose kubelets would get ahead of the
kube-apiserver; unpause them only once kube-apiserver, kube-controller-manager and
kube-scheduler are verified at the target on every master), and gives every step the
gate it waits for. The plan is checked against a model of the cluster after every
step before it is printed.

-o json is the plan document that 'recover apply --plan FILE' executes as it is;
-o markdown is a runbook for change review. Without --graph the cluster's own update
service is asked; without --channel the cluster's channel is used; without --payload
the target's release image is pulled (--registry-config for credentials).

Exit codes: 3 when the only safe targets carry risks not named in --accept, 6 when no
target satisfies the policy (both print the candidate table first), 4 for bad input.`,
		Example: `  # The bundled example of the first incident, offline
  recover plan --must-gather examples/reconciled-4.3-to-4.4/must-gather \
    --graph examples/reconciled-4.3-to-4.4/graph.json \
    --graph-data examples/reconciled-4.3-to-4.4/graph-data --channel stable-4.4 \
    --payload examples/reconciled-4.3-to-4.4/releases/4.4.4

  # Save the plan for recover apply, and a runbook for review
  recover plan --snapshot snapshot.json --graph graph.json --payload ./4.4.4 -o json > plan.json
  recover plan --snapshot snapshot.json --graph graph.json --payload ./4.4.4 -o markdown > plan.md

  # Accept a conditional-update risk after reviewing it; use your own policy
  recover plan --graph https://api.openshift.com/api/upgrades_info/v1/graph --accept AuthConnectionLeak --policy policy.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Complete(cmd); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	o.source = addSourceFlags(cmd)
	o.inputs.addGraphFlags(cmd)
	o.inputs.addPayloadFlags(cmd)
	fs := cmd.Flags()
	stringSliceVar(fs, &o.accept, "accept", "Conditional-update risk names to accept (comma-separated), after reviewing them.")
	fs.StringVar(&o.forceReason, "force-reason", "", "Force the desired update (desiredUpdate.force), recording why; needed when the target needs force.")
	o.policy = addPolicyFlag(cmd)
	o.signatures = addSignatureFlags(cmd)
	o.output = addOutputFlag(cmd, outputTable, outputJSON, outputYAML, outputMarkdown)
	return cmd
}

// Complete normalises the flags, reads the policy and builds the source.
func (o *planOptions) Complete(cmd *cobra.Command) error {
	o.inputs.trim()
	o.forceReason = strings.TrimSpace(o.forceReason)
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if f.Name == "output" {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				o.args = append(o.args, "--"+f.Name, shellQuote(v))
			}
			return
		}
		o.args = append(o.args, "--"+f.Name, shellQuote(f.Value.String()))
	})
	if err := o.output.Validate(); err != nil {
		return err
	}
	if err := o.source.Validate(); err != nil {
		return err
	}
	if err := o.policy.load(); err != nil {
		return err
	}
	src, err := o.source.Source(o.g)
	if err != nil {
		return err
	}
	o.src = src
	return nil
}

// Validate checks flag combinations.
func (o *planOptions) Validate() error {
	if o.inputs.GraphData != "" && o.inputs.Graph == "" {
		return usageError{msg: "--graph-data needs --graph: the graph-builder graph to apply it to"}
	}
	if o.inputs.PayloadVersion != "" && o.inputs.Payload == "" {
		return usageError{msg: "--payload-version needs --payload: the bare manifest tree it names"}
	}
	for _, a := range o.accept {
		if strings.TrimSpace(a) == "" {
			return usageError{msg: "--accept has an empty risk name"}
		}
	}
	return nil
}

// Run collects the snapshot, loads the graph, makes the plan and prints it.
func (o *planOptions) Run(ctx context.Context) error {
	out := o.g.streams.Out
	snap, err := o.src.Collect(ctx)
	if err != nil {
		return fmt.Errorf("reading the cluster: %w", err)
	}
	if snap.ClusterVersion != nil {
		if o.inputs.Channel == "" && snap.ClusterVersion.Spec.Channel != "" {
			o.inputs.Channel = snap.ClusterVersion.Spec.Channel
			fmt.Fprintf(o.g.streams.ErrOut, "recover plan: no --channel given; using the cluster's channel %s\n", o.inputs.Channel)
		}
		if o.inputs.Graph == "" {
			o.inputs.Graph = string(snap.ClusterVersion.Spec.Upstream)
		}
	}
	if o.inputs.Graph == "" {
		o.inputs.Graph = defaultUpstream
	}
	if o.inputs.Channel == "" && !strings.HasPrefix(o.inputs.Graph, "http") {
		fmt.Fprintln(o.g.streams.ErrOut, "recover plan: no --channel given and the cluster names none; every release in the graph is a candidate")
	}
	g, err := o.inputs.loadGraph(ctx)
	if err != nil {
		return fmt.Errorf("loading the update graph: %w", err)
	}
	in := plan.Options{
		Snapshot: snap, Graph: g, Accept: o.accept, ForceReason: o.forceReason,
		Payload: o.inputs.payloadSource(), Generator: "recover " + currentVersion().Version, Now: clock(),
		VerifyRelease: o.signatures.verifier(),
	}
	o.policy.setOn(&in)
	p, err := plan.Make(ctx, in)
	var nte *plan.NoTargetError
	if errors.As(err, &nte) {
		if perr := o.printCandidates(out, nte); perr != nil {
			return perr
		}
		return err
	}
	if err != nil {
		return err
	}
	return o.output.Print(out, p, printers{
		table:    func(w io.Writer) error { return o.writeTable(w, p) },
		markdown: func(w io.Writer) error { return render.Markdown(w, p) },
	})
}

// NoTargetReport is what -o json|yaml prints when no target qualifies.
type NoTargetReport struct {
	FormatVersion string           `json:"formatVersion"`
	Error         string           `json:"error"`
	ExitCode      int              `json:"exitCode"`
	Risks         []string         `json:"risks,omitempty"`
	Candidates    []plan.Candidate `json:"candidates"`
}

func (o *planOptions) printCandidates(w io.Writer, nte *plan.NoTargetError) error {
	cands := nte.Selection.Candidates
	if o.output.Machine() {
		return o.output.Print(w, NoTargetReport{FormatVersion: plan.FormatVersion, Error: nte.Error(), ExitCode: nte.ExitCode(), Risks: nte.Risks, Candidates: cands}, printers{})
	}
	if err := render.Candidates(w, cands); err != nil {
		return err
	}
	if len(nte.Risks) > 0 {
		_, err := fmt.Fprintf(w, "\nTo plan %s, accept its risks once reviewed:\n  recover plan %s --accept %s\n", nte.Nearest, strings.Join(o.args, " "), strings.Join(nte.Risks, ","))
		return err
	}
	return nil
}

// writeTable prints the plan and the commands that come next.
func (o *planOptions) writeTable(w io.Writer, p *plan.Plan) error {
	if err := render.Table(w, p); err != nil {
		return err
	}
	args := strings.Join(o.args, " ")
	_, err := fmt.Fprintf(w, "\nNext: save the plan, review the runbook, then apply it (it runs exactly what the saved plan says):\n"+
		"  recover plan %s -o json > plan.json\n"+
		"  recover plan %s -o markdown > plan.md\n"+
		"  recover apply --plan plan.json --dry-run\n", args, args)
	return err
}

// clock returns the plan's clock: SOURCE_DATE_EPOCH when set (reproducible
// output), else the wall clock.
func clock() func() time.Time {
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		if sec, err := strconv.ParseInt(s, 10, 64); err == nil {
			t := time.Unix(sec, 0).UTC()
			return func() time.Time { return t }
		}
	}
	return time.Now
}

// shellQuote quotes a flag value for a copy-pasteable command line.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == ':' || r == '=' || r == ',' || r == '@' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
