package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/openshift-recover/recover/internal/lab/sim"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

// Exit codes, aligned with recover's where they mean the same.
const (
	exitError    = 1
	exitUsage    = 2
	exitBadInput = 4
)

// options are the lab's flags.
type options struct {
	scenario string
	seed     uint64
	fast     bool
	hold     bool
	noFaults bool
	quiet    bool
	gatherTo string
	out      io.Writer
	errOut   io.Writer
}

func main() {
	o := &options{out: os.Stdout, errOut: os.Stderr}
	fs := flag.NewFlagSet("recover-lab", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	fs.StringVar(&o.scenario, "scenario", "", "scenario directory (holding scenario.yaml), e.g. examples/reconciled-4.3-to-4.4")
	fs.Uint64Var(&o.seed, "seed", 0, "seed of the fake CVO's shuffled Reconciling order (default: the scenario's)")
	fs.BoolVar(&o.fast, "fast", false, "use the tests' short delays instead of the scenario's")
	fs.BoolVar(&o.hold, "hold", true, "keep the cluster as the scenario describes it (the CVO stuck retrieving its payload, machine-config daemons idle) until recover disables the CVO; --hold=false lets the fake CVO go on reconciling at once")
	fs.BoolVar(&o.noFaults, "no-faults", false, "start without the scenario's faults")
	fs.BoolVar(&o.quiet, "quiet", false, "do not print what the fake controllers do")
	fs.StringVar(&o.gatherTo, "must-gather-out", "", "write a must-gather of the live cluster into this directory once the lab is up, and again on every SIGUSR1 (for recover inspect --must-gather)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: go run ./internal/lab/sim/cmd/recover-lab --scenario DIR [flags]\n\nStarts a simulated OpenShift cluster loaded with a scenario (docs/simulator.md).\nRun it from the repository root. Ctrl-C stops it and removes its files.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		os.Exit(exitUsage)
	}
	if o.scenario == "" || fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "recover-lab: --scenario DIR is required and takes no arguments (try --scenario examples/reconciled-4.3-to-4.4)")
		os.Exit(exitUsage)
	}
	dieWithParent()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	os.Exit(o.run(ctx))
}

// run starts the lab and blocks until ctx ends; it returns the exit code.
func (o *options) run(ctx context.Context) int {
	scn, err := sim.LoadScenario(o.scenario)
	if err != nil {
		fmt.Fprintf(o.errOut, "recover-lab: %v\n", err)
		return exitBadInput
	}
	fmt.Fprintf(o.out, "recover-lab: starting a real kube-apiserver for %s ...\n", scn.Dir)
	env, err := kubetest.Start(kubetest.Options{Workloads: true})
	if err != nil {
		fmt.Fprintf(o.errOut, "recover-lab: %v\n", err)
		if errors.Is(err, kubetest.ErrBinariesMissing) {
			fmt.Fprintf(o.errOut, "recover-lab: run it from the repository root after '%s'\n", kubetest.BuildCommand)
		}
		return exitError
	}
	defer env.Stop()

	opts := sim.Options{Seed: o.seed, NoFaults: o.noFaults,
		KubeletCA: &sim.KubeletCA{CertFile: env.SigningCAPath(), KeyFile: env.SigningKeyPath()}}
	if !o.quiet {
		opts.Out = o.out
	}
	timing := scn.Timing
	if o.fast {
		timing = sim.FastTiming
	}
	opts.Timing = &timing
	if o.hold {
		held := timing
		held.PayloadLoad = sim.HeldTiming.PayloadLoad
		held.MachineConfigNode = sim.HeldTiming.MachineConfigNode
		opts.Timing = &held
	}
	s, err := sim.New(env.Config, scn, opts)
	if err != nil {
		fmt.Fprintf(o.errOut, "recover-lab: %v\n", err)
		return exitError
	}
	if err := s.Load(ctx); err != nil {
		fmt.Fprintf(o.errOut, "recover-lab: %v\n", err)
		var bad interface{ BadInput() bool }
		if errors.As(err, &bad) && bad.BadInput() {
			return exitBadInput
		}
		return exitError
	}
	o.banner(s, env)
	if err := s.Start(ctx); err != nil {
		fmt.Fprintf(o.errOut, "recover-lab: %v\n", err)
		return exitError
	}
	if o.hold {
		go o.releaseWhenCVOStops(ctx, s, timing)
	}
	if o.gatherTo != "" {
		go o.gatherOnSignal(ctx, s)
	}
	<-ctx.Done()
	fmt.Fprintln(o.out, "\nrecover-lab: stopping the simulator and the control plane ...")
	s.Stop()
	env.Stop()
	fmt.Fprintf(o.out, "recover-lab: stopped; removed %s\n", env.Dir)
	return 0
}

