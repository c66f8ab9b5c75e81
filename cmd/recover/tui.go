package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/tui"
	"github.com/openshift-recover/recover/tui/styles"
)

func init() { registerCommand(newTUICmd) }

// tuiOptions holds recover tui's flags and the session they resolve to.
type tuiOptions struct {
	g      *globalOptions
	source *sourceFlags
	inputs planInputFlags

	planPath     string
	resume       string
	journalPath  string
	planOut      string
	readOnly     bool
	accept       []string
	backupRecord string
	iHaveABackup bool
	allowStale   bool
	breakLock    bool
	forceReason  string
	policy       *policyFlag
	signatures   *signatureFlags
	gateTimeouts *gateTimeoutFlag
	timeouts     map[planfile.GateKind]time.Duration

	// terminal reports whether a person is at a terminal (stdin and stdout);
	// tests replace it.
	terminal func() bool

	session *tui.Session
	// notices collects what client-go would print while the TUI runs.
	notices *noticeSink
}

func newTUICmd(g *globalOptions) *cobra.Command {
	cmd, _ := newTUICommand(g)
	return cmd
}

// newTUICommand builds the command and returns the options its flags fill.
func newTUICommand(g *globalOptions) (*cobra.Command, *tuiOptions) {
	o := &tuiOptions{g: g, notices: newNoticeSink()}
	o.terminal = func() bool { return tuiTerminal(g) }
	cmd := &cobra.Command{
		Use:   "tui",
		Short: "Interactive recovery session: see the truth, choose the target, apply step by step",
		Long: `tui opens an interactive session over the same inspect, plan and apply that the
other commands run:

  1 Overview  the cluster's claim beside what runs, operators by version, nodes by
              kubelet, findings with evidence (/ filters)
  2 Target    the chosen release and why (or why none is needed: the remedies),
              the alternatives with their rules, the refused remedies; a accepts
              a conditional-update risk or an admin's promise and re-plans
  3 Plan      the steps with level, component, action and gate; the selected
              step's manifest and its diff against the live object (d)
  4 Apply     the run, asking before every change: y apply, s skip, r retry,
              q abort (asks again and says in which state the CVO is left)

It reads the live cluster by default. --must-gather, --insights-archive, --from-file
and --snapshot open a read-only session (and so does --read-only): the keys that
change the cluster are removed. --plan opens a saved plan; --graph and --payload
compute one here; --resume reattaches to an interrupted run. Without any of them,
when the cluster needs no new release, the session makes the remediation plan as
'recover plan' does (relax a PDB and restore it, approve vouched CSRs, unpause a
pool; the admin's promises with --accept, or accepted on the Target screen; the
signature of a release the CVO cannot verify with --release-keyring and
--release-signature or --signature-store);
when it needs one, the Target screen says why and how to get a plan.

It needs a terminal. Scripts use 'recover apply --plan FILE --yes' instead; without
a terminal tui exits 2 and says so. After a run it exits with apply's codes (9 gate
failed, 10 aborted, 11 step failed, ...) and prints the commands to resume or to
restore the CVO. Keys and screens: docs/tui.md.`,
		Example: `  # The live cluster, a saved plan
  recover tui --plan plan.json --backup-record backup.yaml

  # Compute the plan in the session from a graph and a payload
  recover tui --graph graph.json --graph-data ./cincinnati-graph-data --payload ./release-4.4.4

  # Look at a must-gather (read-only); its remediation plan when no new release is needed
  recover tui --must-gather ./must-gather.local.123

  # The live cluster's remediation plan, accepting an admin's promise
  recover tui --accept admin-ack:ack-4.18-kube-1.32-api-removals-in-4.19 --backup-record backup.yaml

  # Reattach to an interrupted run
  recover tui --resume recover-apply-20200524T160251Z.journal`,
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
	o.source = addSourceFlags(cmd)
	o.inputs.addGraphFlags(cmd)
	o.inputs.addPayloadFlags(cmd)
	o.inputs.addGraphCacheFlag(cmd)
	fs := cmd.Flags()
	fs.StringVar(&o.planPath, "plan", "", "Open a saved plan (recover plan -o json). With --resume, the plan's new path if it moved.")
	fs.StringVar(&o.resume, "resume", "", "Reattach to the interrupted run recorded in this journal.")
	fs.StringVar(&o.journalPath, "journal", "", "Journal a run writes (default recover-apply-<time>.journal in the current directory).")
	fs.StringVar(&o.planOut, "plan-out", "", "Where a plan computed in the session is saved before it is applied (default recover-plan-<time>.json).")
	fs.BoolVar(&o.readOnly, "read-only", false, "Look only: remove every key that changes the cluster.")
	stringSliceVar(fs, &o.accept, "accept", "Conditional-update risk names (with --graph) and remedies that are the admin's promise ("+plan.AcceptUsage()+") to accept when computing the plan (comma-separated; the Target screen accepts more).")
	fs.StringVar(&o.backupRecord, "backup-record", "", "etcd backup record (path, sha256, etcdRevision, clusterVersion) a run checks and journals.")
	fs.BoolVar(&o.iHaveABackup, "i-have-a-backup", false, "Acknowledge that a current etcd backup exists (otherwise starting a run asks).")
	fs.BoolVar(&o.allowStale, "allow-stale", false, "Apply even if the cluster changed since the plan was made.")
	fs.StringVar(&o.forceReason, "force-reason", "", "Force the desired update when computing the plan, recording why (as recover plan --force-reason).")
	fs.BoolVar(&o.breakLock, "break-lock", false, "Take the apply lock even if another run holds it. Only when that run is certainly dead.")
	o.gateTimeouts = addGateTimeoutFlag(fs)
	o.policy = addPolicyFlag(cmd)
	o.signatures = addSignatureFlags(cmd)
	_ = cmd.MarkFlagFilename("plan", "json")
	_ = cmd.MarkFlagFilename("resume", "journal")
	_ = cmd.MarkFlagFilename("backup-record", "yaml", "yml", "json")
	return cmd, o
}

// tuiTerminal reports whether a person is at a terminal (stdin and stdout); tests
// replace it to get past the check.
var tuiTerminal = func(g *globalOptions) bool { return isTerminal(g.streams.In) && isTerminal(g.streams.Out) }

// errNoTerminal is the one line a non-interactive caller gets.
var errNoTerminal = usageError{msg: "recover tui needs a terminal (stdin and stdout): in scripts run 'recover apply --plan FILE --yes' (plan with 'recover plan -o json', look with 'recover inspect')"}

// Complete normalises the flags and parses the gate timeouts.
func (o *tuiOptions) Complete() error {
	o.inputs.trim()
	timeouts, err := o.gateTimeouts.parse()
	if err != nil {
		return err
	}
	o.timeouts = timeouts
	return nil
}

// Validate checks for a terminal first, then the source flags and the flags
// against each other, so that a bad value is refused before any cluster or
// archive is read. It changes nothing.
func (o *tuiOptions) Validate() error {
	if !o.terminal() {
		return errNoTerminal
	}
	if err := o.source.Validate(); err != nil {
		return err
	}
	computing := o.inputs.Graph != "" || o.inputs.Payload != ""
	switch {
	case o.source.snapshot == "-":
		return usageError{msg: "--snapshot - reads stdin, which the TUI needs for keys: save the snapshot to a file and pass its path"}
	case o.resume != "" && !o.source.Live():
		return usageError{msg: "--resume reattaches to a run on the live cluster: drop --must-gather/--insights-archive/--from-file/--snapshot"}
	case o.resume != "" && o.readOnly:
		return usageError{msg: "--resume continues a run, which --read-only forbids: drop one of them"}
	case o.resume != "" && o.journalPath != "":
		return usageError{msg: "--resume continues the journal it names; do not pass --journal with it"}
	case computing && (o.planPath != "" || o.resume != ""):
		return usageError{msg: "--graph/--payload compute a plan; --plan and --resume open a saved one: give one or the other"}
	case o.backupRecord != "" && o.iHaveABackup:
		return usageError{msg: "pass either --backup-record FILE or --i-have-a-backup, not both"}
	case (len(o.accept) > 0 || o.policy.path != "" || o.signatures.given()) && (o.planPath != "" || o.resume != ""):
		return usageError{msg: "--accept, --policy, --release-keyring, --release-signature and --signature-store are for computing a plan; --plan and --resume open a saved one: drop one or the other"}
	case o.forceReason != "" && !computing:
		return usageError{msg: "--force-reason is for planning a new release: pass it with --graph and --payload"}
	case o.gateTimeouts.given() && (!o.source.Live() || o.readOnly):
		return usageError{msg: "--gate-timeout is for a run on the live cluster: drop it, or drop --read-only and the offline source"}
	}
	if err := plan.ValidateAccept(o.accept); err != nil {
		return usageError{msg: err.Error()}
	}
	if err := o.signatures.validate(); err != nil {
		return err
	}
	if !computing {
		for _, a := range o.accept {
			if !plan.IsRemedyName(a) {
				return usageError{msg: "--accept " + a + " names a conditional-update risk, which only a plan to a new release accepts: pass it with --graph and --payload (without them --accept takes remedy names: " + plan.AcceptUsage() + ")"}
			}
		}
	}
	return o.inputs.validateGraphData()
}

// open reads the policy and builds the session Run shows.
func (o *tuiOptions) open(ctx context.Context) error {
	if err := o.policy.load(); err != nil {
		return err
	}
	s, err := o.buildSession(ctx)
	if err != nil {
		return err
	}
	o.session = s
	return nil
}

// buildSession reads what the session shows: the snapshot (from the chosen
// source), the plan (saved, resumed or computed), and on a live cluster the engine.
func (o *tuiOptions) buildSession(ctx context.Context) (*tui.Session, error) {
	s := &tui.Session{}
	live := o.source.Live()
	switch {
	case !live:
		s.ReadOnly, s.ReadOnlyReason = true, o.offlineKind()+" session"
	case o.readOnly:
		s.ReadOnly, s.ReadOnlyReason = true, "--read-only"
	}

	src, err := o.source.Source(o.g)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(o.g.streams.ErrOut, "recover tui: reading %s ...\n", o.describeSource())
	snap, err := src.Collect(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the cluster: %w", err)
	}
	s.Snapshot = snap
	s.Source = fmt.Sprintf("%s %s", snap.Source.Kind, snap.Source.Location)
	if live {
		s.Reload = src.Collect
	}

	if o.resume != "" {
		j, err := journal.Load(o.resume)
		if err != nil {
			return nil, err
		}
		s.Resume, s.Journal = true, j.State()
		if o.planPath == "" {
			o.planPath = j.Header.Plan.Path
		}
	}
	switch {
	case o.planPath != "":
		p, digest, err := planfile.Load(o.planPath)
		if err != nil {
			return nil, err
		}
		s.Plan, s.PlanPath, s.PlanDigest = p, o.planPath, digest
	case o.inputs.Graph != "" || o.inputs.Payload != "":
		if err := o.computePlan(ctx, s); err != nil {
			return nil, err
		}
	default:
		if err := o.planRemediation(ctx, s); err != nil {
			return nil, err
		}
	}

	if live {
		cfg, err := o.g.kube.ToRESTConfig()
		if err != nil {
			return nil, withExitCode(fmt.Errorf("loading the kubeconfig: %w", err), ExitCluster)
		}
		// Once the TUI owns the terminal, nothing may write to stderr under it.
		cfg = rest.CopyConfig(cfg)
		cfg.WarningHandler = o.notices
		s.Notices = o.notices.ch
		engine, err := apply.New(cfg)
		if err != nil {
			return nil, err
		}
		s.Engine = engine
		s.Options = apply.Options{
			Timeouts: o.timeouts, JournalPath: o.journalPath, AllowStale: o.allowStale, Fingerprint: liveFingerprint(cfg),
			BackupRecordFile: o.backupRecord, IHaveABackup: o.iHaveABackup, BreakLock: o.breakLock,
			Generator: currentVersion().Version,
		}
		if o.resume != "" {
			s.Options.JournalPath = o.resume
		} else if s.Options.JournalPath == "" {
			s.Options.JournalPath = fmt.Sprintf("recover-apply-%s.journal", time.Now().UTC().Format("20060102T150405Z"))
		}
		s.SavePlan = o.savePlan
	}
	return s, nil
}

func (o *tuiOptions) offlineKind() string {
	switch {
	case o.source.mustGather != "":
		return "must-gather"
	case o.source.insights != "":
		return "Insights archive"
	case len(o.source.files) > 0:
		return "oc dump"
	}
	return "snapshot"
}

func (o *tuiOptions) describeSource() string {
	switch {
	case o.source.mustGather != "":
		return "must-gather " + o.source.mustGather
	case o.source.insights != "":
		return "Insights archive " + o.source.insights
	case len(o.source.files) > 0:
		return strings.Join(o.source.files, ", ")
	case o.source.snapshot != "":
		return "snapshot " + o.source.snapshot
	}
	return "the live cluster"
}

// savePlan writes a plan computed in the session to --plan-out, or to a new
// recover-plan-<time>.json, through plan.Save, and reads it back as recover
// apply --plan would: the session applies what it saved.
func (o *tuiOptions) savePlan(p *planfile.Plan) (string, string, *planfile.Plan, error) {
	path := o.planOut
	if path == "" {
		path = fmt.Sprintf("recover-plan-%s.json", time.Now().UTC().Format("20060102T150405Z"))
	}
	digest, err := planfile.Save(path, p)
	if errors.Is(err, fs.ErrExist) || errors.Is(err, fs.ErrPermission) {
		err = fmt.Errorf("%w (pass --plan-out FILE)", err)
	}
	if err != nil {
		return "", "", nil, err
	}
	saved, readDigest, err := planfile.Load(path)
	if err != nil {
		return "", "", nil, fmt.Errorf("the saved plan does not read back: %w", err)
	}
	if readDigest != digest {
		return "", "", nil, fmt.Errorf("the saved plan %s changed on disk (digest %s, written %s)", path, readDigest, digest)
	}
	return path, digest, saved, nil
}

// Run runs the session until the user quits, then stops a run still in progress
// (its journal stays resumable), prints how the last run ended with the engine's
// next commands, and exits with apply's code for that outcome.
func (o *tuiOptions) Run(ctx context.Context) error {
	if err := o.open(ctx); err != nil {
		return err
	}
	// klog (client-go's logger) writes to stderr; under the TUI that would scroll
	// the screen and the renderer would paint over the wrong lines.
	klog.LogToStderr(false)
	klog.SetOutput(o.notices)
	defer func() {
		klog.SetOutput(o.g.streams.ErrOut)
		klog.LogToStderr(true)
	}()
	renderer := lipgloss.NewRenderer(o.g.streams.Out)
	m := tui.New(o.session, tui.Options{Styles: styles.New(renderer), Context: ctx})
	prog := tea.NewProgram(m, tea.WithAltScreen(), tea.WithContext(ctx),
		tea.WithInput(o.g.streams.In), tea.WithOutput(o.g.streams.Out))
	_, err := prog.Run()
	res := m.Close()
	if res != nil {
		printRunSummary(o.g.streams.Out, res)
	}
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return fmt.Errorf("the terminal UI failed: %w", err)
	}
	if res != nil && res.Err != nil {
		return withExitCode(res.Err, exitCodeForOutcome(res.Outcome, res.Err))
	}
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return withExitCode(ctx.Err(), ExitAborted)
	}
	return nil
}

