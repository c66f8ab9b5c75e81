package applyview

import (
	"fmt"
	"strings"
	"time"

	"github.com/openshift-recover/recover/plan/planfile"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/progress"
	"github.com/charmbracelet/bubbles/spinner"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/internal/nextcmd"
	"github.com/openshift-recover/recover/tui/common"
	"github.com/openshift-recover/recover/tui/keymap"
	"github.com/openshift-recover/recover/tui/state"
)

// maxLog bounds the log pane's lines.
const maxLog = 2000

// Info is what the screen says before a run: the plan, the journal, the backup.
type Info struct {
	// Target and Steps describe the plan; Steps 0 means there is no plan.
	// Remediation is set for a remediation plan (no new release, no Target).
	Target      string
	Steps       int
	Remediation bool
	// Journal is the journal path the run writes or resumes.
	Journal string
	// Resume is set when the journal is an interrupted run to continue;
	// ResumeState says where it stopped.
	Resume      bool
	ResumeState string
	// Backup says how the etcd backup is accounted for.
	Backup string
	// ReadOnly is why nothing can be applied ("" when it can).
	ReadOnly string
}

// Temporary is a temporary change in place (a relaxed PodDisruptionBudget): the
// screen shows it for as long as it lasts.
type Temporary struct {
	// Text is "PodDisruptionBudget ci/deck relaxed by step 005 — restored by step 007".
	Text string
	// Failed is why the engine could not revert it when the run stopped;
	// Command restores it by hand.
	Failed, Command string
}

// Model is the Apply screen.
type Model struct {
	*common.Common
	Info Info
	// Stage is the current stage of a staged plan in one line ("" for a
	// one-hop plan): the stage view's (tui/stages), which the session sets.
	Stage string
	// temporary are the temporary changes in place.
	temporary []Temporary

	// run is the session's run state (phase, question, result), read only.
	run     *state.Run
	started time.Time
	step    *apply.StepInfo
	change  *apply.ChangeInfo
	applied string
	gate    *apply.GateInfo
	gateAt  time.Time
	gateEnd string

	log      []string
	logged   map[string]bool
	vp       viewport.Model
	follow   bool
	spinner  spinner.Model
	progress progress.Model
}

// New returns the Apply screen over the session's run state.
func New(c *common.Common, run *state.Run) *Model {
	m := &Model{Common: c, run: run, vp: viewport.New(0, 0), follow: true, logged: map[string]bool{}}
	m.vp.KeyMap = viewport.KeyMap{}
	m.spinner = spinner.New(spinner.WithSpinner(spinner.Line), spinner.WithStyle(c.Styles.Pending))
	m.progress = progress.New(progress.WithoutPercentage(), progress.WithSolidFill("11"),
		progress.WithColorProfile(c.Styles.Renderer.ColorProfile()), progress.WithFillCharacters('#', '.'))
	return m
}

// SetStarting shows that the start was confirmed (the run state says so).
func (m *Model) SetStarting() { m.refresh() }

// SetStartError logs a start that failed before the engine ran (the plan could
// not be saved); the run state holds the error the screen shows.
func (m *Model) SetStartError(err error) {
	m.addLog("error: " + err.Error())
	m.refresh()
}

// Answered logs the user's answer to the engine's question req.
func (m *Model) Answered(req *apply.Request, d apply.Decision) {
	if req != nil {
		m.addLog(fmt.Sprintf("%s you answered: %s", prefix(&req.Step), d))
	}
	m.refresh()
}

// SetTemporary shows the temporary changes in place.
func (m *Model) SetTemporary(ts []Temporary) {
	m.temporary = ts
	m.refresh()
}

// SpinnerTick advances the spinner.
func (m *Model) SpinnerTick(msg spinner.TickMsg) tea.Cmd {
	var cmd tea.Cmd
	m.spinner, cmd = m.spinner.Update(msg)
	return cmd
}

// SpinnerStart returns the command that starts the spinner.
func (m *Model) SpinnerStart() tea.Cmd { return m.spinner.Tick }

