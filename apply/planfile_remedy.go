package apply

import (
	"slices"
	"strings"

	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/apply/resource"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan"
)

// forbiddenPatchPaths are fields no remediation patch may set: the object's
// identity, its concurrency token and its status.
var forbiddenPatchPaths = [][]string{
	{"apiVersion"}, {"kind"}, {"metadata", "name"}, {"metadata", "namespace"}, {"metadata", "uid"},
	{"metadata", "resourceVersion"}, {"metadata", "generation"}, {"metadata", "managedFields"},
	{"metadata", "ownerReferences"}, {"metadata", "finalizers"}, {"metadata", "deletionTimestamp"}, {"status"},
}

// isGuardPDB reports whether a PodDisruptionBudget is one of the control
// plane's guard budgets, which recover never relaxes.
func isGuardPDB(name string) bool {
	return strings.HasSuffix(name, openshift.GuardPDBSuffix) || name == openshift.EtcdQuorumGuard
}

// validateChange checks a step's Change.
func validateChange(s *plan.Step, where string, add func(string, ...any)) {
	ch := s.Change
	if ch == nil {
		add("%s: %s needs change (the object, its merge patch and the fields it sets)", where, s.Action)
		return
	}
	o := ch.Object
	if o.APIVersion == "" || o.Kind == "" || o.Name == "" {
		add("%s: change.object needs apiVersion, kind and name", where)
	}
	if len(ch.Fields) == 0 {
		add("%s: the change of %s %s lists no fields: its pre-image could not be journaled nor restored", where, o.Kind, o.Name)
	}
	for _, f := range ch.Fields {
		if len(f) == 0 || slices.Contains(f, "") {
			add("%s: change field %q has an empty segment", where, f)
		}
		for _, bad := range forbiddenPatchPaths {
			if resource.Covers([][]string{bad}, f) || resource.Covers([][]string{f}, bad) {
				add("%s: change field %s is not a field a remedy may set", where, journal.FieldKey(f))
			}
		}
	}
	patch, err := resource.DecodePatch(ch.Patch)
	if err != nil {
		add("%s: %v", where, err)
		return
	}
	for _, p := range resource.PatchPaths(patch) {
		if !resource.Covers(ch.Fields, p) {
			add("%s: the patch sets %s, which is not among the change's fields (its pre-image would not be journaled)", where, journal.FieldKey(p))
		}
	}
	if s.Action == plan.ActionUnpausePool && s.Pool != "" && (o.Kind != "MachineConfigPool" || o.Name != s.Pool) {
		add("%s: unpause-pool of pool %s changes %s %s", where, s.Pool, o.Kind, o.Name)
	}
}

// validateRemediation checks the remediation step at index i.
func validateRemediation(p *plan.Plan, i int, where string, add func(string, ...any)) {
	s := &p.Steps[i]
	index := func(id string) int {
		for j := range p.Steps {
			if p.Steps[j].ID == id {
				return j
			}
		}
		return -1
	}
	switch s.Action {
	case plan.ActionRevert:
		if s.Reverts == "" {
			add("%s: a revert step needs reverts (the step whose change it undoes)", where)
			return
		}
		j := index(s.Reverts)
		switch {
		case j < 0:
			add("%s: reverts %q, a step the plan does not have", where, s.Reverts)
		case j > i:
			add("%s: reverts step %s, which comes after it", where, s.Reverts)
		case p.Steps[j].Change == nil:
			add("%s: reverts step %s, which changes no object", where, s.Reverts)
		case p.Steps[j].RevertedBy != s.ID:
			add("%s: reverts step %s, whose revertedBy is %q, not this step", where, s.Reverts, p.Steps[j].RevertedBy)
		}
		return
	case plan.ActionApproveCSR:
		c := s.CSR
		if c == nil || c.Name == "" || c.SignerName == "" || c.Username == "" || c.CommonName == "" {
			add("%s: approve-csr needs csr with name, signerName, username and commonName (what the request said when the plan was made)", where)
		}
		return
	}
	validateChange(s, where, add)
	if s.Change == nil {
		return
	}
	if s.Action == plan.ActionRelaxPDB {
		o := s.Change.Object
		if o.Kind != "PodDisruptionBudget" {
			add("%s: relax-pdb changes %s %s, not a PodDisruptionBudget", where, o.Kind, o.Name)
		}
		if isGuardPDB(o.Name) {
			add("%s: relax-pdb of %s/%s: a guard PodDisruptionBudget is never relaxed (it holds because a control-plane member is not ready: repair that member instead)", where, o.Namespace, o.Name)
		}
		if s.RevertedBy == "" {
			add("%s: relax-pdb is temporary: it needs revertedBy, the step that restores the budget", where)
		}
	}
	if s.RevertedBy != "" {
		j := index(s.RevertedBy)
		switch {
		case j < 0:
			add("%s: a temporary change without its revert: revertedBy %q is not a step of the plan", where, s.RevertedBy)
		case j < i:
			add("%s: revertedBy %s comes before the change", where, s.RevertedBy)
		case p.Steps[j].Action != plan.ActionRevert || p.Steps[j].Reverts != s.ID:
			add("%s: revertedBy %s is not a revert step of this step", where, s.RevertedBy)
		}
	}
}