// printRunSummary leaves how the run ended in the terminal's scrollback, with the
// commands to resume it or restore the CVO.
func printRunSummary(w io.Writer, r *apply.Result) {
	fmt.Fprintf(w, "recover tui: %s: %s\n", r.Outcome, r.Message)
	if len(r.Next) > 0 {
		fmt.Fprintln(w, "next:")
		for _, n := range r.Next {
			fmt.Fprintln(w, "  "+n)
		}
	}
}

// computePlan runs the planner on the snapshot and the graph and payload flags,
// and gives the session a Replan that runs it again with more risks accepted.
// When no target qualifies the session still opens: the Target screen shows the
// candidate table and offers to accept a risk.
func (o *tuiOptions) computePlan(ctx context.Context, s *tui.Session) error {
	snap := s.Snapshot
	src := plan.ResolveGraphSource(snap, o.inputs.Channel, o.inputs.Graph)
	o.inputs.Channel, o.inputs.Graph = src.Channel, src.Graph
	g, err := o.inputs.loadGraph(ctx)
	if err != nil {
		return fmt.Errorf("loading the update graph: %w", err)
	}
	s.Replan = o.planning().replanner(g)
	fmt.Fprintf(o.g.streams.ErrOut, "recover tui: planning with %s ...\n", o.inputs.Graph)
	p, err := s.Replan(ctx, snap, o.accept)
	var nte *plan.NoTargetError
	var rre *planfile.RemedyRefusedError
	var npe *plan.NoPlanError
	switch {
	case errors.As(err, &npe):
		// The decision makes no plan: the Target screen says why, in the
		// words recover plan prints.
		s.Outcome, s.PlanHint = &npe.Outcome, noPlanHint(npe.Outcome)
		return nil
	case errors.As(err, &nte):
		s.PlanErr, s.Accepted = err, o.accept
		if nte.Selection != nil {
			s.Candidates = nte.Selection.Candidates
		}
		return nil
	case errors.As(err, &rre):
		// What holds the cluster has only refused remedies: the Target screen
		// shows them, and a accepts an admin's promise among them.
		s.PlanErr, s.Accepted = err, o.accept
		return nil
	case err != nil:
		return err
	}
	s.Plan, s.Accepted, s.Outcome = p, o.accept, p.Outcome
	return nil
}

