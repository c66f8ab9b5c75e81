package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/tui/applyview"
	"github.com/openshift-recover/recover/tui/common"
	"github.com/openshift-recover/recover/tui/dialog"
	"github.com/openshift-recover/recover/tui/header"
	"github.com/openshift-recover/recover/tui/keymap"
	"github.com/openshift-recover/recover/tui/overview"
	"github.com/openshift-recover/recover/tui/state"
	"github.com/openshift-recover/recover/tui/steps"
	"github.com/openshift-recover/recover/tui/styles"
	"github.com/openshift-recover/recover/tui/target"
	"github.com/openshift-recover/recover/tui/timeline"
)

// The screens, in tab order.
const (
	ScreenOverview = iota
	ScreenTarget
	ScreenPlan
	ScreenApply
	ScreenTimeline
)

var screenNames = []string{"Overview", "Target", "Plan", "Apply", "Timeline"}

// Options tune a Model beyond its Session.
type Options struct {
	// Styles are the styles to render with (default: the terminal's colour
	// profile, Ascii when NO_COLOR is set).
	Styles *styles.Styles
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Context is the parent of every run, preview and re-plan (default
	// context.Background()). Cancelling it aborts a run; the journal stays
	// resumable.
	Context context.Context
	// Keys is the keymap (default keymap.Default()): every screen, footer, help
	// and sentence that names a key names its binding here. The model enables,
	// disables and re-describes its bindings; a read-only session clears its
	// dangerous ones.
	Keys *keymap.KeyMap
}

// Model is the TUI: the header, the four screens, the footer help, the ? overlay
// and the open dialog. It holds no recovery logic: it shows the Session's
// snapshot and plan and the engine's events, and sends the engine the user's
// decisions.
type Model struct {
	c       *common.Common
	ctx     context.Context
	session *Session
	// state is the run state (phase, question, result, CVO, step statuses):
	// fed by the engine's events, read by the screens.
	state *state.Run

	header   *header.Model
	overview *overview.Model
	target   *target.Model
	steps    *steps.Model
	apply    *applyview.Model
	timeline *timeline.Model
	help     help.Model

	active   int
	showHelp bool
	dialog   *dialog.Model
	flash    string

	run     *engineRun
	runs    int
	ticking bool
	// reloading is set while the cluster is being re-read.
	reloading bool
	// temporary are the temporary changes in place (temporary.go).
	temporary []temporary
	// journal is the journal the next start resumes ("" starts a new run).
	journal string
	backup  bool
	width   int
	height  int
}

// New builds the TUI's model for a session.
func New(s *Session, o Options) *Model {
	if o.Styles == nil {
		o.Styles = styles.New(nil)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Context == nil {
		o.Context = context.Background()
	}
	keys := o.Keys
	if keys == nil {
		keys = keymap.Default()
	}
	if s.ReadOnly {
		keys.ClearDanger()
	}
	c := &common.Common{Styles: o.Styles, Keys: keys, Now: o.Now}
	sub := func() *common.Common { cc := *c; return &cc }
	m := &Model{c: c, ctx: o.Context, session: s, state: state.New(s.Snapshot)}
	m.header = &header.Model{Common: sub(), Tabs: screenNames, Source: s.Source, ReadOnly: s.readOnlyReason(), Run: m.state}
	m.overview = overview.New(sub())
	m.target = target.New(sub())
	m.steps = steps.New(sub(), m.state)
	m.apply = applyview.New(sub(), m.state)
	m.timeline = timeline.New(sub())
	m.help = help.New()
	m.help.Styles = o.Styles.Help
	m.help.ShortSeparator = " · "

	m.overview.SetSnapshot(s.Snapshot)
	m.timeline.SetSnapshot(s.Snapshot)
	m.target.SetHint(s.PlanHint)
	switch {
	case s.Engine == nil:
		m.steps.SetDiffAvailable(false, "no diff: this session reads "+common.OrDash(s.Source)+", not a live cluster")
	default:
		m.steps.SetDiffAvailable(true, "")
	}
	m.showClaim(s.Snapshot)
	m.setPlan(s.Plan, s.PlanErr)
	m.backup = s.Options.BackupRecordFile != "" || s.Options.IHaveABackup
	if s.Resume {
		m.journal = s.Options.JournalPath
		m.state.FromJournal(s.Journal)
		m.steps.StatusChanged()
		m.temporaryFromJournal(s.Journal)
		m.active = ScreenApply
	}
	m.apply.Info = m.applyInfo()
	m.syncKeys()
	return m
}

// setPlan shows a plan on every screen.
func (m *Model) setPlan(p *planfile.Plan, err error) {
	m.target.SetPlan(p, err)
	if p == nil {
		m.target.SetCandidates(m.session.Candidates)
	}
	m.target.SetReplan(m.session.Replan != nil)
	m.state.ResetSteps()
	m.steps.SetPlan(p)
	m.apply.Stage = m.steps.Stages().Line()
	m.header.Target, m.header.Remediation = "", false
	if p != nil {
		m.header.Target = p.Target.Version
		m.header.Remediation = p.Mode == planfile.ModeRemediation
		m.overview.SetTarget(p.Target.Version)
	}
}

// temporaryChanges counts the plan's temporary changes (steps a revert step undoes).
func temporaryChanges(p *planfile.Plan) int {
	n := 0
	for _, s := range p.Steps {
		if s.RevertedBy != "" {
			n++
		}
	}
	return n
}

// applyInfo is what the Apply screen says before a run.
func (m *Model) applyInfo() applyview.Info {
	s := m.session
	info := applyview.Info{ReadOnly: s.readOnlyReason(), Journal: s.Options.JournalPath}
	if s.Plan != nil {
		info.Target, info.Steps = s.Plan.Target.Version, len(s.Plan.Steps)
		info.Remediation = s.Plan.Mode == planfile.ModeRemediation
	}
	if m.journal != "" {
		info.Resume, info.Journal = true, m.journal
		info.ResumeState = resumeState(s.Journal, m.state.Result)
	}
	o := s.Options
	switch {
	case info.Resume:
		info.Backup = "recorded in the journal"
	case o.BackupRecordFile != "":
		info.Backup = "record " + o.BackupRecordFile + " (checked by preflight)"
	case o.IHaveABackup:
		info.Backup = "acknowledged with --i-have-a-backup (not verified)"
	default:
		info.Backup = "none given: starting asks you to acknowledge one (or pass --backup-record FILE)"
	}
	if s.Engine == nil && info.ReadOnly == "" {
		info.ReadOnly = "no live cluster"
	}
	return info
}

func resumeState(j *journal.State, res *apply.Result) string {
	switch {
	case res != nil:
		return fmt.Sprintf("%s at %s; %d of %d steps done in this session", res.Outcome, common.OrDash(res.StoppedAt), res.StepsDone, res.StepsTotal)
	case j == nil:
		return "the journal's state is unknown"
	}
	done := 0
	for _, st := range j.Steps {
		if st.Status == journal.StepDone || st.Status == journal.StepSkipped {
			done++
		}
	}
	s := fmt.Sprintf("%d step(s) done or skipped", done)
	if j.LastStop != nil {
		s += fmt.Sprintf("; the last run stopped (%s): %s", j.LastStop.Reason, j.LastStop.Message)
	}
	if j.InFlight != "" {
		s += "; step " + j.InFlight + " was in flight and is re-checked against the cluster"
	}
	if j.CVO.Disabled {
		s += "; the CVO is disabled"
	}
	return s
}

// Init sets the window title and starts listening for notices; the session
// itself is loaded before the program starts.
func (m *Model) Init() tea.Cmd { return tea.Batch(tea.SetWindowTitle("recover"), m.listen()) }

// noticeMsg is one line from Session.Notices.
type noticeMsg string

// listen waits for the next notice.
func (m *Model) listen() tea.Cmd {
	ch := m.session.Notices
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		n, ok := <-ch
		if !ok {
			return nil
		}
		return noticeMsg(n)
	}
}

// Result is the last run's result, nil when no run ended.
func (m *Model) Result() *apply.Result { return m.state.Result }

// Active returns the shown screen.
func (m *Model) Active() int { return m.active }

// Close stops a run still in progress (its context is cancelled: the engine
// journals the stop and releases the lock) and waits for the engine to end. The
// command calls it after the program returned, so a killed program leaves a
// resumable journal.
func (m *Model) Close() *apply.Result {
	if m.run != nil && !m.run.done {
		if res := m.run.drain(); res != nil {
			m.state.Result = res
		}
		m.run.done = true
	}
	return m.state.Result
}

func (m *Model) running() bool { return m.state.Running() }

func (m *Model) canStart() bool {
	s := m.session
	if s.ReadOnly || s.Engine == nil || s.Plan == nil || m.running() {
		return false
	}
	if m.state.Phase == state.Finished {
		// Resume a resumable journal; start afresh after a run that stopped
		// before it journaled anything (preflight refused, the lock was held).
		res := m.state.Result
		return m.journal != "" || (res != nil && res.Journal == "" && res.Outcome != apply.OutcomeCompleted)
	}
	return true
}

// syncKeys enables the bindings that make sense now; the help follows.
func (m *Model) syncKeys() {
	k := m.c.Keys
	running := m.running()
	k.Enable(&k.Quit, !running)
	k.Enable(&k.Abort, running)
	k.Enable(&k.Reload, m.session.Reload != nil)
	req := m.state.Request
	onApply := m.active == ScreenApply
	k.Enable(&k.Confirm, onApply && req != nil && req.Allows(apply.Proceed))
	k.Enable(&k.Skip, onApply && req != nil && req.Allows(apply.Skip))
	k.Enable(&k.Retry, onApply && req != nil && req.Allows(apply.Retry))
	k.Enable(&k.Start, onApply && m.canStart())
	if m.journal != "" {
		keymap.Describe(&k.Start, "resume run")
	} else {
		keymap.Describe(&k.Start, "start apply")
	}
	m.target.SetReplan(m.session.Replan != nil && m.state.Phase == state.Idle)
	m.header.Active = m.active
	m.header.Notice = ""
	if req != nil && !onApply {
		m.header.Notice = "decision pending: " + keymap.Name(k.Apply)
	}
}

func (m *Model) screen() common.Component {
	switch m.active {
	case ScreenTarget:
		return m.target
	case ScreenPlan:
		return m.steps
	case ScreenApply:
		return m.apply
	case ScreenTimeline:
		return m.timeline
	}
	return m.overview
}

// resize lays the screens out: each gets what is left under the header and above
// the footer.
func (m *Model) resize(w, h int) {
	m.width, m.height = w, h
	m.c.Width, m.c.Height = w, h
	m.header.Width = w
	m.help.Width = w
	bh := max(1, h-header.Height-1)
	m.overview.SetSize(w, bh)
	m.target.SetSize(w, bh)
	m.steps.SetSize(w, bh)
	m.apply.SetSize(w, bh)
	m.timeline.SetSize(w, bh)
	if m.dialog != nil {
		m.dialog.Width, m.dialog.Height = w, h
	}
}

// Update is the TUI's one entry point for messages.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	m.syncKeys()
	return m, tea.Batch(cmd, m.tick())
}