// HandleEvent renders one engine event; the session applied it to the run
// state first.
func (m *Model) HandleEvent(ev apply.Event) {
	now := m.Now()
	switch ev.Type {
	case apply.EventRunStarted:
		m.started = ev.Time
		m.step, m.change, m.gate, m.applied, m.gateEnd = nil, nil, nil, "", ""
	case apply.EventStepStarted:
		m.step, m.change, m.applied, m.gate, m.gateEnd = ev.Step, nil, "", nil, ""
	case apply.EventDiff:
		m.step, m.change = ev.Step, ev.Change
	case apply.EventAwaitingConfirmation:
		if ev.Request != nil && ev.Request.Change != nil {
			m.change = ev.Request.Change
		}
	case apply.EventApplied:
		if ev.Change != nil {
			m.applied = ev.Change.Result + " " + ev.Change.Object
		}
	case apply.EventWaiting:
		m.gate, m.gateAt, m.gateEnd = ev.Gate, now, ""
	case apply.EventGatePassed:
		m.gate, m.gateAt = ev.Gate, now
		m.gateEnd = "passed"
	case apply.EventGateFailed:
		m.gate, m.gateAt = ev.Gate, now
		m.gateEnd = "FAILED: " + ev.Error
	}
	if line := m.logLine(ev); line != "" {
		m.addLog(line)
	}
	m.refresh()
}

func prefix(s *apply.StepInfo) string {
	switch {
	case s == nil:
		return ""
	case s.Index == 0:
		return "[" + planfile.StepNumber(s.ID) + "]"
	}
	return fmt.Sprintf("[%d/%d]", s.Index, s.Total)
}

// logLine is the event's line in the log pane, "" for events not logged
// (repeated gate progress).
func (m *Model) logLine(ev apply.Event) string {
	at := ""
	if !m.started.IsZero() && !ev.Time.IsZero() {
		at = "+" + common.Duration(ev.Time.Sub(m.started)) + " "
	}
	p := prefix(ev.Step)
	switch ev.Type {
	case apply.EventRunStarted:
		return at + ev.Message
	case apply.EventPreflight:
		c := ev.Preflight
		if c == nil {
			return at + "preflight: " + ev.Message
		}
		status := "ok"
		if !c.OK {
			status = "FAILED"
		}
		return fmt.Sprintf("%spreflight %s %s: %s", at, c.Name, status, c.Message)
	case apply.EventLock:
		return at + "lock: " + ev.Message
	case apply.EventStepStarted:
		return fmt.Sprintf("%s%s %s started", at, p, ev.Step.ID)
	case apply.EventDiff:
		if ev.Change == nil {
			return ""
		}
		return fmt.Sprintf("%s%s %s %s", at, p, ev.Change.Operation, ev.Change.Object)
	case apply.EventAwaitingConfirmation:
		return fmt.Sprintf("%s%s waiting for your decision", at, p)
	case apply.EventApplied:
		return fmt.Sprintf("%s%s %s", at, p, ev.Message)
	case apply.EventWaiting:
		if ev.Step == nil || ev.Gate == nil {
			return ""
		}
		k := ev.Step.ID + "/" + string(ev.Gate.Kind)
		if m.logged[k] {
			return ""
		}
		m.logged[k] = true
		return fmt.Sprintf("%s%s waiting for %s", at, p, ev.Gate.Description)
	case apply.EventGatePassed:
		return fmt.Sprintf("%s%s gate %s passed in %s", at, p, ev.Gate.Kind, common.Duration(secs(ev.Gate.ElapsedSeconds)))
	case apply.EventGateFailed:
		return fmt.Sprintf("%s%s gate %s FAILED: %s", at, p, ev.Gate.Kind, ev.Error)
	case apply.EventSkipped:
		return fmt.Sprintf("%s%s skipped: %s", at, p, ev.Message)
	case apply.EventStepDone:
		return fmt.Sprintf("%s%s done", at, p)
	case apply.EventCVO:
		return at + "cvo: " + ev.Message
	case apply.EventWarning:
		return at + "warning: " + ev.Message
	case apply.EventError:
		return fmt.Sprintf("%s%s error: %s", at, p, ev.Error)
	case apply.EventReverting:
		return fmt.Sprintf("%s%s revert on stop: %s", at, p, ev.Message)
	case apply.EventReverted:
		if ev.Error != "" {
			return fmt.Sprintf("%s%s NOT REVERTED: %s", at, p, common.OrDash(ev.Message))
		}
		return fmt.Sprintf("%s%s reverted: %s", at, p, ev.Message)
	case apply.EventDone:
		if ev.Result == nil {
			return at + "done"
		}
		return fmt.Sprintf("%s%s: %s", at, ev.Result.Outcome, ev.Result.Message)
	}
	return ""
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func (m *Model) addLog(line string) {
	m.log = append(m.log, line)
	if len(m.log) > maxLog {
		m.log = m.log[len(m.log)-maxLog:]
	}
}

// Notice adds a line from below the engine (an API warning) to the log.
func (m *Model) Notice(line string) {
	m.addLog("notice: " + line)
	m.refresh()
}

// Log returns the log pane's lines.
func (m *Model) Log() []string { return m.log }

// SetSize sets the screen's size.
func (m *Model) SetSize(w, h int) {
	m.Width, m.Height = w, h
	m.refresh()
}

// Update handles the screen's own keys: scrolling the log.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(k, m.Keys.ScrollUp):
		m.vp.HalfViewUp()
		m.follow = false
	case key.Matches(k, m.Keys.ScrollDown):
		m.vp.HalfViewDown()
		m.follow = m.vp.AtBottom()
	case key.Matches(k, m.Keys.Bottom):
		m.vp.GotoBottom()
		m.follow = true
	case key.Matches(k, m.Keys.Top):
		m.vp.GotoTop()
		m.follow = false
	}
	return nil
}

