package main

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/openshift-recover/recover/apply/fleet/verdict"
	"github.com/openshift-recover/recover/apply/fleet/verdictstore"
	"github.com/openshift-recover/recover/apply/printer"
	"github.com/openshift-recover/recover/internal/nextcmd"
)

// applyVerdictFlags are apply's --verdict flags: keep the run's phase, step
// and result in the cluster's verdict (apply/fleet/verdict), beside the printed events.
type applyVerdictFlags struct {
	enabled   bool
	namespace string
	name      string
}

func addApplyVerdictFlags(fs *pflag.FlagSet) *applyVerdictFlags {
	f := &applyVerdictFlags{namespace: verdict.DefaultNamespace, name: verdict.DefaultName}
	fs.BoolVar(&f.enabled, nextcmd.FlagVerdict, false, "Keep the run's phase, step and result in the cluster's verdict ConfigMap (recover inspect --verdict writes it; a fleet hub reads it).")
	fs.StringVar(&f.namespace, nextcmd.FlagVerdictNamespace, f.namespace, "Namespace of the verdict ConfigMap.")
	fs.StringVar(&f.name, nextcmd.FlagVerdictName, f.name, "Name of the verdict ConfigMap.")
	return f
}

// printer returns the verdict printer, or nil without --verdict or for a dry
// run (which changes nothing, so it has nothing to report to a hub).
func (f *applyVerdictFlags) printer(ctx context.Context, cfg *rest.Config, dryRun bool) (*printer.Verdict, error) {
	if !f.enabled || dryRun {
		return nil, nil
	}
	store, err := f.store(cfg)
	if err != nil {
		return nil, err
	}
	p, err := printer.NewVerdict(ctx, store)
	if err != nil {
		return nil, withExitCode(fmt.Errorf("--verdict: %w", err), ExitCluster)
	}
	return p, nil
}

// store is the verdict's ConfigMap in the cluster cfg points at.
func (f *applyVerdictFlags) store(cfg *rest.Config) (verdictstore.Store, error) {
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return verdictstore.Store{}, withExitCode(err, ExitCluster)
	}
	return verdictstore.Store{Client: kc, Namespace: f.namespace, Name: f.name}, nil
}