// tick starts the spinner when something is busy and it is not yet ticking.
func (m *Model) tick() tea.Cmd {
	if m.ticking || !m.state.Busy() {
		return nil
	}
	m.ticking = true
	return m.apply.SpinnerStart()
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return nil
	case spinner.TickMsg:
		if !m.state.Busy() {
			m.ticking = false
			return nil
		}
		return m.apply.SpinnerTick(msg)
	case eventMsg:
		return m.handleEvent(msg)
	case runEndedMsg:
		if m.run != nil && m.run.id == msg.run {
			m.run.done = true
		}
		return nil
	case previewMsg:
		m.steps.SetDiff(msg.step, msg.diff)
		return nil
	case reloadMsg:
		m.handleReload(msg)
		return nil
	case noticeMsg:
		m.apply.Notice(string(msg))
		return m.listen()
	case steps.DiffRequestMsg:
		if m.session.Engine == nil || m.session.Plan == nil {
			return nil
		}
		return preview(m.ctx, m.session.Engine, m.session.Plan, msg.StepID)
	case target.AcceptRiskMsg:
		m.openAcceptRisk(msg.Candidate)
		return nil
	case target.AcceptPromiseMsg:
		m.openAcceptPromise(msg.Refused)
		return nil
	case replanMsg:
		return m.handleReplan(msg)
	case savedMsg:
		return m.handleSaved(msg)
	case dialog.AnswerMsg:
		m.dialog = nil
		return m.handleAnswer(msg)
	case tea.KeyMsg:
		return m.handleKey(msg)
	}
	return nil
}

