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

	"github.com/openshift-recover/recover/internal/nextcmd"
	"github.com/openshift-recover/recover/internal/shell"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/graph"
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/plan/render"
)

func init() { registerCommand(newPlanCmd) }

// planOptions are recover plan's options.
type planOptions struct {
	g           *globalOptions
	source      *sourceFlags
	inputs      planInputFlags
	policy      *policyFlag
	accept      []string
	forceReason string
	takeOver    string
	// to and eus ask for a staged plan to a goal (plan.MakeStaged).
	to         string
	eus        bool
	signatures *signatureFlags
	output     *outputFlag
	// args are the flags as given, to print the follow-up commands.
	args []string
}

func newPlanCmd(g *globalOptions) *cobra.Command {
	cmd, _ := newPlanCommand(g)
	return cmd
}

// newPlanCommand builds the command and returns the options its flags fill.
func newPlanCommand(g *globalOptions) (*cobra.Command, *planOptions) {
	o := &planOptions{g: g}
	cmd := &cobra.Command{
		Use:   "plan [--must-gather DIR | --snapshot FILE | ...] [--graph FILE|URL] [--payload DIR|PULLSPEC] [--accept NAME,...]",
		Short: "Unblock a stuck update with reversible remedies, or pick the nearest safe next-hop release and order its manifests into gated steps",
		Long: `plan reads the cluster (live by default, or a must-gather, an Insights archive, 'oc get'
dumps or a saved snapshot), finds what each component really runs and what holds the
update, and writes the plan 'recover apply' executes, where the decision calls for one.

Remedies. For the wedges inspect finds, the plan carries the mechanical, reversible
fix, each step gated on its effect: a PodDisruptionBudget that holds a drain is
relaxed, the held nodes are waited for, and the budget is restored exactly; pending
CSRs the machine approver's rules vouch for are approved (no others); a paused pool
whose pause holds the update is unpaused. The admin's promises are taken only when
named with --accept: force-redeployment:<component> (a new static-pod revision on
every control-plane node, one at a time), admin-ack:<gate key>, remove-overrides,
upgradeable-to:<major.minor>. A guard PDB is never relaxed and a CSR nobody vouches
for is never approved: the plan says what to repair instead.

First plan decides, once, how far recover intervenes (plan.Decide; the table is in
docs/architecture.md), and prints that decision whatever else it prints: nothing holds
the update, or advice (recover changes nothing: no plan, exit 13, the CVO keeps the
wheel), remediation (the remedies; the CVO is stopped only where it is not updating),
drive-cvo (a retarget within the minor under way), replace-cvo (the CVO would
reconcile a mixed cluster flat and shuffled, BZ1838497, or the admin asked with
--take-over REASON: the target's manifests are pushed in the CVO's order with it
disabled) or refused. When a release is needed and no --graph is given, plan says why
on stderr and asks the cluster's update service.

With a graph, plan evaluates every release of the update graph (and of ClusterVersion
history) under the transition policy: no component down at all (an update only goes
forward; a --policy may allow a rollback to the previous history entry), at most one
minor up, no minor hop while
Upgradeable=False (a retarget within the minor already under way is not one), an
update edge from every release the cluster runs (never a blocked one; a conditional
one only with --accept), and Kubernetes version skew at every step. It picks the
candidate that moves the fewest components the least, and shows every other candidate
with the rule that rejected or demoted it. Then it orders the target payload's
manifests the way the CVO updates, with the remedies first where they unblock, leaves
out components verified at the target already, pauses the pools whose kubelets would
get ahead of the kube-apiserver (unpaused once kube-apiserver, kube-controller-manager
and kube-scheduler are verified at the target on every master), and gives every step
the gate it waits for. Every plan is checked against a model of the cluster after
every step before it is printed.

-o json is the plan document that 'recover apply --plan FILE' executes as it is;
-o markdown is a runbook for change review. Without --channel the cluster's channel is
used; without --payload the target's release image is pulled (--registry-config for
credentials).

Exit codes: 3 when the only safe targets carry risks, or the remedies need admin
promises, not named in --accept (the exact --accept line is printed); 12 when the only
remedies for what holds the cluster are unsafe (a guard PDB, a CSR nobody vouches
for); 13 when the decision is advice (no plan: the NoPlan report names the rule and the
findings); 6 when no target satisfies the policy; 4 for bad input. Each prints its
report first (-o json: a versioned report).`,
		Example: `  # Remediation only: unblock what holds the update, hand the CVO back its update
  recover plan --must-gather ./must-gather -o markdown > plan.md
  recover plan --must-gather ./must-gather --accept force-redeployment:kube-apiserver -o json > plan.json

  # The bundled example of the first incident, offline
  recover plan --must-gather examples/reconciled-4.3-to-4.4/must-gather \
    --graph examples/reconciled-4.3-to-4.4/graph.json \
    --graph-data examples/reconciled-4.3-to-4.4/graph-data --channel stable-4.4 \
    --payload examples/reconciled-4.3-to-4.4/releases/4.4.4

  # Save the plan for recover apply, and a runbook for review
  recover plan --snapshot snapshot.json --graph graph.json --payload ./4.4.4 -o json > plan.json
  recover plan --snapshot snapshot.json --graph graph.json --payload ./4.4.4 -o markdown > plan.md

  # Accept a conditional-update risk and an admin gate after reviewing them; use your own policy
  recover plan --graph https://api.openshift.com/api/upgrades_info/v1/graph \
    --accept AuthConnectionLeak,admin-ack:ack-4.18-kube-1.32-api-removals-in-4.19 --policy policy.yaml`,
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
	o.inputs.addGraphCacheFlag(cmd)
	fs := cmd.Flags()
	stringSliceVar(fs, &o.accept, "accept", "Conditional-update risk names (as oc adm upgrade accept names them; those in ClusterVersion spec.desiredUpdate.acceptRisks count already), and remedies that are the admin's promise ("+plan.AcceptUsage()+"), to accept (comma-separated), after reviewing them.")
	fs.StringVar(&o.forceReason, "force-reason", "", "Force the desired update (desiredUpdate.force), recording why; needed when the target needs force.")
	addGoalFlags(fs, &o.to, &o.eus)
	fs.StringVar(&o.takeOver, "take-over", "", "Take the wheel from the CVO whatever the decision rules say, recording why: disable it and push the target's manifests in its order (needs --graph and --payload). recover otherwise does so only where the CVO would reconcile a mixed cluster.")
	o.policy = addPolicyFlag(cmd)
	o.signatures = addSignatureFlags(cmd)
	o.output = addOutputFlag(cmd, outputTable, outputJSON, outputYAML, outputMarkdown)
	return cmd, o
}

// Complete normalises the flags and records them for the commands the plan
// names (the runbook's re-plan line).
func (o *planOptions) Complete(cmd *cobra.Command) error {
	o.inputs.trim()
	o.forceReason = strings.TrimSpace(o.forceReason)
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if f.Name == "output" {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				o.args = append(o.args, "--"+f.Name, shell.Quote(v))
			}
			return
		}
		o.args = append(o.args, "--"+f.Name, shell.Quote(f.Value.String()))
	})
	return nil
}

