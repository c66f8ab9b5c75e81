package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"
	"k8s.io/client-go/rest"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/apply/printer"
	"github.com/openshift-recover/recover/internal/nextcmd"
	"github.com/openshift-recover/recover/plan/planfile"
)

func init() { registerCommand(newApplyCmd) }

// Event stream formats of recover apply.
const (
	eventsPlain = "plain"
	eventsJSON  = "json"
)

// applyOptions holds recover apply's flags and resolved inputs.
type applyOptions struct {
	g *globalOptions

	planPath      string
	resume        string
	journalPath   string
	yes           bool
	dryRun        bool
	events        string
	fromStep      string
	untilStep     string
	untilStage    int
	allowStale    bool
	backupRecord  string
	iHaveABackup  bool
	breakLock     bool
	gateTimeouts  *gateTimeoutFlag
	leaseDuration time.Duration
	showDiffs     bool
	ic            inClusterFlags
	verdict       *applyVerdictFlags

	// resolved by Complete
	plan     *planfile.Plan
	digest   string
	timeouts map[planfile.GateKind]time.Duration
	tty      bool
}

func newApplyCmd(g *globalOptions) *cobra.Command {
	cmd, _ := newApplyCommand(g)
	return cmd
}

// newApplyCommand builds the command and returns the options its flags fill.
func newApplyCommand(g *globalOptions) (*cobra.Command, *applyOptions) {
	o := &applyOptions{g: g, events: eventsPlain, leaseDuration: 60 * time.Second}
	cmd := &cobra.Command{
		Use:   "apply --plan FILE | --resume JOURNAL | --in-cluster",
		Short: "Apply a recovery plan with the CVO disabled: locked, journaled, verified, resumable",
		Long: `Apply executes a saved plan (recover plan -o json) step by step with the
cluster-version operator disabled, waits for every step's gate to verify reality,
and hands control back to the CVO at the end.

Before anything changes it checks every permission the plan needs, that the plan
is not stale, and that an etcd backup is recorded; it takes a lock (a Lease in
openshift-cluster-version) so no second apply runs at once. Every change is
journaled (fsync'd) before it is made: after Ctrl-C, a crash or kill -9, resume
with --resume JOURNAL. If a run stops early the CVO stays disabled; the last lines
say so and print the commands to resume or to restore it.

Remediation steps (relax a PodDisruptionBudget, approve a vouched CSR, ...)
journal the pre-image of every field they set before they set it. A temporary
change (a relaxed budget) is restored exactly by its revert step, and, when the
run stops before that step for any reason but a lost lock, by the engine itself
before it exits; a resume makes the change again. A pool recover paused is
unpaused the same way; a pool it did not pause is never unpaused.

A staged plan (recover plan --to VERSION [--eus]) runs stage by stage: each later
stage hands the CVO its target only once the stage before has landed, as the plan
outlined it. The journal keeps the start version and the stages: --resume goes on
in the stage that stopped, and recover journal shows which stage holds the run.

Without --yes it asks before every change (a terminal is required).

With --in-cluster it runs inside the cluster, as a Job: the plan is read from
ConfigMaps (--print-plan-configmap makes them), the journal is kept as
ConfigMaps (every record acknowledged by the API server before its change), and
an existing journal is resumed, so the Job's next pod continues the run.
--print-rbac prints the least-privilege RBAC such a run of the plan needs.`,
		Example: `  # Scripted runbook: no terminal needed, JSON events on stdout
  recover apply --plan plan.json --backup-record backup.yaml --yes --events json

  # See every change as a server-side dry run; nothing changes
  recover apply --plan plan.json --dry-run

  # A staged change window, then the rest later
  recover apply --plan plan.json --i-have-a-backup --yes --until-step 012-wait-etcd
  recover apply --resume recover-apply-20200524T160251Z.journal --yes

  # A staged plan, one stage per change window
  recover apply --plan eus-plan.json --i-have-a-backup --yes --until-stage 1
  recover apply --resume recover-apply-20200524T160251Z.journal --yes --until-stage 2

  # Inside the cluster, as a Job
  recover apply --plan plan.json --print-plan-configmap -n openshift-recover | oc apply -f -
  recover apply --plan plan.json --print-rbac -n openshift-recover | oc apply -f -
  recover apply --in-cluster --plan-configmap recover-plan --i-have-a-backup --yes --events json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Complete(); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.planPath, "plan", "", "Plan document to apply (recover plan -o json). With --resume, the plan's new path if it moved.")
	fs.StringVar(&o.resume, "resume", "", "Resume the run recorded in this journal.")
	fs.StringVar(&o.journalPath, nextcmd.FlagJournal, "", "Journal to write (default recover-apply-<time>.journal in the current directory). Must not exist.")
	fs.BoolVarP(&o.yes, "yes", "y", false, "Do not ask: apply every step, and stop (resumable) when a gate or a step fails. Needed without a terminal.")
	fs.BoolVar(&o.dryRun, "dry-run", false, "Send every change as a server-side dry run and show the diffs; change nothing (no lock, no journal).")
	fs.StringVar(&o.events, "events", o.events, "Event output: plain (one line per finished step) or json (JSON lines, first line the events version).")
	fs.StringVar(&o.fromStep, "from-step", "", "Start at this step ID; earlier steps are journaled as skipped.")
	fs.StringVar(&o.untilStep, "until-step", "", "Stop after this step ID (resume later with --resume).")
	fs.IntVar(&o.untilStage, nextcmd.FlagUntilStage, 0, "Staged plan: stop once stage N has landed (its last step done), exit 0; the pools paused for later stages stay paused, and --resume goes on with stage N+1.")
	fs.BoolVar(&o.allowStale, "allow-stale", false, "Apply even if the cluster changed since the plan was made (its fingerprint differs).")
	fs.StringVar(&o.backupRecord, "backup-record", "", "etcd backup record (YAML/JSON: path, sha256, etcdRevision, clusterVersion), checked and journaled.")
	fs.BoolVar(&o.iHaveABackup, "i-have-a-backup", false, "Acknowledge that a current etcd backup exists, instead of --backup-record (journaled as unverified).")
	fs.BoolVar(&o.breakLock, "break-lock", false, "Take the apply lock even if another run holds it. Only when that run is certainly dead.")
	o.gateTimeouts = addGateTimeoutFlag(fs)
	fs.DurationVar(&o.leaseDuration, "lease-duration", o.leaseDuration, "Duration of the apply lock's lease; it is renewed every third of it.")
	fs.BoolVar(&o.showDiffs, "diff", false, "Print each step's diff (plain events; always shown in JSON events and when asking).")
	o.ic.addFlags(fs)
	o.verdict = addApplyVerdictFlags(fs)
	_ = cmd.MarkFlagFilename("plan", "json")
	_ = cmd.MarkFlagFilename("resume", "journal")
	_ = cmd.MarkFlagFilename("backup-record", "yaml", "yml", "json")
	_ = cmd.RegisterFlagCompletionFunc("events", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{eventsPlain, eventsJSON}, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd, o
}

// Complete parses the gate timeouts, loads the plan (from --plan, or the path the
// resumed journal records) and finds out whether a person is at a terminal.
func (o *applyOptions) Complete() error {
	timeouts, err := o.gateTimeouts.parse()
	if err != nil {
		return err
	}
	o.timeouts = timeouts
	o.tty = isTerminal(o.g.streams.In) && isTerminal(o.g.streams.Out)
	if err := o.ic.complete(o); err != nil || o.ic.inCluster {
		return err
	}
	if o.planPath == "" && o.resume != "" {
		j, err := journal.Load(o.resume)
		if err != nil {
			return err
		}
		o.planPath = j.Header.Plan.Path
	}
	if o.planPath == "" {
		return usageError{msg: "no plan: pass --plan FILE (make one with 'recover plan -o json'), or --resume JOURNAL"}
	}
	p, digest, err := planfile.Load(o.planPath)
	if err != nil {
		return err
	}
	o.plan, o.digest = p, digest
	if o.resume == "" && o.journalPath == "" && !o.dryRun && !o.ic.printing() {
		o.journalPath = fmt.Sprintf("recover-apply-%s.journal", time.Now().UTC().Format("20060102T150405Z"))
	}
	return nil
}

// Validate checks the flags against each other.
func (o *applyOptions) Validate() error {
	switch {
	case o.events != eventsPlain && o.events != eventsJSON:
		return usageError{msg: fmt.Sprintf("--events %q: use plain or json", o.events)}
	case o.resume != "" && o.journalPath != "":
		return usageError{msg: "--resume continues the journal it names; do not pass --journal with it"}
	case o.resume != "" && o.dryRun:
		return usageError{msg: "--dry-run cannot resume a journal; run --dry-run with --plan"}
	case o.backupRecord != "" && o.iHaveABackup:
		return usageError{msg: "pass either --backup-record FILE or --i-have-a-backup, not both"}
	case o.untilStage != 0 && o.untilStep != "":
		return usageError{msg: fmt.Sprintf("--until-stage %d and --until-step %s both say where to stop: pass one", o.untilStage, o.untilStep)}
	case o.untilStage < 0:
		return usageError{msg: fmt.Sprintf("--until-stage %d: stages are numbered from 1", o.untilStage)}
	}
	if o.untilStage != 0 && o.plan != nil && !o.ic.printing() {
		if _, err := apply.CheckUntilStage(o.plan, o.untilStage); err != nil {
			return withExitCode(err, ExitBadInput)
		}
	}
	if err := o.ic.validate(o); err != nil || o.ic.printing() {
		return err
	}
	switch {
	case !o.yes && !o.dryRun && !o.tty:
		return usageError{msg: "no terminal to ask for confirmation: pass --yes to apply every step without asking (a failed gate then stops the run, resumable), or --dry-run to only show the changes"}
	case !o.yes && !o.dryRun && o.events == eventsJSON:
		return usageError{msg: "--events json is for programs: pass --yes as well"}
	}
	return nil
}

// Run executes the plan and maps the outcome to an exit code.
func (o *applyOptions) Run(ctx context.Context) error {
	if o.ic.printing() {
		return o.ic.print(ctx, o)
	}
	if o.ic.noPlan != nil {
		return o.ic.nothingToApply(ctx, o)
	}
	cfg := o.ic.cfg
	if cfg == nil {
		c, err := o.g.kube.ToRESTConfig()
		if err != nil {
			return withExitCode(fmt.Errorf("loading the kubeconfig: %w", err), ExitCluster)
		}
		cfg = c
	}
	var p printer.Printer
	if o.events == eventsJSON {
		p = printer.NewJSON(o.g.streams.Out, currentVersion().Version)
		// The API server's warnings (deprecated fields of payload manifests)
		// become warning events of the stream, not raw lines on stderr beside it.
		cfg = rest.CopyConfig(cfg)
		cfg.WarningHandler = &warningEvents{p: p, errOut: o.g.streams.ErrOut, seen: map[string]bool{}}
	} else {
		plain := printer.NewPlain(o.g.streams.Out, o.tty)
		plain.ShowDiffs = o.showDiffs || o.dryRun
		p = plain
	}
	engine, err := apply.New(cfg)
	if err != nil {
		return err
	}
	opts := apply.Options{
		PlanPath: o.planPath, PlanDigest: o.digest, JournalPath: o.journalPath, DryRun: o.dryRun,
		FromStep: o.fromStep, UntilStep: o.untilStep, UntilStage: o.untilStage, AllowStale: o.allowStale, Fingerprint: liveFingerprint(cfg),
		BackupRecordFile: o.backupRecord, IHaveABackup: o.iHaveABackup, BreakLock: o.breakLock,
		LeaseDuration: o.leaseDuration, Timeouts: o.timeouts, Generator: currentVersion().Version,
		Decider: apply.AutoDecider{},
	}
	if o.resume != "" {
		opts.Resume, opts.JournalPath = true, o.resume
	}
	o.ic.engineOptions(&opts)
	if !o.yes && !o.dryRun {
		opts.Confirm = true
		opts.Decider = &promptDecider{in: bufio.NewReader(o.g.streams.In), out: o.g.streams.ErrOut}
	}
	vp, err := o.verdict.printer(ctx, cfg, o.dryRun)
	if err != nil {
		return err
	}
	var res *apply.Result
	for ev := range engine.Run(ctx, o.plan, opts) {
		if err := p.Print(ev); err != nil && !errors.Is(err, io.ErrClosedPipe) {
			fmt.Fprintf(o.g.streams.ErrOut, "warning: printing events: %v\n", err)
		}
		if vp != nil {
			if err := vp.Print(ev); err != nil {
				fmt.Fprintf(o.g.streams.ErrOut, "warning: %v\n", err)
			}
		}
		if ev.Type == apply.EventDone {
			res = ev.Result
		}
	}
	if res == nil || res.Err == nil {
		return nil
	}
	return withExitCode(res.Err, exitCodeForOutcome(res.Outcome, res.Err))
}

// exitCodeForOutcome maps an engine outcome to recover's exit codes.
func exitCodeForOutcome(o apply.Outcome, err error) int {
	switch o {
	case apply.OutcomeCompleted, apply.OutcomeStopped:
		return ExitOK
	case apply.OutcomeBadInput:
		return ExitBadInput
	case apply.OutcomeRefused:
		return ExitPreflight
	case apply.OutcomeLocked, apply.OutcomeLostLock:
		return ExitLocked
	case apply.OutcomeGateFailed:
		return ExitGateFailed
	case apply.OutcomeStepFailed:
		return ExitStepFailed
	case apply.OutcomeAborted:
		return ExitAborted
	case apply.OutcomeStepRefused:
		return ExitRemedyRefused
	}
	var inner *apply.Error
	if errors.As(err, &inner) {
		err = inner.Err
	}
	return exitCodeFor(err)
}

func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// promptDecider asks the person at the terminal.
type promptDecider struct {
	in  *bufio.Reader
	out io.Writer
}

var decisionKeys = map[string]apply.Decision{"p": apply.Proceed, "y": apply.Proceed, "s": apply.Skip, "r": apply.Retry, "a": apply.Abort, "q": apply.Abort}

// Decide prints the request and reads the answer; Ctrl-C (a cancelled context)
// aborts.
func (d *promptDecider) Decide(ctx context.Context, req apply.Request) (apply.Decision, error) {
	fmt.Fprintf(d.out, "\n[%d/%d] %s\n  %s\n", req.Step.Index, req.Step.Total, req.Step.ID, req.Message)
	if req.Change != nil && req.Change.Diff != "" {
		fmt.Fprintln(d.out, "  "+strings.ReplaceAll(strings.TrimRight(req.Change.Diff, "\n"), "\n", "\n  "))
	}
	if req.Gate != nil {
		for _, p := range req.Gate.Pending {
			fmt.Fprintln(d.out, "  - "+p)
		}
	}
	var choices []string
	for _, o := range req.Options {
		choices = append(choices, "["+string(o[0])+"]"+string(o[1:]))
	}
	for {
		fmt.Fprintf(d.out, "%s? ", strings.Join(choices, " / "))
		line := make(chan string, 1)
		go func() {
			s, err := d.in.ReadString('\n')
			if err != nil && s == "" {
				s = "abort"
			}
			line <- s
		}()
		var answer string
		select {
		case <-ctx.Done():
			return apply.Abort, ctx.Err()
		case answer = <-line:
		}
		answer = strings.ToLower(strings.TrimSpace(answer))
		if answer == "" {
			continue
		}
		if dec, ok := decisionKeys[answer[:1]]; ok && req.Allows(dec) {
			return dec, nil
		}
		fmt.Fprintf(d.out, "answer one of: %s\n", strings.Join(choices, ", "))
	}
}

// warningEvents is the rest.WarningHandler of a run with --events json: each
// distinct API server warning (HTTP Warning header, code 299) is one warning
// event of the stream, as kubectl prints each once.
type warningEvents struct {
	p      printer.Printer
	errOut io.Writer
	mu     sync.Mutex
	seen   map[string]bool
}

// HandleWarningHeader implements rest.WarningHandler.
func (w *warningEvents) HandleWarningHeader(code int, _ string, text string) {
	if code != 299 || text == "" {
		return
	}
	w.mu.Lock()
	seen := w.seen[text]
	w.seen[text] = true
	w.mu.Unlock()
	if seen {
		return
	}
	if err := w.p.Print(apply.Event{Type: apply.EventWarning, Time: time.Now(), Message: "API server warning: " + text}); err != nil && !errors.Is(err, io.ErrClosedPipe) {
		fmt.Fprintf(w.errOut, "warning: printing events: %v\n", err)
	}
}