// noPlanHint is the Target screen's text when the decision makes no plan.
func noPlanHint(o planfile.Outcome) string {
	return "No plan: " + o.Why + " (outcome " + string(o.Kind) + ", rule " + o.Rule + "). To plan an update anyway: " + planHint
}

// planHint is how to get a plan when the session has none.
const planHint = "Open a saved plan with 'recover tui --plan plan.json', or compute one here with " +
	"'recover tui --graph GRAPH [--graph-data DIR] --payload DIR|PULLSPEC' (the same flags as 'recover plan')."

// planRemediation is the session without --graph, --payload, --plan or
// --resume, as 'recover plan' decides it: when the snapshot needs no new release
// and shows a wedge the remedies answer, the planner makes the remediation plan
// (no graph) and Replan makes it again with more promises accepted; when a new
// release is needed the Target screen says why and how to get a plan. A
// RemedyRefusedError opens the session too: the Target screen shows the
// refusals.
func (o *tuiOptions) planRemediation(ctx context.Context, s *tui.Session) error {
	snap := s.Snapshot
	ps := o.planning()
	d, err := ps.decide(ctx, snap, o.accept)
	if err != nil {
		return err
	}
	s.Outcome = &d.Outcome
	switch k := d.Outcome.Kind; {
	case k.NeedsRelease():
		s.PlanHint = "A new release is needed (outcome " + string(k) + ", rule " + d.Outcome.Rule + "): " + d.Outcome.Why + " " + planHint
		return nil
	case !k.Makes() && k != planfile.OutcomeRefused:
		s.PlanHint = noPlanHint(d.Outcome)
		return nil
	}
	s.Replan = ps.replanner(nil)
	fmt.Fprintln(o.g.streams.ErrOut, "recover tui: no new release is needed: planning the remediation only (the CVO resumes its update) ...")
	p, err := ps.make(ctx, snap, nil, o.accept, d)
	var rre *planfile.RemedyRefusedError
	switch {
	case errors.As(err, &rre):
		s.PlanErr, s.Accepted = err, o.accept
		return nil
	case err != nil:
		return err
	}
	s.Plan, s.Accepted, s.Outcome = p, o.accept, p.Outcome
	return nil
}

