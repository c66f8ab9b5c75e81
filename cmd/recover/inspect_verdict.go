package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"

	"github.com/openshift-recover/recover/apply/fleet/verdict"
	"github.com/openshift-recover/recover/apply/fleet/verdictstore"
	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/nextcmd"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/planfile"
)

// verdictFlags are inspect's --verdict flags: the answer a fleet hub reads
// (apply/fleet/verdict), written into the live cluster or printed.
type verdictFlags struct {
	enabled   bool
	namespace string
	name      string
	wave      string
	accept    []string
	savePlan  bool
	// staged is set when a flag of the staged plan's inputs was given.
	staged bool
	// to and eus store, with --save-plan, the staged plan to a goal instead
	// (recover plan --to GOAL [--eus], from the graph and payloads inputs
	// name): a staged fleet wave's inspect (docs/fleet.md, Staged waves).
	to     string
	eus    bool
	inputs planInputFlags
}

func addVerdictFlags(cmd *cobra.Command) *verdictFlags {
	f := &verdictFlags{namespace: verdict.DefaultNamespace, name: verdict.DefaultName}
	fs := cmd.Flags()
	fs.BoolVar(&f.enabled, nextcmd.FlagVerdict, false, "Write the verdict a fleet hub reads (wedged, causes, the remedy and whether it needs --accept) as a ConfigMap: into the live cluster, and on stdout as YAML (-o json for JSON); offline, on stdout only.")
	fs.StringVar(&f.namespace, nextcmd.FlagVerdictNamespace, f.namespace, "Namespace of the verdict ConfigMap in the live cluster (it must exist).")
	fs.StringVar(&f.name, nextcmd.FlagVerdictName, f.name, "Name of the verdict ConfigMap.")
	fs.StringVar(&f.wave, nextcmd.FlagWave, "", "Name of the fleet run writing the verdict (lowercase letters, digits, '-'); the fleet templates wait for a verdict of their wave.")
	fs.StringSliceVar(&f.accept, "accept", nil, "The admin's promises the remedies may use, as recover plan --accept takes them (the verdict says which ones a remedy waits for).")
	fs.BoolVar(&f.savePlan, nextcmd.FlagSavePlan, false, "With --verdict on a live cluster: also store the remediation plan (or why there is none) in the ConfigMap recover-plan[-<wave>] of the verdict's namespace, unless it exists (recover apply --in-cluster runs the plan). With --to: the staged plan to that goal instead.")
	addGoalFlags(fs, &f.to, &f.eus)
	f.inputs.addGraphFlags(cmd)
	f.inputs.addPayloadFlags(cmd)
	f.inputs.addGraphCacheFlag(cmd)
	return f
}

// stagedFlagsSet reports whether a flag of the staged plan (--to, --eus, the
// graph and payload flags) was given.
func (f *verdictFlags) stagedFlagsSet(cmd *cobra.Command) bool {
	for _, name := range []string{nextcmd.FlagTo, nextcmd.FlagEUS, "graph", "graph-data", "channel", "arch", "payload", "registry-config", "payload-version"} {
		if cmd.Flags().Changed(name) {
			return true
		}
	}
	return false
}

// Validate checks the verdict flags against each other and the source.
func (f *verdictFlags) Validate(live bool, output *outputFlag, outputSet bool) error {
	if !f.enabled {
		for _, set := range []bool{f.wave != "", len(f.accept) > 0, f.savePlan, f.to != "" || f.eus || f.staged} {
			if set {
				return usageError{msg: "--wave, --accept, --save-plan and --to (with its graph and payload flags) go with --verdict"}
			}
		}
		return nil
	}
	if err := verdict.ValidateWave(f.wave); err != nil {
		return usageError{msg: "--" + err.Error()}
	}
	validate := plan.ValidateAccept
	if f.to != "" {
		validate = plan.ValidateStagedAccept
	}
	if err := validate(f.accept); err != nil {
		return err
	}
	if f.savePlan && !live {
		return usageError{msg: "--save-plan stores the plan in the live cluster: drop it for an offline source"}
	}
	if f.eus && f.to == "" {
		return usageError{msg: "--eus needs --to: the goal of the control-plane-only path"}
	}
	if f.to == "" && f.staged {
		return usageError{msg: "the graph and payload flags are for the staged plan: pass --to GOAL with them"}
	}
	if f.to != "" && !f.savePlan {
		return usageError{msg: "--to stores a staged plan to its goal: pass --save-plan with it (recover plan --to prints one)"}
	}
	if f.to != "" {
		if err := f.inputs.validateGraphData(); err != nil {
			return err
		}
	}
	if outputSet && !output.Machine() {
		return usageError{msg: "--verdict prints the verdict ConfigMap: use -o yaml (the default) or -o json"}
	}
	return nil
}

