package journal

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/openshift-recover/recover/internal/nextcmd"
	"github.com/openshift-recover/recover/internal/termtext"
	"github.com/openshift-recover/recover/plan/planfile"
)

// Summary is what recover journal prints: the run, the CVO, the backup,
// every step the journal mentions, and what to do next.
type Summary struct {
	Path          string    `json:"path"`
	FormatVersion string    `json:"formatVersion"`
	RunID         string    `json:"runID"`
	Plan          PlanRef   `json:"plan"`
	Server        string    `json:"server,omitempty"`
	ClusterID     string    `json:"clusterID,omitempty"`
	StartedAt     time.Time `json:"startedAt"`
	Runs          int       `json:"runs"`
	// State is finished, stopped, or interrupted (no stop record: the process
	// died or is still running).
	State    string       `json:"state"`
	LastStop *Stop        `json:"lastStop,omitempty"`
	InFlight string       `json:"inFlight,omitempty"`
	TornTail bool         `json:"tornTail,omitempty"`
	CVO      CVOState     `json:"cvo"`
	Backup   *Backup      `json:"backup,omitempty"`
	Done     int          `json:"stepsDone"`
	Skipped  int          `json:"stepsSkipped"`
	Steps    []*StepState `json:"steps"`
	// Changes are the remediation changes the journal records, with their
	// pre-images and whether they are restored.
	Changes []Change `json:"changes,omitempty"`
	Next    []string `json:"next,omitempty"`
	// StartVersion, Goal and Stages are a staged run's (formatVersion 1.2):
	// one entry per stage, from -> to and where it is; Stage is the one
	// running or last run, and Holds says, when the run did not finish,
	// which stage holds it and how to continue it or hand the cluster back.
	StartVersion string        `json:"startVersion,omitempty"`
	Goal         string        `json:"goal,omitempty"`
	Stages       []StageStatus `json:"stages,omitempty"`
	Stage        int           `json:"stage,omitempty"`
	Holds        string        `json:"holds,omitempty"`
}

// Change is one remediation change: what it changed, from which
// pre-image, and whether it was restored.
type Change struct {
	Step   string     `json:"step"`
	Action string     `json:"action,omitempty"`
	Object *ObjectRef `json:"object,omitempty"`
	// Temporary: the plan restores it at a revert step.
	Temporary bool                       `json:"temporary"`
	PreImage  map[string]json.RawMessage `json:"preImage"`
	After     map[string]json.RawMessage `json:"after,omitempty"`
	// State is outstanding (temporary, and may be in effect), reverted
	// (restored by RestoredBy: the plan's revert step, or revert-on-stop), or
	// made (a lasting change).
	State      string `json:"state"`
	RestoredBy string `json:"restoredBy,omitempty"`
	// Resume and Restore are, for an outstanding change, the command that
	// continues the plan (whose revert step restores it) and the command that
	// restores it by hand.
	Resume  string `json:"resume,omitempty"`
	Restore string `json:"restore,omitempty"`
	// Created is set for an object a remedy created (absent before): Remove
	// is the command that removes it by hand, and Note what removing it means
	// (the action's revert hint).
	Created bool   `json:"created,omitempty"`
	Remove  string `json:"remove,omitempty"`
	Note    string `json:"note,omitempty"`
}

// The states of a Change.
const (
	ChangeOutstanding = "outstanding"
	ChangeReverted    = "reverted"
	ChangeMade        = "made"
)