// releaseWhenCVOStops waits for the first time the CVO is scaled to 0 (recover's
// disable-cvo step, or an admin's oc scale) and then lets the simulated cluster move
// at the scenario's own pace: the wedge holds still until someone intervenes.
func (o *options) releaseWhenCVOStops(ctx context.Context, s *sim.Sim, timing sim.Timing) {
	if _, err := s.WaitForEvent(ctx, func(e sim.Event) bool { return e.Actor == "cvo" && e.Reason == "Stopped" }); err != nil {
		return
	}
	s.SetTiming(timing)
	fmt.Fprintln(o.out, "recover-lab: the CVO was scaled down; the simulated controllers now run at the scenario's pace")
}

// gatherOnSignal writes a must-gather of the live cluster into --must-gather-out
// now and on every SIGUSR1, replacing the previous one.
func (o *options) gatherOnSignal(ctx context.Context, s *sim.Sim) {
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	defer signal.Stop(usr1)
	for {
		if err := replaceable(o.gatherTo); err != nil {
			fmt.Fprintf(o.errOut, "recover-lab: --must-gather-out: %v\n", err)
		} else if err := os.RemoveAll(o.gatherTo); err != nil {
			fmt.Fprintf(o.errOut, "recover-lab: --must-gather-out: %v\n", err)
		} else if err := s.WriteMustGather(ctx, o.gatherTo); err != nil {
			fmt.Fprintf(o.errOut, "recover-lab: --must-gather-out: %v\n", err)
		} else {
			fmt.Fprintf(o.out, "recover-lab: wrote a must-gather of the live cluster to %s (recover inspect --must-gather %s; kill -USR1 %d writes a fresh one)\n", o.gatherTo, o.gatherTo, os.Getpid())
		}
		select {
		case <-ctx.Done():
			return
		case <-usr1:
		}
	}
}

// replaceable refuses to replace a directory that is neither empty nor a
// must-gather the lab wrote (a timestamp file beside cluster-scoped-resources/).
func replaceable(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) || err == nil && len(entries) == 0 {
		return nil
	}
	if err != nil {
		return err
	}
	for _, marker := range []string{"timestamp", "cluster-scoped-resources"} {
		if _, err := os.Stat(filepath.Join(dir, marker)); err != nil {
			return fmt.Errorf("%s holds other files; name a new directory (the lab replaces its content on every write)", dir)
		}
	}
	return nil
}

// banner prints where the cluster is and what to try.
func (o *options) banner(s *sim.Sim, env *kubetest.Env) {
	scn := s.Scenario()
	name := filepath.Base(scn.Dir)
	fmt.Fprintf(o.out, "\nrecover-lab: scenario %s is loaded into %s\n", name, env.Config.Host)
	if scn.Description != "" {
		fmt.Fprintf(o.out, "  %s\n", scn.Description)
	}
	fmt.Fprintf(o.out, "\nIn another shell, from the repository root:\n\n  export KUBECONFIG=%s\n", env.Kubeconfig)
	if len(scn.Try) > 0 {
		fmt.Fprintln(o.out, "\nthen try:")
		for _, c := range scn.Try {
			fmt.Fprintf(o.out, "  %s\n", c)
		}
	}
	if o.hold {
		fmt.Fprintln(o.out, "\nThe cluster holds still (the CVO is stuck retrieving its payload, as in the incident) until it is scaled down.")
	}
	for _, f := range s.Faults() {
		fmt.Fprintf(o.out, "\nactive fault: %s\n", f)
	}
	fmt.Fprintf(o.out, "\nCtrl-C stops the cluster and removes %s.\n\n", env.Dir)
}