func (m *Model) handleKey(k tea.KeyMsg) tea.Cmd {
	keys := m.c.Keys
	m.flash = ""
	if m.dialog != nil {
		return m.dialog.Update(k)
	}
	if m.showHelp {
		if key.Matches(k, keys.Help, keys.Back, keys.Quit) {
			m.showHelp = false
		}
		return nil
	}
	if c, ok := m.screen().(interface{ Capturing() bool }); ok && c.Capturing() {
		return m.updateScreen(k)
	}
	switch {
	case key.Matches(k, keys.Abort):
		m.openAbort()
		return nil
	case key.Matches(k, keys.Quit):
		return tea.Quit
	case key.Matches(k, keys.Help):
		m.showHelp = true
		return nil
	case key.Matches(k, keys.Reload):
		if m.session.Reload == nil || m.reloading {
			return nil
		}
		m.reloading = true
		m.flash = "re-reading the cluster ..."
		reload, ctx := m.session.Reload, m.ctx
		return func() tea.Msg {
			s, err := reload(ctx)
			return reloadMsg{snap: s, err: err}
		}
	case key.Matches(k, keys.NextScreen):
		m.active = (m.active + 1) % len(screenNames)
		return nil
	case key.Matches(k, keys.PrevScreen):
		m.active = (m.active + len(screenNames) - 1) % len(screenNames)
		return nil
	}
	for screen, b := range keys.Tabs() {
		if key.Matches(k, b) {
			m.active = screen
			return nil
		}
	}
	if m.active == ScreenApply {
		switch {
		case key.Matches(k, keys.Start):
			m.openStart()
			return nil
		case key.Matches(k, keys.Confirm):
			return m.answer(apply.Proceed)
		case key.Matches(k, keys.Skip):
			return m.answer(apply.Skip)
		case key.Matches(k, keys.Retry):
			return m.answer(apply.Retry)
		}
	}
	return m.updateScreen(k)
}