// Validate checks the output format, the source flags and the flag
// combinations, before anything is read.
func (o *planOptions) Validate() error {
	if err := o.output.Validate(); err != nil {
		return err
	}
	if err := o.source.Validate(); err != nil {
		return err
	}
	if err := o.inputs.validateGraphData(); err != nil {
		return err
	}
	if o.inputs.PayloadVersion != "" && o.inputs.Payload == "" {
		return usageError{msg: "--payload-version needs --payload: the bare manifest tree it names"}
	}
	for _, a := range o.accept {
		if strings.TrimSpace(a) == "" {
			return usageError{msg: "--accept has an empty risk name"}
		}
	}
	if o.eus && o.to == "" {
		return usageError{msg: "--eus needs --to: the goal of the control-plane-only path"}
	}
	validate := plan.ValidateAccept
	if o.to != "" {
		validate = plan.ValidateStagedAccept
	}
	if err := validate(o.accept); err != nil {
		return usageError{msg: err.Error()}
	}
	return o.signatures.validate()
}

// Run reads the policy, collects the snapshot, loads the graph (unless the plan is remediation
// only), makes the plan and prints it.
func (o *planOptions) Run(ctx context.Context) error {
	out := o.g.streams.Out
	if err := o.policy.load(); err != nil {
		return err
	}
	src, err := o.source.Source(o.g)
	if err != nil {
		return err
	}
	snap, err := src.Collect(ctx)
	if err != nil {
		return fmt.Errorf("reading the cluster: %w", err)
	}
	ps := o.session()
	d, err := ps.decide(ctx, snap, o.accept)
	if err != nil {
		return err
	}
	var g *graph.Result
	switch k := d.Outcome.Kind; {
	case k == planfile.OutcomeRemediation || k == planfile.OutcomeRefused:
		fmt.Fprintf(o.g.streams.ErrOut, "recover plan: no new release is needed (outcome %s, rule %s): planning the remediation only\n", k, d.Outcome.Rule)
	case k.NeedsRelease() && !ps.graphGiven():
		fmt.Fprintf(o.g.streams.ErrOut, "recover plan: a new release is needed (outcome %s, rule %s): asking the cluster's update service for one; pass --graph FILE|URL to use another graph\n", k, d.Outcome.Rule)
	}
	if d.Outcome.Kind.NeedsRelease() || o.to != "" { // a staged plan (--to) always follows the graph
		if g, err = ps.graph(ctx, snap, o.g.streams.ErrOut, "recover plan"); err != nil {
			return err
		}
	}
	p, err := ps.make(ctx, snap, g, o.accept, d)
	var npe *plan.NoPlanError
	if errors.As(err, &npe) {
		if perr := o.printNoPlan(out, npe); perr != nil {
			return perr
		}
		if npe.ExitCode() == ExitOK {
			return nil
		}
		return err
	}
	var nte *plan.NoTargetError
	if errors.As(err, &nte) {
		if perr := o.printCandidates(out, nte); perr != nil {
			return perr
		}
		return err
	}
	var rre *planfile.RemedyRefusedError
	if errors.As(err, &rre) {
		if perr := o.printRefusals(out, rre); perr != nil {
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

// printNoPlan prints why there is no plan: the outcome, its rule and the
// findings it read (-o json|yaml: the NoPlan report, one shape with the TUI's
// and the verdict's).
func (o *planOptions) printNoPlan(w io.Writer, e *plan.NoPlanError) error {
	return o.output.Print(w, e.Report(), printers{
		table:    func(w io.Writer) error { return render.NoPlan(w, e.Outcome) },
		markdown: func(w io.Writer) error { return render.NoPlan(w, e.Outcome) },
	})
}

// session is the planning session of these flags (plansession.go).
func (o *planOptions) session() *planSession {
	return &planSession{inputs: &o.inputs, policy: o.policy, signatures: o.signatures, forceReason: o.forceReason, takeOver: o.takeOver, to: o.to, eus: o.eus}
}

func (o *planOptions) printRefusals(w io.Writer, e *planfile.RemedyRefusedError) error {
	if o.output.Machine() {
		return o.output.Print(w, e.Report(), printers{})
	}
	if err := render.Refusals(w, e.Refused, e.All); err != nil {
		return err
	}
	if names := e.Accept(); len(names) > 0 {
		what := "To let recover take them, once reviewed"
		if e.Unsafe() {
			what = "The admin's promises among them, once reviewed (the unsafe ones stay refused)"
		}
		line := append(append([]string{"recover", "plan"}, o.acceptArgs()...), "--accept", strings.Join(append(append([]string(nil), o.accept...), names...), ","))
		_, err := fmt.Fprintf(w, "\n%s:\n  %s\n", what, strings.Join(line, " "))
		return err
	}
	return nil
}

// acceptArgs are the flags as given without --accept (the line printed adds
// every name in one --accept).
func (o *planOptions) acceptArgs() []string {
	var out []string
	for i := 0; i < len(o.args); i++ {
		if o.args[i] == "--accept" && i+1 < len(o.args) {
			i++
			continue
		}
		out = append(out, o.args[i])
	}
	return out
}

func (o *planOptions) printCandidates(w io.Writer, nte *plan.NoTargetError) error {
	cands := nte.Selection.Candidates
	if o.output.Machine() {
		return o.output.Print(w, nte.Report(), printers{})
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
func (o *planOptions) writeTable(w io.Writer, p *planfile.Plan) error {
	if err := render.Table(w, p); err != nil {
		return err
	}
	args := strings.Join(o.args, " ")
	_, err := fmt.Fprintf(w, "\nNext: save the plan, review the runbook, then apply it (it runs exactly what the saved plan says):\n"+
		"  recover plan %s -o json > plan.json\n"+
		"  recover plan %s -o markdown > plan.md\n"+
		"  %s\n", args, args, nextcmd.ApplyDryRun("plan.json"))
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
