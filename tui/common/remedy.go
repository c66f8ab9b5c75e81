package common

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/apply/resource"
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/tui/styles"
)

// How the screens name remediation steps, their objects and the temporary
// changes they pair (plan formatVersion 1.1). The words are the actions' own
// (plan.ActionSpec, plan.StepNumber, plan.ObjectRef.String), the same plan/render
// prints, so the TUI and `recover plan` say the same thing.

// Paired returns the step a remediation step is paired with: the revert of a
// temporary change, or the change a revert undoes ("" when it has no pair).
func Paired(s *planfile.Step) string {
	if s == nil {
		return ""
	}
	if s.RevertedBy != "" {
		return s.RevertedBy
	}
	return s.Reverts
}

// TemporaryText says what a temporary change holds while it lasts: "PodDisruptionBudget ci/deck
// relaxed by step 005 — restored by step 007". Empty for a step that is not one.
func TemporaryText(s *planfile.Step) string {
	if s == nil || s.RevertedBy == "" {
		return ""
	}
	obj := "its object"
	if s.Change != nil {
		obj = s.Change.Object.String()
	}
	verb := "changed"
	if spec := planfile.SpecOf(s.Action); spec != nil {
		verb = spec.Changed()
	}
	return obj + " " + verb + " by step " + planfile.StepNumber(s.ID) + " — restored by step " + planfile.StepNumber(s.RevertedBy)
}

// FieldChange is one field of a plan Change: what the snapshot showed (Before)
// and what the patch sets, as JSON values ("(absent)" for null).
type FieldChange struct {
	Path          string
	Before, After string
}

// ChangeFields returns exactly the Change's fields, each with its value in
// Change.Before and in Change.Patch.
func ChangeFields(c *planfile.Change) []FieldChange {
	if c == nil {
		return nil
	}
	decode := func(raw json.RawMessage) map[string]any {
		var obj map[string]any
		if len(raw) > 0 {
			_ = json.Unmarshal(raw, &obj)
		}
		return obj
	}
	before := resource.FieldValues(decode(c.Before), c.Fields)
	after := resource.FieldValues(decode(c.Patch), c.Fields)
	out := make([]FieldChange, 0, len(c.Fields))
	for _, f := range c.Fields {
		k := journal.FieldKey(f)
		out = append(out, FieldChange{Path: FieldPath(f), Before: resource.ValueText(before[k]), After: resource.ValueText(after[k])})
	}
	return out
}

// FieldPath renders a field path for people: dotted, a segment that holds a dot
// quoted as a key (data["ack-4.18-kube-1.32-api-removals-in-4.19"]).
func FieldPath(path []string) string {
	var b strings.Builder
	for i, seg := range path {
		switch {
		case strings.ContainsAny(seg, `."\`):
			b.WriteString("[" + strconv.Quote(seg) + "]")
		case i > 0:
			b.WriteString("." + seg)
		default:
			b.WriteString(seg)
		}
	}
	return b.String()
}

// FieldKeyText renders a journal field key (journal.FieldKey: dots in a segment
// escaped) as FieldPath does; a key that does not parse is shown as it is.
func FieldKeyText(key string) string {
	path, err := journal.ParseFieldKey(key)
	if err != nil {
		return key
	}
	return FieldPath(path)
}

// ValueText renders a JSON value of a change: "(absent)" for null or nothing.
func ValueText(raw json.RawMessage) string { return resource.ValueText(raw) }

// FieldDiff renders the fields a remediation step changes as the engine
// prepared them, from their live value to the new one (for a revert: back to the
// journaled pre-image), as removed and added lines cut to width.
func FieldDiff(st *styles.Styles, fields []apply.FieldChange, width int) []string {
	var out []string
	for _, f := range fields {
		out = append(out,
			st.Removed.Render(Truncate("- "+FieldKeyText(f.Path)+": "+ValueText(f.From), width)),
			st.Added.Render(Truncate("+ "+FieldKeyText(f.Path)+": "+ValueText(f.To), width)))
	}
	return out
}