func (m *Model) updateScreen(k tea.KeyMsg) tea.Cmd { return m.screen().Update(k) }

// answer sends the engine the user's decision on its pending question.
func (m *Model) answer(d apply.Decision) tea.Cmd {
	req := m.state.Request
	if m.run == nil || req == nil || !req.Allows(d) {
		return nil
	}
	m.state.Answered(d)
	m.apply.Answered(req, d)
	m.steps.StatusChanged()
	return m.run.answer(d)
}

// newDialog opens a dialog at the screen's size.
func (m *Model) newDialog(kind dialog.Kind, title string, body []string, yes, no string, data any) {
	cc := *m.c
	m.dialog = &dialog.Model{Common: &cc, Kind: kind, Title: title, Body: body, YesText: yes, NoText: no, Data: data}
}

// openStart asks before a run starts, saying what it will do and, when no backup
// was given, that yes acknowledges one.
func (m *Model) openStart() {
	if !m.canStart() {
		return
	}
	s := m.session
	p := s.Plan
	verb, title := "Start", "Start applying the plan?"
	if m.journal != "" {
		verb, title = "Resume", "Resume the interrupted run?"
	}
	what := "the plan to " + p.Target.Version
	if p.Mode == planfile.ModeRemediation {
		what = "the remediation plan (no new release)"
	}
	body := []string{fmt.Sprintf("%s applying %s (%d steps). The engine first checks permissions, that the plan is not stale and the backup, and takes the apply lock. The CVO is disabled at its step and restored at the end; every change is journaled first and asked for (%s apply, %s skip, %s abort).", verb, what, len(p.Steps),
		keymap.Name(m.c.Keys.Confirm), keymap.Name(m.c.Keys.Skip), keymap.Name(m.c.Keys.Abort))}
	if n := temporaryChanges(p); n > 0 {
		body = append(body, fmt.Sprintf("%d step(s) make a temporary change (a relaxed PodDisruptionBudget): its pre-image is journaled before the change, its revert step writes it back, and if the run stops before that step the engine writes it back itself.", n))
	}
	if m.journal != "" {
		body = append(body, "Journal: "+m.journal+" ("+resumeState(s.Journal, m.state.Result)+").")
	} else if s.PlanPath == "" {
		body = append(body, "The plan was computed in this session: it is saved to a file first, because the journal refers to it.")
	}
	ack := false
	if m.journal == "" && !m.backup {
		ack = true
		body = append(body, "No etcd backup record was given. Answering "+keymap.Name(m.c.Keys.Yes)+" also acknowledges that a current etcd backup exists (journaled as unverified, as --i-have-a-backup does). If unsure, answer "+keymap.Name(m.c.Keys.No)+" and take one first (cluster-backup.sh on a control-plane node).")
	}
	yes := strings.ToLower(verb) + " applying"
	if ack {
		yes += " (I have a backup)"
	}
	m.newDialog(dialog.Start, title, body, yes, "cancel", ack)
}