// refresh lays the log pane out under the rest.
func (m *Model) refresh() {
	if m.Width <= 0 || m.Height <= 0 {
		return
	}
	top := m.topView()
	h := m.Height - common.Lines(top) - 1
	m.vp.Width, m.vp.Height = m.Width, max(1, h)
	lines := make([]string, len(m.log))
	for i, l := range m.log {
		lines[i] = "  " + common.Truncate(l, m.Width-2)
	}
	m.vp.SetContent(strings.Join(lines, "\n"))
	if m.follow {
		m.vp.GotoBottom()
	}
}

// View renders the screen.
func (m *Model) View() string {
	top := m.topView()
	logTitle := m.Styles.Section.Render("LOG") + m.Styles.Dim.Render(fmt.Sprintf(" %d events", len(m.log)))
	if !m.follow {
		logTitle += m.Styles.Dim.Render(" (scrolled; " + keymap.Name(m.Keys.Bottom) + " follows)")
	}
	return common.Fit(top+"\n"+logTitle+"\n"+m.vp.View(), m.Width, m.Height)
}

// topView is everything above the log: the run line, and the ready text, the
// current step, question and gate, or the result.
func (m *Model) topView() string {
	st := m.Styles
	w := m.Width
	// The step pane gets at most this many lines, so the log keeps some room.
	budget := max(6, (m.Height-4)*3/5)
	if m.run.Phase == state.Finished {
		budget = max(6, m.Height-5)
	}
	var b strings.Builder
	b.WriteString(m.runLine())
	if t := m.temporaryView(); t != "" {
		b.WriteString("\n" + t)
		budget = max(6, budget-common.Lines(t))
	}
	switch m.run.Phase {
	case state.Idle, state.Starting:
		b.WriteString("\n" + m.readyView())
	case state.Running:
		b.WriteString("\n" + m.stepView(budget))
	case state.Finished:
		b.WriteString("\n" + m.resultView())
	}
	out := b.String()
	lines := strings.Split(out, "\n")
	if len(lines) > budget+2 && m.run.Phase != state.Running {
		lines = append(lines[:budget+1], st.Dim.Render("..."))
	}
	for i := range lines {
		lines[i] = common.Truncate(lines[i], w)
	}
	return strings.Join(lines, "\n")
}

// temporaryView lists the temporary changes in place, one line each: what the
// admin must not forget while a run is paused, stopped or asking.
func (m *Model) temporaryView() string {
	st := m.Styles
	var lines []string
	for _, t := range m.temporary {
		if t.Failed != "" {
			l := st.Danger.Render(" NOT REVERTED ") + " " + t.Text + ": " + t.Failed
			if t.Command != "" {
				l += "; restore it by hand: " + t.Command
			}
			lines = append(lines, common.WrapIndent(l, m.Width, 2))
			continue
		}
		lines = append(lines, st.Badge.Render(" TEMPORARY ")+" "+t.Text)
	}
	return strings.Join(lines, "\n")
}

