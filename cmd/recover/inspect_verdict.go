package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"

	"github.com/openshift-recover/recover/apply/fleet/verdict"
	"github.com/openshift-recover/recover/apply/fleet/verdictstore"
	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/nextcmd"
	"github.com/openshift-recover/recover/plan"
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
}

func addVerdictFlags(cmd *cobra.Command) *verdictFlags {
	f := &verdictFlags{namespace: verdict.DefaultNamespace, name: verdict.DefaultName}
	fs := cmd.Flags()
	fs.BoolVar(&f.enabled, nextcmd.FlagVerdict, false, "Write the verdict a fleet hub reads (wedged, causes, the remedy and whether it needs --accept) as a ConfigMap: into the live cluster, and on stdout as YAML (-o json for JSON); offline, on stdout only.")
	fs.StringVar(&f.namespace, nextcmd.FlagVerdictNamespace, f.namespace, "Namespace of the verdict ConfigMap in the live cluster (it must exist).")
	fs.StringVar(&f.name, nextcmd.FlagVerdictName, f.name, "Name of the verdict ConfigMap.")
	fs.StringVar(&f.wave, nextcmd.FlagWave, "", "Name of the fleet run writing the verdict (lowercase letters, digits, '-'); the fleet templates wait for a verdict of their wave.")
	fs.StringSliceVar(&f.accept, "accept", nil, "The admin's promises the remedies may use, as recover plan --accept takes them (the verdict says which ones a remedy waits for).")
	fs.BoolVar(&f.savePlan, nextcmd.FlagSavePlan, false, "With --verdict on a live cluster: also store the remediation plan (or why there is none) in the ConfigMap recover-plan[-<wave>] of the verdict's namespace, unless it exists (recover apply --in-cluster runs the plan).")
	return f
}

// Validate checks the verdict flags against each other and the source.
func (f *verdictFlags) Validate(live bool, output *outputFlag, outputSet bool) error {
	if !f.enabled {
		for _, set := range []bool{f.wave != "", len(f.accept) > 0, f.savePlan} {
			if set {
				return usageError{msg: "--wave, --accept and --save-plan go with --verdict"}
			}
		}
		return nil
	}
	if err := verdict.ValidateWave(f.wave); err != nil {
		return usageError{msg: "--" + err.Error()}
	}
	if err := plan.ValidateAccept(f.accept); err != nil {
		return err
	}
	if f.savePlan && !live {
		return usageError{msg: "--save-plan stores the plan in the live cluster: drop it for an offline source"}
	}
	if outputSet && !output.Machine() {
		return usageError{msg: "--verdict prints the verdict ConfigMap: use -o yaml (the default) or -o json"}
	}
	return nil
}

// complete makes YAML the verdict's default output.
func (f *verdictFlags) complete(output *outputFlag, outputSet bool) {
	if f.enabled && !outputSet {
		output.format = outputYAML
	}
}

// write judges the snapshot, stores the verdict (and the plan) in the live
// cluster when live, and prints the verdict ConfigMap.
func (f *verdictFlags) write(ctx context.Context, g *globalOptions, snap *inspect.Snapshot, live bool, out io.Writer, output *outputFlag) error {
	v, p, err := verdict.Judge(ctx, snap, verdict.Options{Accept: f.accept, Wave: f.wave, Now: clock(), Generator: "recover " + currentVersion().Version})
	if err != nil {
		return err
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