// openAbort asks before aborting, saying in which state the CVO is left.
func (m *Model) openAbort() {
	if !m.running() {
		return
	}
	body := []string{"The run stops at the current step; the journal stays resumable."}
	cvo := m.state.CVO
	switch cvo.State {
	case state.CVODisabled, state.CVOScalingDown:
		orig := ""
		if cvo.Original != nil {
			orig = fmt.Sprintf(" (it ran %d replica(s) before)", *cvo.Original)
		}
		body = append(body, "The cluster-version operator stays DISABLED: scaled to 0 by this run"+orig+". Nothing reconciles the cluster until you resume the run or restore the CVO.")
	case state.CVORestoring, state.CVORestored:
		body = append(body, "The cluster-version operator was already handed back and keeps running.")
	default:
		body = append(body, "The cluster-version operator has not been touched by this run: it keeps its state ("+cvo.Text()+").")
	}
	for _, t := range m.temporary {
		if t.failed == "" {
			body = append(body, "Temporary change in place: "+t.text+". The engine writes its journaled pre-image back before it stops; a resume makes the change again.")
		}
	}
	body = append(body, "After the abort this screen shows the engine's exact commands to resume the run or to restore the CVO; they are printed again when you quit.")
	m.newDialog(dialog.Abort, "Abort the run?", body, "abort the run", "keep running", nil)
}

// openAcceptRisk asks before re-planning with a named risk accepted.
func (m *Model) openAcceptRisk(c planfile.Candidate) {
	if m.session.Replan == nil || m.state.Phase != state.Idle {
		return
	}
	body := []string{fmt.Sprintf("Release %s is only reachable over an update edge with conditional-update risks. Accepting a risk means you have read it and judged that it does not apply to this cluster, or that you accept its consequences:", c.Version)}
	var names []string
	for _, r := range c.Risks {
		names = append(names, r.Name)
		line := r.Name + ": " + r.Message
		if r.URL != "" {
			line += " (" + r.URL + ")"
		}
		body = append(body, line)
	}
	body = append(body, "The planner then re-plans with --accept "+strings.Join(names, ",")+"; the new plan records the accepted risks.")
	m.newDialog(dialog.AcceptRisk, "Accept "+strings.Join(names, ", ")+"?", body, "accept and re-plan", "cancel", names)
}

func (m *Model) handleAnswer(a dialog.AnswerMsg) tea.Cmd {
	if !a.Yes {
		return nil
	}
	switch a.Kind {
	case dialog.Start:
		if !m.canStart() {
			return nil
		}
		if ack, _ := a.Data.(bool); ack {
			m.backup = true
			m.session.Options.IHaveABackup = true
		}
		m.state.SetStarting()
		m.apply.SetStarting()
		m.active = ScreenApply
		if m.journal == "" && m.session.PlanPath == "" {
			if m.session.SavePlan == nil {
				m.startFailed(fmt.Errorf("this plan was computed in the session and cannot be saved here: save it with 'recover plan -o json > plan.json' and run 'recover tui --plan plan.json'"))
				return nil
			}
			return savePlan(m.session.SavePlan, m.session.Plan)
		}
		return m.start()
	case dialog.Abort:
		if !m.running() {
			return nil
		}
		if req := m.state.Request; req != nil && req.Allows(apply.Abort) && m.run != nil {
			m.state.Answered(apply.Abort)
			m.apply.Answered(req, apply.Abort)
			return m.run.answer(apply.Abort)
		}
		if m.run != nil && !m.run.done {
			m.run.cancel()
			return nil
		}
		// Still saving the plan: the engine has not started; do not start it.
		m.startFailed(errors.New("start cancelled before the engine ran; nothing was changed"))
		return nil
	case dialog.AcceptRisk, dialog.AcceptPromise:
		names, _ := a.Data.([]string)
		if m.session.Replan == nil || m.state.Phase != state.Idle {
			return nil
		}
		m.target.SetBusy("accepting " + strings.Join(names, ", "))
		return replan(m.ctx, m.session.Replan, m.session.Snapshot, m.withAccepted(names))
	}
	return nil
}