func (m *Model) runLine() string {
	st := m.Styles
	var word string
	switch m.run.Phase {
	case state.Idle:
		word = st.Dim.Render("not started")
		if m.Info.Resume {
			word = st.Pending.Render("interrupted run: resumable")
		}
	case state.Starting:
		word = st.Pending.Render(m.spinner.View() + " starting")
	case state.Running:
		switch {
		case m.run.Request != nil:
			word = st.Badge.Render(" WAITING FOR YOUR DECISION ")
		case m.run.WaitingOnGate && m.gate != nil:
			word = st.Pending.Render(m.spinner.View() + " waiting for a gate")
		default:
			word = st.Pending.Render("running")
		}
	case state.Finished:
		if m.run.Result != nil && m.run.Result.Outcome == apply.OutcomeCompleted {
			word = st.OK.Render("finished: " + string(m.run.Result.Outcome))
		} else if m.run.Result != nil {
			word = st.Failed.Render("stopped: " + string(m.run.Result.Outcome))
		}
	}
	line := st.Section.Render("RUN ") + word
	switch {
	case m.Info.Steps > 0 && m.Info.Remediation:
		line += st.Dim.Render(fmt.Sprintf(" · remediation plan (no new release), %d steps", m.Info.Steps))
	case m.Info.Steps > 0:
		line += st.Dim.Render(fmt.Sprintf(" · plan → %s, %d steps", m.Info.Target, m.Info.Steps))
	}
	if m.Stage != "" {
		line += st.Dim.Render(" · " + m.Stage)
	}
	if m.Info.Journal != "" {
		line += st.Dim.Render(" · journal " + m.Info.Journal)
	}
	return common.Truncate(line, m.Width)
}

func (m *Model) readyView() string {
	st := m.Styles
	var b strings.Builder
	if m.run.StartErr != "" {
		b.WriteString(st.Failed.Render(common.Wrap(m.run.StartErr, m.Width)) + "\n")
	}
	switch {
	case m.Info.Steps == 0:
		b.WriteString(st.Dim.Render(common.Wrap("No plan to apply: the Target screen says how to get one.", m.Width)))
		return b.String()
	case m.Info.ReadOnly != "":
		b.WriteString(common.Wrap("Read-only session ("+m.Info.ReadOnly+"): nothing can be applied from here. "+
			"To apply, save the plan (recover plan -o json > plan.json) and run 'recover tui --plan plan.json' against the live cluster, "+
			"or '"+nextcmd.ApplyPlan("plan.json")+"' in a script.", m.Width))
		return b.String()
	}
	if m.Info.Resume {
		b.WriteString(common.Wrap("Resumes the interrupted run: "+m.Info.ResumeState, m.Width) + "\n")
	}
	k := m.Keys
	b.WriteString(common.Wrap("Press "+keymap.Name(k.Start)+" to "+map[bool]string{true: "resume", false: "start"}[m.Info.Resume]+
		" applying. The engine runs preflight, takes the lock, disables the CVO at its step and asks before every change: "+
		keymap.Name(k.Confirm)+" apply, "+keymap.Name(k.Skip)+" skip, "+keymap.Name(k.Abort)+" abort (asks again). Failed gates and steps offer "+keymap.Name(k.Retry)+" retry.", m.Width))
	if m.Info.Backup != "" {
		b.WriteString("\n" + st.Label.Render("backup  ") + common.WrapIndent(m.Info.Backup, m.Width, 8))
	}
	return b.String()
}