// complete makes YAML the verdict's default output and normalises the
// staged plan's inputs.
func (f *verdictFlags) complete(output *outputFlag, outputSet bool) {
	if f.enabled && !outputSet {
		output.format = outputYAML
	}
	f.inputs.trim()
	f.to = strings.TrimSpace(f.to)
}

// write judges the snapshot, stores the verdict (and the plan) in the live
// cluster when live, and prints the verdict ConfigMap.
func (f *verdictFlags) write(ctx context.Context, g *globalOptions, snap *inspect.Snapshot, live bool, out io.Writer, output *outputFlag) error {
	accept := f.accept
	if f.to != "" {
		// The remedies' verdict reads the names for every stage; the
		// stage-numbered ones are the staged plan's.
		accept = nil
		for _, a := range f.accept {
			if plan.ValidateAccept([]string{a}) == nil {
				accept = append(accept, a)
			}
		}
	}
	v, p, err := verdict.Judge(ctx, snap, verdict.Options{Accept: accept, Wave: f.wave, Now: clock(), Generator: "recover " + currentVersion().Version})
	if err != nil {
		return err
	}
	if f.to != "" && live {
		if p, err = f.stagedPlan(ctx, g, snap, v); err != nil {
			return err
		}
	}
	if live {
		cfg, err := g.kube.ToRESTConfig()
		if err != nil {
			return withExitCode(fmt.Errorf("loading the kubeconfig: %w", err), ExitCluster)
		}
		kc, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return withExitCode(err, ExitCluster)
		}
		store := verdictstore.Store{Client: kc, Namespace: f.namespace, Name: f.name}
		if f.savePlan {
			// A plan already stored for this wave stays: an apply run may be on it.
			reason := fmt.Sprintf("the verdict's answer is %s: %s", v.Remedy.Answer, v.Remedy.Reason)
			if v.Remedy.PlanDigest, err = store.SavePlan(ctx, f.wave, p, reason); err != nil {
				return withExitCode(err, ExitCluster)
			}
		}
		if err := store.Save(ctx, v); err != nil {
			return withExitCode(err, ExitCluster)
		}
		// Print the record as stored: an apply run's state of this wave stays.
		if stored, err := store.Load(ctx); err == nil {
			v = stored
		}
	}
	cm, err := verdict.ToConfigMap(v, f.namespace, f.name)
	if err != nil {
		return err
	}
	return output.Print(out, cm, printers{})
}

// stagedPlan makes the staged plan to --to as recover plan --to makes it (the
// same planning session: decision, graph, payloads) and makes it the
// verdict's answer: a plan, not settled until a run of it completes. When the
// planner refuses (no path, a stage a rule refuses), the verdict says why and
// no plan is stored; an input that fails (the graph unreachable, a payload
// that cannot be pulled) fails the command, so that a Job retries it.
func (f *verdictFlags) stagedPlan(ctx context.Context, g *globalOptions, snap *inspect.Snapshot, v *verdict.Verdict) (*planfile.Plan, error) {
	ps := &planSession{inputs: &f.inputs, policy: &policyFlag{}, signatures: &signatureFlags{}, to: f.to, eus: f.eus}
	p, err := ps.staged(ctx, snap, f.accept, g.streams.ErrOut, "recover inspect")
	var refused *plan.StageRefusedError
	var noTarget *plan.NoTargetError
	var noPlan *plan.NoPlanError
	var remedy *planfile.RemedyRefusedError
	switch {
	case err == nil:
		v.Remedy.Answer = verdict.AnswerPlan
		v.Remedy.Reason = fmt.Sprintf("a staged plan to %s: %s", p.Goal, strings.Join(p.GoalReasons, " "))
		if p.Outcome != nil {
			// The decision stage 1 carries out (the staged goal's).
			v.Remedy.Outcome, v.Remedy.Rule = p.Outcome.Kind, p.Outcome.Rule
		}
		v.Settled = false
	case errors.As(err, &refused) || errors.As(err, &noTarget) || errors.As(err, &noPlan) || errors.As(err, &remedy):
		v.Remedy.Answer, v.Remedy.PlanDigest = verdict.AnswerAdvice, ""
		v.Remedy.Reason = fmt.Sprintf("no staged plan to %s: %v", f.to, err)
		p = nil
	default:
		return nil, fmt.Errorf("planning the stages to %s: %w", f.to, err)
	}
	v.Signature = verdict.Signature(v)
	return p, nil
}
