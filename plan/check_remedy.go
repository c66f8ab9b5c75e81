package plan

import (
	"maps"
	"slices"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The checker's rules for remediation steps (formatVersion 1.1). Every answer to
// "is this vouched for / at its limit / blocking" is inspect's (CSRVouch,
// PDBAtLimit, the findings' details), never a second opinion.

// temporaries is the checker's state of the temporary changes in force.
type temporaries struct {
	ids map[string]int
	// open maps an object key to the step whose temporary change is in force.
	open map[string]int
	// settled is set for an open temporary change once the gate its action
	// is settled by (ActionSpec.SettledBy) passed.
	settled map[int]bool
	// specs are the steps' action specs.
	specs []*planfile.ActionSpec
}

func newTemporaries(p *planfile.Plan) *temporaries {
	t := &temporaries{ids: map[string]int{}, open: map[string]int{}, settled: map[int]bool{}, specs: make([]*planfile.ActionSpec, len(p.Steps))}
	for i, st := range p.Steps {
		t.specs[i] = st.Spec()
		if st.ID != "" {
			t.ids[st.ID] = i
		}
	}
	return t
}

// changedObject is the object a step changes (Step.ObjectRef of a step whose
// action mutates), when the checker can name it.
func changedObject(st *planfile.Step) (planfile.ObjectRef, bool) {
	if st.Change != nil {
		return st.Change.Object, true
	}
	if !st.Spec().Mutates {
		return planfile.ObjectRef{}, false
	}
	return st.ObjectRef()
}

// temporary applies the temporary-changes rule to step i: every temporary change
// names exactly one later revert of the same object, nothing else changes that
// object in between, and a revert undoes a change in force.
func (m *model) temporary(i int, st *planfile.Step) error {
	t := m.tmp
	steps := m.p.Steps
	obj, changes := changedObject(st)
	key := planfile.ObjectKey(obj)
	spec := t.specs[i]
	switch {
	case spec.Undoes:
		if st.Change == nil {
			return m.fail(i, InvariantTemporary, "a revert step without the change it restores (object and fields)")
		}
		k, ok := t.ids[st.Reverts]
		switch {
		case st.Reverts == "":
			return m.fail(i, InvariantTemporary, "a revert step that names no step it reverts")
		case !ok:
			return m.fail(i, InvariantTemporary, "reverts step %s, which the plan does not have", st.Reverts)
		case k >= i:
			return m.fail(i, InvariantTemporary, "revert before change: it reverts step %s, which comes after it", st.Reverts)
		case steps[k].RevertedBy != st.ID:
			return m.fail(i, InvariantTemporary, "reverts step %s, which names %q as its revert", st.Reverts, steps[k].RevertedBy)
		case steps[k].Change == nil || !planfile.SameObject(steps[k].Change.Object, obj):
			return m.fail(i, InvariantTemporary, "reverts step %s but names another object (%s)", st.Reverts, obj)
		}
		if o, ok := t.open[key]; !ok || o != k {
			return m.fail(i, InvariantTemporary, "reverts step %s, whose change of %s is not in force here", st.Reverts, obj)
		}
		if sp := t.specs[k]; sp.SettledBy != "" && !t.settled[k] {
			return m.fail(i, InvariantRemedies, "restores %s without a %s wait since step %s %s it: the change unblocked nothing", obj, sp.SettledBy, steps[k].ID, sp.Changed())
		}
		delete(t.open, key)
		delete(t.settled, k)
		return nil
	case st.RevertedBy != "" || spec.Temporary:
		if st.Change == nil {
			return m.fail(i, InvariantTemporary, "a temporary change without a change (object and fields)")
		}
		j, ok := t.ids[st.RevertedBy]
		switch {
		case st.RevertedBy == "":
			return m.fail(i, InvariantTemporary, "%s is a temporary change and names no revert step (revertedBy)", st.Action)
		case !ok:
			return m.fail(i, InvariantTemporary, "revertedBy names step %s, which the plan does not have", st.RevertedBy)
		case j <= i:
			return m.fail(i, InvariantTemporary, "its revert step %s comes before it", st.RevertedBy)
		case !t.specs[j].Undoes || steps[j].Reverts != st.ID:
			return m.fail(i, InvariantTemporary, "revertedBy names step %s, which is not a revert of this step", st.RevertedBy)
		}
		n := 0
		for k := range steps {
			if steps[k].Reverts == st.ID {
				n++
			}
		}
		if n != 1 {
			return m.fail(i, InvariantTemporary, "%d revert steps revert it; exactly one must", n)
		}
		if o, ok := t.open[key]; ok {
			return m.fail(i, InvariantTemporary, "changes %s while the temporary change of step %s is in force", obj, steps[o].ID)
		}
		t.open[key] = i
		return nil
	case changes:
		if o, ok := t.open[key]; ok {
			return m.fail(i, InvariantTemporary, "changes %s while the temporary change of step %s is in force (it must be reverted first)", obj, steps[o].ID)
		}
	}
	return nil
}

// settle records that a gate of kind passed while temporary changes are in
// force: each whose action is settled by that kind (ActionSpec.SettledBy) has
// now done its work and may be reverted.
func (t *temporaries) settle(kind planfile.GateKind) {
	for _, i := range t.open {
		if t.specs[i].SettledBy == kind {
			t.settled[i] = true
		}
	}
}

// endTemporaries fails when a temporary change is left in force.
func (m *model) endTemporaries() error {
	for _, key := range slices.Sorted(maps.Keys(m.tmp.open)) {
		i := m.tmp.open[key]
		st := &m.p.Steps[i]
		return m.fail(-1, InvariantTemporary, "the temporary change of step %s (%s) is never reverted", st.ID, st.Change.Object)
	}
	return nil
}

// remedyStep applies the remedies rule every remediation action shares: it
// names its remedy, its change sets exactly its fields, and an admin's promise
// is named in the plan's accepted inputs. What is particular to an action is
// its ActionSpec's check (action_*.go).
func (m *model) remedyStep(i int, st *planfile.Step) error {
	if st.Remedy == "" {
		return m.fail(i, InvariantRemedies, "%s without the remedy it belongs to", st.Action)
	}
	if st.Change == nil && st.CSR == nil && st.Manifest == nil {
		return m.fail(i, InvariantRemedies, "%s without a change (object, patch and fields)", st.Action)
	}
	if st.Change != nil && !st.Spec().Undoes {
		if err := m.changeFields(i, st); err != nil {
			return err
		}
	}
	if name := planfile.AcceptNameFor(st); name != "" && !slices.Contains(m.p.Inputs.Accepted, name) {
		return m.fail(i, InvariantRemedies, "%s is the admin's promise and needs --accept %s, which the plan's inputs do not record", st.Action, name)
	}
	return nil
}

// changeFields checks that a Change's Fields are exactly the leaves its patch sets.
func (m *model) changeFields(i int, st *planfile.Step) error {
	leaves, err := planfile.PatchLeaves(st.Change.Patch)
	if err != nil {
		return m.fail(i, InvariantRemedies, "%v", err)
	}
	fields := slices.Clone(st.Change.Fields)
	slices.SortFunc(fields, func(a, b []string) int { return slices.Compare(a, b) })
	if !slices.EqualFunc(leaves, fields, slices.Equal[[]string]) {
		return m.fail(i, InvariantRemedies, "the change's fields (%s) are not what its patch sets", planfile.FieldsText(st.Change.Fields))
	}
	return nil
}

// remedyUnpause reports whether unpausing a pool the user paused is the
// remedy inspect's PoolPaused finding asks for (details blocks=true).
func (m *model) remedyUnpause(st *planfile.Step) bool {
	if st.Remedy != planfile.RemedyUnpausePool {
		return false
	}
	for _, fd := range m.s.FindingsWithCode(inspect.CodePoolPaused) {
		if fd.Details["pool"] == st.Pool && fd.Details["blocks"] == "true" {
			return true
		}
	}
	return false
}

// settleNodes applies a passed nodes-settled gate: the nodes run their desired
// configuration's kubelet.
func (m *model) settleNodes(nodes []string) {
	for _, n := range nodes {
		if nm := m.nodes[n]; nm != nil && nm.kube.lo >= 0 {
			nm.kube.lo = nm.kube.hi
			m.dirty = true
		}
	}
}