// Summarize reads where a run is from its journal: the run, the CVO, the
// backup, every step, every change with its pre-image, and the commands to run
// next (resume, restore an outstanding temporary change, scale the CVO back).
func Summarize(j *Journal) *Summary {
	st := j.State()
	s := &Summary{
		Path: j.Path, FormatVersion: j.Header.FormatVersion, RunID: st.RunID, Plan: j.Header.Plan, Server: j.Header.Server,
		ClusterID: j.Header.ClusterID, StartedAt: j.Header.StartedAt, Runs: st.Runs, LastStop: st.LastStop, InFlight: st.InFlight,
		TornTail: j.TornTail, CVO: st.CVO, Backup: st.Backup, Steps: st.Steps,
		StartVersion: j.Header.StartVersion, Goal: j.Header.Goal, Stages: st.Stages, Stage: st.Stage,
	}
	for _, step := range st.Steps {
		switch step.Status {
		case StepDone:
			s.Done++
		case StepSkipped:
			s.Skipped++
		}
	}
	switch {
	case st.Finished:
		s.State = "finished"
	case st.LastStop != nil:
		s.State = "stopped: " + st.LastStop.Reason
	default:
		s.State = "interrupted (no stop record: the run died, or is still running)"
	}
	resume := j.ResumeCommand
	if resume == "" {
		resume = nextcmd.Resume(j.Path)
	}
	if !st.Finished {
		s.Next = append(s.Next, resume)
	}
	for _, step := range st.Steps {
		if step.PreImage == nil {
			continue
		}
		c := Change{Step: step.ID, Action: step.Action, Object: step.Object, Temporary: step.Temporary, PreImage: step.PreImage, After: step.After, RestoredBy: step.RestoredBy}
		switch {
		case step.Temporary && step.ChangeOutstanding:
			c.State, c.Resume = ChangeOutstanding, resume
			if step.Object != nil {
				c.Restore = RestoreCommand(*step.Object, step.PreImage)
				s.Next = append(s.Next, c.Restore)
			}
		case step.Temporary || step.Reverts > 0:
			c.State = ChangeReverted
		default:
			c.State = ChangeMade
		}
		s.Changes = append(s.Changes, c)
	}
	s.Changes = append(s.Changes, approvals(j)...)
	s.Changes = append(s.Changes, creations(j)...)
	if st.CVO.Disabled {
		s.Next = append(s.Next, nextcmd.RestoreCVO(st.CVO.OriginalReplicas))
	}
	if !st.Finished {
		s.Holds = StageHolds(j.Header, st, resume)
	}
	return s
}

// StageHolds says which stage of a staged run that did not finish holds it,
// and how to go on: resume continues that stage from its first step not
// done; or the cluster is handed back to the CVO, which carries the
// desiredUpdate it was given on by itself. Empty for a run without stages.
func StageHolds(h Header, st *State, resume string) string {
	if len(st.Stages) == 0 {
		return ""
	}
	n := max(st.Stage, 1)
	goal := orWord(h.Goal, st.Stages[len(st.Stages)-1].To)
	var msg string
	if st.Stages[n-1].State == StageLanded && n < len(st.Stages) {
		// Stopped at a stage boundary (recover apply --until-stage): the
		// next stage holds the run.
		cur := st.Stages[n]
		msg = fmt.Sprintf("stage %d of %d (%s -> %s) holds the run to %s, after stage %d landed: '%s' starts stage %d", n+1, len(st.Stages), cur.From, cur.To, goal, n, resume, n+1)
	} else {
		cur := st.Stages[n-1]
		msg = fmt.Sprintf("stage %d of %d (%s -> %s) holds the run to %s: '%s' continues stage %d from its first step not done", n, len(st.Stages), cur.From, cur.To, goal, resume, n)
	}
	var back []string
	if len(st.Outstanding()) > 0 {
		back = append(back, "restore the temporary changes listed (the pools recover paused included)")
	}
	if st.CVO.Disabled {
		back = append(back, "scale the CVO back up")
	}
	hand := "nothing recover changed is left to restore"
	if len(back) > 0 {
		hand = strings.Join(back, " and ")
	}
	return msg + fmt.Sprintf("; or hand the cluster back: %s, let the CVO carry on with the desiredUpdate it holds ('oc adm upgrade' shows it), and plan again from where the cluster is with 'recover plan --to %s'", hand, goal)
}