func (m *Model) handleSaved(msg savedMsg) tea.Cmd {
	if m.state.Phase != state.Starting {
		return nil // the start was cancelled meanwhile
	}
	if msg.err != nil {
		m.startFailed(fmt.Errorf("saving the plan before applying it: %w", msg.err))
		return nil
	}
	m.session.PlanPath, m.session.PlanDigest = msg.path, msg.digest
	if msg.plan != nil {
		m.session.Plan = msg.plan // apply what was saved and read back
	}
	m.flash = "plan saved to " + msg.path
	return m.start()
}

// start starts (or resumes) the engine.
func (m *Model) start() tea.Cmd {
	s := m.session
	opts := s.Options
	opts.PlanPath, opts.PlanDigest = s.PlanPath, s.PlanDigest
	if m.journal != "" {
		opts.Resume, opts.JournalPath = true, m.journal
	}
	m.runs++
	m.run = startRun(m.ctx, m.runs, s.Engine, s.Plan, opts)
	return m.run.next()
}

func (m *Model) handleReplan(msg replanMsg) tea.Cmd {
	m.target.SetBusy("")
	if msg.err != nil {
		err := fmt.Errorf("re-planning with --accept %s failed: %w", strings.Join(msg.accepted, ","), msg.err)
		if c, ok := rankedCandidates(msg.err); ok && m.session.Plan == nil {
			m.session.Candidates = c
			m.target.SetCandidates(c)
		}
		m.target.SetPlan(m.session.Plan, err)
		m.flash = err.Error()
		return nil
	}
	s := m.session
	s.Plan, s.PlanErr, s.PlanPath, s.PlanDigest, s.Accepted, s.Candidates = msg.plan, nil, "", "", msg.accepted, nil
	m.setPlan(msg.plan, nil)
	m.apply.Info = m.applyInfo()
	m.flash = "re-planned: target " + msg.plan.Target.Version
	if msg.plan.Mode == planfile.ModeRemediation {
		m.flash = fmt.Sprintf("re-planned: remediation only, %d remediation(s), accepting %s", len(msg.plan.Remediations), strings.Join(msg.accepted, ", "))
	}
	return nil
}

// reloadMsg carries a re-read snapshot.
type reloadMsg struct {
	snap *inspect.Snapshot
	err  error
}

// handleReload shows the re-read cluster; the run state decides what the
// CVO's state becomes (state.Run.Reloaded).
func (m *Model) handleReload(msg reloadMsg) {
	m.reloading = false
	if msg.err != nil {
		m.flash = "re-reading the cluster failed: " + msg.err.Error()
		return
	}
	m.session.Snapshot = msg.snap
	m.overview.SetSnapshot(msg.snap)
	m.timeline.SetSnapshot(msg.snap)
	m.showClaim(msg.snap)
	m.flash = "re-read the cluster at " + msg.snap.Source.CollectedAt.Format("15:04:05")
	m.state.Reloaded(msg.snap)
}

// showClaim shows ClusterVersion's claim ("4.4.3 Completed") as inspect
// summarized it; a snapshot without one leaves the last claim shown.
func (m *Model) showClaim(s *inspect.Snapshot) {
	if s != nil && s.Summary != nil && s.Summary.DesiredVersion != "" {
		m.header.Claimed = strings.TrimSpace(s.Summary.DesiredVersion + " " + s.Summary.HistoryState)
	}
}

// handleEvent shows one engine event on every screen it concerns.
func (m *Model) handleEvent(msg eventMsg) tea.Cmd {
	if m.run == nil || msg.run != m.run.id {
		return nil
	}
	ev := msg.ev
	m.state.Apply(ev)
	m.apply.HandleEvent(ev)
	m.temporaryFromEvent(ev)
	m.steps.StatusChanged()
	m.apply.Stage = m.steps.Stages().Line()
	if ev.Step != nil {
		if ev.Type == apply.EventStepStarted && m.active != ScreenPlan {
			m.steps.Select(ev.Step.ID)
		}
		if ev.Type == apply.EventDiff && ev.Change != nil {
			// The engine prepared the change against the live object: the Plan
			// screen shows the same diff without a second dry run.
			m.steps.SetDiff(ev.Step.ID, &steps.Diff{Change: ev.Change})
		}
	}
	if ev.Type == apply.EventDone && ev.Result != nil {
		r := ev.Result
		m.temporaryFromResult(r)
		m.journal = ""
		if r.Journal != "" && r.Outcome.Resumable() {
			m.journal = r.Journal
		}
		m.apply.Info = m.applyInfo()
	}
	return m.run.next()
}