func (m *Model) stepView(budget int) string {
	st := m.Styles
	w := m.Width
	if m.step == nil {
		return st.Dim.Render("preflight ...")
	}
	s := m.step
	// The question and the gate are never cut: they are what the user acts
	// on. The reason gets what is left after them, the diff the rest.
	var tail []string
	if r := m.run.Request; r != nil {
		tail = append(tail, m.requestView(r))
	}
	if g := m.gate; g != nil {
		tail = append(tail, m.gateView(g))
	}
	fixed := 1 + common.Lines(strings.Join(tail, "\n"))
	var b strings.Builder
	b.WriteString(st.Section.Render(fmt.Sprintf("STEP %d/%d ", s.Index, s.Total)) + st.Bold.Render(s.ID) + " " + string(s.Action))
	var what string
	switch {
	case m.applied != "":
		what = st.Label.Render("  done   ") + st.OK.Render(m.applied)
	case m.change != nil:
		what = st.Label.Render("  change ") + m.change.Operation + " " + m.change.Object
	case s.Object != "":
		what = st.Label.Render("  object ") + s.Object
	}
	if what != "" {
		fixed++
	}
	if s.Reason != "" {
		room := max(1, min(4, budget-fixed))
		lines := strings.Split(st.Label.Render("  reason ")+common.WrapIndent(s.Reason, w, 9), "\n")
		if len(lines) > room {
			lines = lines[:room]
			lines[room-1] = common.Truncate(lines[room-1], w-1) + "…"
		}
		b.WriteString("\n" + strings.Join(lines, "\n"))
	}
	if what != "" {
		b.WriteString("\n" + what)
	}
	if c := m.change; c != nil && len(c.Fields) > 0 && m.applied == "" {
		// A remediation step: its fields from the live value to the new one.
		lines := common.FieldDiff(st, c.Fields, w-4)
		if n := budget - common.Lines(b.String()) - common.Lines(strings.Join(tail, "\n")); n >= 2 {
			if len(lines) > n-1 {
				lines = append(lines[:n-2], st.Dim.Render(fmt.Sprintf("... %d more lines: the whole change is on the Plan screen (%s)", len(lines)-(n-2), keymap.Name(m.Keys.Plan))))
			}
			b.WriteString("\n" + indent(strings.Join(lines, "\n"), "    "))
		}
	} else if c != nil && c.Diff != "" && m.applied == "" {
		if n := budget - common.Lines(b.String()) - common.Lines(strings.Join(tail, "\n")); n >= 2 {
			b.WriteString("\n" + indent(common.RenderDiff(st, hunks(c.Diff), w-4, n-1), "    "))
		}
	}
	for _, t := range tail {
		b.WriteString("\n" + t)
	}
	return b.String()
}