// approvals are the CSR approvals the journal records (approve-csr has no
// Change, hence no pre-image in the step's state): lasting changes from the
// request's state before (Pending) to Approved, one per step, from its first
// intent. Like every change, one whose intent is journaled counts as made.
func approvals(j *Journal) []Change {
	var out []Change
	seen := map[string]bool{}
	for _, r := range j.Records {
		if r.Type != TypeIntent || r.Intent == nil || r.Action != string(planfile.ActionApproveCSR) || seen[r.Step] {
			continue
		}
		seen[r.Step] = true
		obj := r.Intent.Object
		state := func(v string) map[string]json.RawMessage {
			data, _ := json.Marshal(v)
			return map[string]json.RawMessage{"state": data}
		}
		out = append(out, Change{Step: r.Step, Action: r.Action, Object: &obj, PreImage: state(r.Intent.Before), After: state(r.Intent.After), State: ChangeMade})
	}
	return out
}

// creations are the objects remedy steps created (a create intent of a remedy
// action: create-release-signature's signature ConfigMap): lasting changes
// whose pre-image is the object's absence, one per step, from its first create
// intent, with the command that removes the object. Like every change, one
// whose intent is journaled counts as made. (A create-only object found
// existing journals no create intent: recover did not create it.)
func creations(j *Journal) []Change {
	var out []Change
	seen := map[string]bool{}
	for _, r := range j.Records {
		if r.Type != TypeIntent || r.Intent == nil || r.Intent.Operation != OperationCreate || seen[r.Step] {
			continue
		}
		spec := planfile.SpecOf(planfile.Action(r.Action))
		if spec == nil || !spec.Remedy {
			continue
		}
		seen[r.Step] = true
		obj := r.Intent.Object
		out = append(out, Change{Step: r.Step, Action: r.Action, Object: &obj, State: ChangeMade, Created: true,
			Remove: nextcmd.Delete(ResourceArg(obj), obj.Namespace), Note: spec.RevertHint})
	}
	return out
}

