package steps

import (
	"fmt"
	"sort"
	"strings"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/tui/common"
	"github.com/openshift-recover/recover/tui/keymap"
)

// What the Plan screen shows of remediation steps (plan formatVersion 1.1): the
// remedy and the finding a step answers, its object and UID, exactly the fields
// its Change sets (what the snapshot showed -> what the patch sets), the pairing
// of a temporary change with its revert, a CSR approval's facts, and the
// pre-image diff the engine prepares.

// remedial reports whether the plan carries remediation steps.
func remedial(p *planfile.Plan) bool {
	if p == nil {
		return false
	}
	for i := range p.Steps {
		if p.Steps[i].Remedy != "" {
			return true
		}
	}
	return false
}

// marker is the list's mark of a temporary change ("→007": restored by step
// 007) or a revert ("←005": restores step 005).
func marker(s *planfile.Step) string {
	switch {
	case s.RevertedBy != "":
		return "→" + planfile.StepNumber(s.RevertedBy)
	case s.Reverts != "":
		return "←" + planfile.StepNumber(s.Reverts)
	}
	return ""
}

// answers lists the findings a step answers, from the plan's remediations
// ("DrainBlockedByPDB poddisruptionbudget/ci/deck"); the step's own Finding code
// when no remediation names it.
func answers(p *planfile.Plan, s *planfile.Step) []string {
	var out []string
	for _, r := range p.Remediations {
		for _, id := range r.Steps {
			if id == s.ID {
				out = append(out, r.Finding+" "+r.Subject)
			}
		}
	}
	if len(out) == 0 && s.Finding != "" {
		out = append(out, s.Finding)
	}
	return out
}

// remedyLines are the detail pane's lines for a remediation step, after its
// action line.
func (m *Model) remedyLines(s *planfile.Step, width int) []string {
	st := m.Styles
	label := func(l string) string { return st.Label.Render(common.Pad(l, 10)) }
	var out []string
	if s.Remedy != "" {
		r := s.Remedy
		if fs := answers(m.plan, s); len(fs) > 0 {
			r += ": answers " + strings.Join(fs, ", ")
		}
		out = append(out, label("remedy")+common.WrapIndent(r, width, 10))
	}
	if c := s.Change; c != nil {
		obj := c.Object.String()
		if c.UID != "" {
			obj += " uid " + c.UID
		}
		out = append(out, label("object")+common.WrapIndent(obj, width, 10))
	}
	jump := ""
	if m.Keys.Pair.Enabled() {
		jump = "; " + keymap.Name(m.Keys.Pair) + " jumps there"
	}
	if s.RevertedBy != "" {
		t := "restored by step " + planfile.StepNumber(s.RevertedBy) + jump + " (and by the engine if a run stops before it)"
		out = append(out, label("temporary")+st.Warning.Render(common.WrapIndent(t, width, 10)))
	}
	if s.Reverts != "" {
		t := "restores what step " + planfile.StepNumber(s.Reverts) + " changed (from the journaled pre-image)" + jump
		out = append(out, label("reverts")+st.Warning.Render(common.WrapIndent(t, width, 10)))
	}
	if c := s.Change; c != nil {
		head := "change"
		note := "before -> patch (what the snapshot showed, what the patch sets)"
		if s.Spec().Undoes {
			head = "restores"
			note = "changed -> pre-image as the snapshot showed them; apply writes back the pre-image step " + planfile.StepNumber(s.Reverts) + " journals"
		}
		for i, f := range common.ChangeFields(c) {
			l := label("")
			if i == 0 {
				l = label(head)
			}
			out = append(out, l+common.Truncate(f.Path+": "+st.Removed.Render(f.Before)+" -> "+st.Added.Render(f.After), width-10))
		}
		out = append(out, label("")+st.Dim.Render(common.WrapIndent(note, width, 10)))
	}
	if a := s.CSR; a != nil {
		out = append(out,
			label("csr")+common.WrapIndent(a.Name+" signer "+a.SignerName, width, 10),
			label("requestor")+common.WrapIndent(a.Username, width, 10),
			label("CN")+common.WrapIndent(a.CommonName, width, 10),
			label("node")+common.OrDash(a.Node),
			label("vouched")+common.WrapIndent("by "+common.OrDash(a.VouchedBy)+" (the machine approver's rule; apply checks it again live)", width, 10))
	}
	return out
}

// changeView renders a remediation step's prepared change: the fields from
// their live value to the new one (the pre-image diff), the journaled pre-image
// a revert writes back, and the engine's note. A preview of a revert before its
// change ran has nothing to restore yet: it says so.
func (m *Model) changeView(s *planfile.Step, c *apply.ChangeInfo, width int) []string {
	st := m.Styles
	var out []string
	head := c.Operation + " " + c.Object
	switch {
	case c.DryRun:
		head += st.Dim.Render(" (prepared by a server-side dry run)")
	case s.Spec().Undoes:
		head += st.Dim.Render(" (prepared by the engine from the journal)")
	default:
		head += st.Dim.Render(" (prepared by the engine against the live object)")
	}
	out = append(out, common.Wrap(head, width))
	out = append(out, common.FieldDiff(st, c.Fields, width)...)
	if len(c.Fields) == 0 && c.Diff != "" {
		out = append(out, common.RenderDiff(st, c.Diff, width, 0))
	}
	if len(c.PreImage) > 0 {
		what := "pre-image journaled before the change"
		if s.Spec().Undoes || c.Reverts != "" {
			what = fmt.Sprintf("writes back the pre-image step %s journaled", planfile.StepNumber(common.Paired(s)))
		}
		out = append(out, st.Dim.Render(common.WrapIndent(what+": "+preImageText(c), width, 2)))
	}
	switch {
	case c.Note != "":
		out = append(out, st.Dim.Render(common.Wrap(c.Note, width)))
	case len(c.Fields) == 0 && c.Diff == "" && s.Spec().Undoes:
		out = append(out, st.Dim.Render(common.Wrap("nothing to restore yet: step "+planfile.StepNumber(s.Reverts)+" journals the pre-image when it runs, and this step writes it back", width)))
	case len(c.Fields) == 0 && c.Diff == "":
		out = append(out, st.Dim.Render("no difference: the live object already matches"))
	}
	if c.VouchedBy != "" {
		out = append(out, st.Dim.Render(common.Wrap("vouched for by "+c.VouchedBy, width)))
	}
	return out
}

// preImageText is "spec.maxUnavailable=(absent), spec.minAvailable=2", in the
// Change's field order when the step has one.
func preImageText(c *apply.ChangeInfo) string {
	var parts []string
	seen := map[string]bool{}
	for _, f := range c.Fields {
		if v, ok := c.PreImage[f.Path]; ok {
			parts = append(parts, common.FieldKeyText(f.Path)+"="+common.ValueText(v))
			seen[f.Path] = true
		}
	}
	var rest []string
	for k := range c.PreImage {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		parts = append(parts, common.FieldKeyText(k)+"="+common.ValueText(c.PreImage[k]))
	}
	return strings.Join(parts, ", ")
}
