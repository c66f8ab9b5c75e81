package tui

import (
	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/apply/resource"
	"github.com/openshift-recover/recover/tui/applyview"
	"github.com/openshift-recover/recover/tui/common"
)

// A temporary change (a relaxed PodDisruptionBudget) holds the cluster in a state
// the admin must not forget: from the moment the engine makes it until its revert
// step, or the engine's revert when the run stops, writes the pre-image back.
// The session follows the engine's events (and, when it resumes, the journal) and
// shows every outstanding one in the header and on the Apply screen.

// temporary is one outstanding temporary change.
type temporary struct {
	step string
	// text is "PodDisruptionBudget ci/deck relaxed by step 005 — restored by step 007".
	text string
	// failed is why the engine could not revert it when the run stopped ("" when
	// it is simply in place); command restores it by hand.
	failed, command string
}

// addTemporary records step id's change as in place.
func (m *Model) addTemporary(id string) {
	s := m.session.Plan.StepByID(id)
	if s == nil || s.RevertedBy == "" {
		return
	}
	for i := range m.temporary {
		if m.temporary[i].step == id {
			m.temporary[i].failed, m.temporary[i].command = "", ""
			m.syncTemporary()
			return
		}
	}
	m.temporary = append(m.temporary, temporary{step: id, text: common.TemporaryText(s)})
	m.syncTemporary()
}

// dropTemporary records that step id's change is undone.
func (m *Model) dropTemporary(id string) {
	out := m.temporary[:0]
	for _, t := range m.temporary {
		if t.step != id {
			out = append(out, t)
		}
	}
	m.temporary = out
	m.syncTemporary()
}

// failTemporary records that the engine could not revert step id's change.
func (m *Model) failTemporary(id, why, command string) {
	m.addTemporary(id)
	for i := range m.temporary {
		if m.temporary[i].step == id {
			m.temporary[i].failed, m.temporary[i].command = why, command
		}
	}
	m.syncTemporary()
}

// temporaryFromJournal records the changes a journal to resume has in place.
func (m *Model) temporaryFromJournal(j *journal.State) {
	if j == nil {
		return
	}
	for _, st := range j.Outstanding() {
		m.addTemporary(st.ID)
	}
}

// temporaryFromEvent follows one engine event: a temporary change made, its
// revert step applied, the engine's revert when the run stopped.
func (m *Model) temporaryFromEvent(ev apply.Event) {
	if ev.Step == nil {
		return
	}
	s := m.session.Plan.StepByID(ev.Step.ID)
	if s == nil {
		return
	}
	switch ev.Type {
	case apply.EventApplied:
		c := ev.Change
		if c == nil || c.DryRun {
			return
		}
		if s.RevertedBy != "" && c.Result != string(resource.OpUnchanged) {
			m.addTemporary(s.ID)
		}
		if s.Reverts != "" {
			m.dropTemporary(s.Reverts)
		}
	case apply.EventReverted:
		if ev.Error != "" {
			m.failTemporary(s.ID, ev.Error, "")
			return
		}
		m.dropTemporary(s.ID)
	}
}

// temporaryFromResult records the changes a stopped run could not revert, with
// the command that restores each by hand.
func (m *Model) temporaryFromResult(r *apply.Result) {
	if r == nil {
		return
	}
	for _, ri := range r.NotReverted {
		m.failTemporary(ri.Step, ri.Error, ri.Command)
	}
}

// temporaryTexts names the outstanding changes ("PodDisruptionBudget ci/deck relaxed by step
// 002 — restored by step 004"), nil when there are none.
func (m *Model) temporaryTexts() []string {
	var texts []string
	for _, t := range m.temporary {
		texts = append(texts, t.text)
	}
	return texts
}

// syncTemporary shows the outstanding changes in the header and on the Apply screen.
func (m *Model) syncTemporary() {
	var lines []applyview.Temporary
	for _, t := range m.temporary {
		lines = append(lines, applyview.Temporary{Text: t.text, Failed: t.failed, Command: t.command})
	}
	m.header.Temporary = m.temporaryTexts()
	m.apply.SetTemporary(lines)
}