// startFailed shows a start that failed before the engine ran.
func (m *Model) startFailed(err error) {
	m.state.SetStartError(err)
	m.apply.SetStartError(err)
}

// View renders the whole screen.
func (m *Model) View() string {
	if m.width == 0 {
		return "loading ..."
	}
	bh := max(1, m.height-header.Height-1)
	body := m.screen().View()
	if m.showHelp {
		body = m.helpView(bh)
	}
	frame := m.header.View() + "\n" + common.Fit(body, m.width, bh) + "\n" + m.footer()
	if m.dialog != nil {
		frame = dialog.Overlay(frame, m.dialog.View(), m.width, m.height)
	}
	return frame
}

func (m *Model) footer() string {
	if m.flash != "" {
		return common.Pad(m.c.Styles.Pending.Render(m.flash), m.width)
	}
	bindings := append(m.screen().ShortHelp(), m.c.Keys.Global()...)
	return common.Pad(m.help.ShortHelpView(bindings), m.width)
}

// helpView is the ? overlay: every enabled key, grouped.
func (m *Model) helpView(height int) string {
	k := m.c.Keys
	groups := m.screen().FullHelp()
	groups = append(groups, k.Screens(), []key.Binding{k.Help, k.Reload, k.Quit, k.Abort})
	title := m.c.Styles.Section.Render("KEYS") + m.c.Styles.Dim.Render(" ("+screenNames[m.active]+" screen; "+keymap.Name(k.Help)+" or "+keymap.Name(k.Back)+" closes)")
	if k.ReadOnly() {
		title += "  " + m.c.Styles.Badge.Render(" READ-ONLY ") + m.c.Styles.Dim.Render(" no key changes the cluster")
	}
	return common.Fit(title+"\n\n"+m.help.FullHelpView(groups), m.width, height)
}

// State is what the session is doing: for tests that drive the program, and for
// programs that embed the TUI.
type State struct {
	// Screen is the shown screen (ScreenOverview ...).
	Screen int
	// Phase is the run's phase; Pending the engine's open question.
	Phase   state.Phase
	Pending *apply.Request
	// Dialog is the open dialog's kind, "" when none.
	Dialog dialog.Kind
	// CVO is the CVO's state in words, as the header shows it.
	CVO string
	// Result is the last run's result.
	Result *apply.Result
	// Target is the plan's target version, "" without a plan (and for a
	// remediation plan, which has none).
	Target string
	// Temporary are the temporary changes in place, as the header names them
	// ("PodDisruptionBudget ci/deck relaxed by step 002 — restored by step 004").
	Temporary []string
}

// State returns the session's state: from the run state, the session's plan and
// the temporary changes it follows, never from what a screen shows.
func (m *Model) State() State {
	st := State{Screen: m.active, Phase: m.state.Phase, Pending: m.state.Request, CVO: m.state.CVO.Text(), Result: m.state.Result,
		Temporary: m.temporaryTexts()}
	if p := m.session.Plan; p != nil {
		st.Target = p.Target.Version
	}
	if m.dialog != nil {
		st.Dialog = m.dialog.Kind
	}
	return st
}

// rankedRefusal is the planner's refusal for want of a safe target
// (plan.NoTargetError), as the TUI reads it: the candidates it ranked. An
// interface, so that the TUI imports the plan document, not the planner.
type rankedRefusal interface {
	error
	RankedCandidates() ([]planfile.Candidate, bool)
}

// rankedCandidates are the candidates of a refusal for want of a safe target in
// err's chain; ok is false for any other error.
func rankedCandidates(err error) (c []planfile.Candidate, ok bool) {
	var r rankedRefusal
	if errors.As(err, &r) {
		return r.RankedCandidates()
	}
	return nil, false
}