// session is the planning session of these flags (plansession.go), the one
// recover plan uses.
func (o *tuiOptions) planning() *planSession {
	return &planSession{inputs: &o.inputs, policy: o.policy, signatures: o.signatures, forceReason: o.forceReason}
}

// noticeSink takes what client-go would write to stderr while the TUI owns the
// terminal (API server warnings, klog lines) and hands it to the session's log
// instead; a line that would overflow the buffer is dropped, never blocking the
// caller.
type noticeSink struct {
	ch   chan string
	mu   sync.Mutex
	seen map[string]bool
}

func newNoticeSink() *noticeSink {
	return &noticeSink{ch: make(chan string, 256), seen: map[string]bool{}}
}

func (n *noticeSink) send(line string) {
	line = strings.TrimSpace(line)
	n.mu.Lock()
	defer n.mu.Unlock()
	if line == "" || n.seen[line] {
		return
	}
	n.seen[line] = true
	select {
	case n.ch <- line:
	default:
	}
}

// HandleWarningHeader implements rest.WarningHandler: one notice per distinct warning.
func (n *noticeSink) HandleWarningHeader(code int, _ string, text string) {
	if code == 299 && text != "" {
		n.send("API warning: " + text)
	}
}

// Write implements io.Writer for klog's output.
func (n *noticeSink) Write(p []byte) (int, error) {
	for _, l := range strings.Split(string(p), "\n") {
		n.send(l)
	}
	return len(p), nil
}