func (s *Summary) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "Journal:\t%s (format %s)\n", s.Path, s.FormatVersion)
	target := "target " + s.Plan.TargetVersion
	if s.Plan.TargetVersion == "" {
		target = "remediation only, no new release"
	}
	fmt.Fprintf(tw, "Plan:\t%s (%s), %s, %d steps\n", s.Plan.Path, s.Plan.Digest, target, s.Plan.Steps)
	if o := s.Plan.Outcome; o != nil {
		fmt.Fprintf(tw, "Outcome:\t%s (rule %s): %s\n", o.Kind, o.Rule, termtext.OneLine(o.Why))
	}
	fmt.Fprintf(tw, "Cluster:\t%s %s\n", s.Server, s.ClusterID)
	fmt.Fprintf(tw, "Started:\t%s (%d run(s), last run %s)\n", s.StartedAt.Format(time.RFC3339), s.Runs, s.RunID)
	fmt.Fprintf(tw, "State:\t%s\n", s.State)
	if s.LastStop != nil && s.LastStop.Message != "" {
		fmt.Fprintf(tw, "Stopped because:\t%s\n", s.LastStop.Message)
	}
	if s.InFlight != "" {
		fmt.Fprintf(tw, "In flight:\t%s (resume re-checks it against the cluster)\n", s.InFlight)
	}
	cvo := "not touched by this journal"
	switch {
	case s.CVO.Disabled:
		cvo = fmt.Sprintf("DISABLED (scaled to 0); it ran %s replica(s) before", replicasText(s.CVO.OriginalReplicas))
	case s.CVO.Restored:
		cvo = fmt.Sprintf("restored to %s replica(s)", replicasText(s.CVO.OriginalReplicas))
	}
	fmt.Fprintf(tw, "CVO:\t%s\n", cvo)
	backup := "none recorded"
	if b := s.Backup; b != nil {
		if b.Acknowledged {
			backup = "acknowledged (--i-have-a-backup), not verified"
		} else {
			backup = fmt.Sprintf("%s sha256 %s, etcd revision %d, cluster %s; %s", b.Path, b.SHA256, b.EtcdRevision, b.ClusterVersion, b.Verified)
		}
	}
	fmt.Fprintf(tw, "Backup:\t%s\n", backup)
	fmt.Fprintf(tw, "Steps:\t%d done, %d skipped, of %d\n", s.Done, s.Skipped, s.Plan.Steps)
	if len(s.Stages) > 0 {
		fmt.Fprintf(tw, "Stages:\t%d, from %s to %s\n", len(s.Stages), orWord(s.StartVersion, s.Stages[0].From), orWord(s.Goal, s.Stages[len(s.Stages)-1].To))
		for _, st := range s.Stages {
			mark := ""
			if st.Index == s.Stage && st.State != StageLanded {
				mark = "  <- holds the run"
				if st.State == StageRunning {
					mark = "  <- current"
				}
			} else if s.State != "finished" && st.Index == s.Stage+1 && s.Stage > 0 && s.Stages[s.Stage-1].State == StageLanded {
				// Stopped at a stage boundary (--until-stage): the next holds it.
				mark = "  <- holds the run"
			}
			fmt.Fprintf(tw, "  stage %d:\t%s -> %s  %s (%d steps, workers %s)%s\n", st.Index, st.From, st.To, st.State, st.Steps, orWord(st.Workers, "follow"), mark)
		}
	}
	if s.Holds != "" {
		fmt.Fprintf(tw, "Held by:\t%s\n", s.Holds)
	}
	if s.TornTail {
		fmt.Fprintf(tw, "Note:\tthe last line is torn (the run died while writing it); resume cuts it off\n")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STEP\tACTION\tSTATUS\tOUTCOME\tGATE")
	for _, st := range s.Steps {
		outcome, gateText := "-", "-"
		if st.LastOutcome != nil {
			outcome = st.LastOutcome.Result
			if st.LastOutcome.Error != "" {
				outcome += ": " + st.LastOutcome.Error
			}
		}
		if st.Gate != nil {
			gateText = st.Gate.Kind + " " + st.Gate.Result
		}
		if st.Status == StepSkipped && st.Message != "" {
			outcome = st.Message
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", st.ID, st.Action, st.Status, termtext.OneLine(outcome), gateText)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(s.Changes) > 0 {
		fmt.Fprintln(w, "\nChanges (pre-image journaled before each):")
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "STEP\tOBJECT\tKIND\tSTATE\tPRE-IMAGE\tSET TO")
		for _, c := range s.Changes {
			kind, state := "lasting", c.State
			if c.Temporary {
				kind = "temporary"
			}
			switch c.State {
			case ChangeOutstanding:
				state = "OUTSTANDING (not restored yet)"
			case ChangeReverted:
				state = "restored by " + c.RestoredBy
			}
			obj := "-"
			if c.Object != nil {
				obj = c.Object.String()
			}
			before, after := fieldsText(c.PreImage), fieldsText(c.After)
			if c.Created {
				before, after = "(absent)", "created"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", c.Step, obj, kind, state, before, after)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, c := range s.Changes {
			switch {
			case c.State == ChangeOutstanding:
				fmt.Fprintf(w, "  %s is outstanding: '%s' continues the plan, whose revert step restores it; or restore it by hand:\n    %s\n", c.Step, c.Resume, c.Restore)
			case c.Created:
				fmt.Fprintf(w, "  %s created %s: %s:\n    %s\n", c.Step, c.Object.String(), orWord(c.Note, "a lasting change; to remove it"), c.Remove)
			}
		}
	}
	if len(s.Next) > 0 {
		fmt.Fprintln(w, "\nNext:")
		for _, n := range s.Next {
			fmt.Fprintln(w, "  "+n)
		}
	}
	return nil
}

// fieldsText renders field values: "spec.minAvailable=2, spec.maxUnavailable=(absent)".
func fieldsText(vals map[string]json.RawMessage) string {
	if len(vals) == 0 {
		return "-"
	}
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		v := strings.TrimSpace(string(vals[k]))
		if v == "" || v == "null" {
			v = "(absent)"
		}
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, ", ")
}

func orWord(s, word string) string {
	if s == "" {
		return word
	}
	return s
}

func replicasText(p *int32) string {
	if p == nil {
		return "?"
	}
	return fmt.Sprint(*p)
}