// hunks drops a unified diff's file header lines, which say nothing on this
// screen.
func hunks(diff string) string {
	var out []string
	for _, l := range strings.Split(diff, "\n") {
		if strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ ") {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

func indent(s, pad string) string {
	return pad + strings.ReplaceAll(s, "\n", "\n"+pad)
}

// answers maps the engine's decisions to the keys that give them.
func (m *Model) answers(r *apply.Request) string {
	st := m.Styles
	var parts []string
	for _, d := range []apply.Decision{apply.Proceed, apply.Skip, apply.Retry, apply.Abort} {
		if !r.Allows(d) {
			continue
		}
		k := m.Keys
		switch d {
		case apply.Proceed:
			parts = append(parts, st.Bold.Render(keymap.Name(k.Confirm))+" apply")
		case apply.Skip:
			parts = append(parts, st.Bold.Render(keymap.Name(k.Skip))+" skip")
		case apply.Retry:
			parts = append(parts, st.Bold.Render(keymap.Name(k.Retry))+" retry")
		case apply.Abort:
			parts = append(parts, st.Bold.Render(keymap.Name(k.Abort))+" abort")
		}
	}
	return strings.Join(parts, " · ")
}

func (m *Model) requestView(r *apply.Request) string {
	st := m.Styles
	q := "apply this change?"
	switch r.Kind {
	case apply.RequestGate:
		q = "the gate failed: retry, skip or abort?"
	case apply.RequestError:
		q = "the step failed: retry, skip or abort?"
	}
	head := st.Badge.Render(" DECIDE ") + " " + st.Bold.Render(q) + "  " + m.answers(r)
	if r.Kind == apply.RequestStep {
		// The step pane above already shows the change and its reason.
		return head
	}
	return head + "\n  " + common.WrapIndent(r.Message, m.Width, 2)
}

func (m *Model) gateView(g *apply.GateInfo) string {
	st := m.Styles
	elapsed := secs(g.ElapsedSeconds)
	if m.gateEnd == "" && m.run.Request == nil {
		elapsed += m.Now().Sub(m.gateAt)
	}
	timeout := secs(g.TimeoutSeconds)
	status := m.spinner.View()
	switch {
	case m.gateEnd == "passed":
		status = st.OK.Render("✓")
	case m.gateEnd != "":
		status = st.Failed.Render("✗")
	}
	head := fmt.Sprintf("%s %s %s %s", st.Section.Render("GATE"), status, g.Kind, g.Subject)
	times := common.Duration(elapsed)
	if timeout > 0 {
		times += " / " + common.Duration(timeout)
	}
	bar := ""
	if timeout > 0 {
		m.progress.Width = max(10, min(30, m.Width-len(times)-lipgloss.Width(head)-6))
		bar = " " + m.progress.ViewAs(min(1, float64(elapsed)/float64(timeout)))
	}
	out := head + "  " + times + bar
	msg := g.Message
	if m.gateEnd != "" && m.gateEnd != "passed" {
		msg = m.gateEnd
	}
	if msg != "" {
		out += "\n  " + common.WrapIndent(msg, m.Width, 2)
	}
	if len(g.Pending) > 0 {
		p := g.Pending
		more := ""
		if len(p) > 3 {
			more = fmt.Sprintf(" (+%d more)", len(p)-3)
			p = p[:3]
		}
		out += "\n  " + st.Dim.Render(common.Truncate("pending: "+strings.Join(p, "; ")+more, m.Width-2))
	}
	return out
}

func (m *Model) resultView() string {
	st := m.Styles
	r := m.run.Result
	if r == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(st.Section.Render("RESULT ") + common.WrapIndent(r.Message, m.Width, 7))
	steps := fmt.Sprintf("%d done, %d skipped of %d", r.StepsDone, r.StepsSkipped, r.StepsTotal)
	if r.StoppedAt != "" {
		steps += ", stopped at " + r.StoppedAt
	}
	b.WriteString("\n" + st.Label.Render("steps   ") + common.WrapIndent(steps, m.Width, 8))
	if r.CVODisabled {
		orig := "its earlier replicas"
		if r.CVOReplicas != nil {
			orig = fmt.Sprintf("%d replica(s)", *r.CVOReplicas)
		}
		b.WriteString("\n" + st.Label.Render("CVO     ") + common.WrapIndent(st.Danger.Render(" DISABLED ")+" scaled to 0 by recover; it ran "+orig+" before. Nothing reconciles the cluster until it is restored.", m.Width, 8))
	}
	for _, ri := range r.Reverted {
		b.WriteString("\n" + st.Label.Render("reverted") + common.WrapIndent(" "+ri.Object+" (step "+planfile.StepNumber(ri.Step)+") back to its journaled pre-image because the run stopped before step "+planfile.StepNumber(ri.RevertedBy)+"; a resume makes the change again", m.Width, 9))
	}
	for _, ri := range r.NotReverted {
		b.WriteString("\n" + st.Danger.Render(" NOT REVERTED ") + common.WrapIndent(" "+ri.Object+" (step "+planfile.StepNumber(ri.Step)+"): "+ri.Error+"; restore it by hand: "+ri.Command, m.Width, 2))
	}
	if len(r.Next) > 0 {
		b.WriteString("\n" + st.Section.Render("NEXT"))
		for _, n := range r.Next {
			b.WriteString("\n  " + common.WrapIndent(n, m.Width, 2))
		}
	}
	if r.Outcome.Resumable() && r.Journal != "" && m.Info.ReadOnly == "" {
		b.WriteString("\n" + st.Dim.Render("press "+keymap.Name(m.Keys.Start)+" to resume here, or "+keymap.Name(m.Keys.Quit)+" to quit (the commands above are printed again on exit)"))
	}
	return b.String()
}

// ShortHelp are the screen's keys for the footer.
func (m *Model) ShortHelp() []key.Binding {
	k := m.Keys
	return []key.Binding{k.Start, k.Confirm, k.Skip, k.Retry}
}

// FullHelp are the screen's keys for the ? overlay.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.Keys
	return [][]key.Binding{{k.Start, k.Confirm, k.Skip, k.Retry, k.Abort, k.ScrollUp, k.ScrollDown, k.Top, k.Bottom}}
}
