package planfile

import (
	"slices"
	"strings"

	"github.com/openshift-recover/recover/internal/nextcmd"
)

// An action is the unit of design: everything the plan side knows about one
// Step.Action lives in its own file (action_<name>.go), registered here. The
// engine's executor of the same action (apply/exec_<name>.go) holds what it
// needs at run time: its permissions and how it prepares, commits and reverts
// its change. Sequencing, the CVO bracket, the journal, the lock and the gates
// stay in the planner and the engine; a new action is one file here, one there,
// and its registration.

// ActionSpec is what the plan side knows about one action.
type ActionSpec struct {
	// Action is the step action it describes.
	Action Action
	// Changes says in one sentence what a step of it changes (the docs'
	// table, the contract test).
	Changes string
	// Mutates: a step of it changes what the CVO manages, so it runs inside
	// the CVO bracket (between disable-cvo and restore-cvo, the two steps that
	// make the bracket and are not inside it).
	Mutates bool
	// CVOManages: what a step of it changes is the CVO's own (a payload
	// manifest): a running CVO would fight it, so it runs only inside the CVO
	// bracket. A mutating action without it (a remedy: a PDB, a CSR, a pool's
	// pause, the admin's promises, the desired update) may run beside a
	// running CVO, and a plan without a bracket keeps the CVO at the wheel.
	CVOManages bool
	// Remedy: a remediation action (formatVersion 1.1): its steps name the
	// remedy and the finding they answer.
	Remedy bool
	// Temporary: its change always names the revert step that undoes it
	// (RevertedBy); RevertedWith is that step's action.
	Temporary    bool
	RevertedWith Action
	// SettledBy is the gate that must pass while a temporary change is in
	// force before its revert, or the change unblocked nothing (relax-pdb:
	// nodes-settled); "" for none. The checker enforces it.
	SettledBy GateKind
	// Lasting: a remedy's change stays after the run (its revert, by hand, is
	// RevertHint).
	RevertHint string
	// Accept is the --accept name of an admin's promise, or its prefix when
	// it takes a subject ("admin-ack:"); "" for an action that needs none.
	// AcceptForm is how the docs and messages spell it ("admin-ack:<gate key>").
	Accept, AcceptForm string
	// Gates are the gate kinds a step of it may carry; empty: any.
	Gates []GateKind
	// ImpliedGate is the gate every step of it waits for even when the plan
	// names none (disable-cvo: cvo-scaled-down); "" for none.
	ImpliedGate GateKind

	// Fields are the patch fields a step's Change may set, each a path whose
	// "*" segment matches any one key (acknowledge-admin-gate: data.*); a
	// Change may set no other (Validate). Empty: the action takes no Change,
	// but a revert (Undoes), whose fields are those of the step it reverts.
	Fields [][]string
	// Object is the one object every step of it acts on (disable-cvo: the
	// CVO's Deployment), nil when the step names its object.
	Object *ObjectRef

	// The parts a step plays in the plan, which the planner, the checker, the
	// engine, the renderers and the TUI ask instead of comparing actions:
	//
	// WaitOnly: it changes nothing; it waits for its gate (nothing to diff,
	// to prepare or to count as a change).
	WaitOnly bool
	// Undoes: it writes back what a temporary change of the plan set
	// (Step.Reverts names that step; its change is the reverted one's).
	Undoes bool
	// Deletes: it deletes its payload manifest's object, which must carry
	// release.openshift.io/delete=true (DeleteAnnotationProblem); a step of a
	// manifest action without it applies its manifest, which must not.
	Deletes bool
	// StopsCVO and RestartsCVO: it opens (disable-cvo) or closes
	// (restore-cvo) the CVO bracket.
	StopsCVO, RestartsCVO bool
	// PausesPool: it pauses its pool for the rest of the plan.
	PausesPool bool
	// NoSkip: a failed step of it may be retried, never skipped (skipping it
	// would leave the CVO off or fighting the plan, or a temporary change in
	// force).
	NoSkip bool

	// acceptName is the --accept name a step needs, derived from what it
	// changes ("" for none).
	acceptName func(st *Step) string
	// acceptSubject says why the subject of an --accept name with the Accept
	// prefix is malformed ("" when it is well formed).
	AcceptSubject func(subject string) string
	// validate checks a step's fields without the snapshot (Validate, which
	// apply runs on every plan it loads).
	validate func(p *Plan, i int, add problemFunc)
	// note says what the step changes, for the runbook, the table and the TUI
	// ("relaxes PodDisruptionBudget ci/build (restored by step 004)"); nil: none.
	note func(p *Plan, st *Step) string
	// hand is the oc command that does what the step does, by hand; nil: none.
	hand func(p *Plan, st *Step) string
	// changed is the past participle of what a temporary change does to its
	// object ("relaxed"); "" is "changed".
	changed string
	// idWords are the words after the action's name in a step's ID, for a
	// step whose object is a Change (relax-pdb: the namespace and the name,
	// "pdb" being in the action's name); nil: the object's (stepIDWords).
	IDWords func(st *Step) []string
}

// problemFunc records one problem of a plan document.
type problemFunc func(format string, args ...any)

var registry = map[Action]*ActionSpec{}

// register adds an action's spec; each action_*.go file calls it from init.
func register(s *ActionSpec) {
	if _, dup := registry[s.Action]; dup {
		panic("plan: action " + string(s.Action) + " registered twice")
	}
	registry[s.Action] = s
}

// Actions returns every registered action's spec, by name.
func Actions() []*ActionSpec {
	out := make([]*ActionSpec, 0, len(registry))
	for _, s := range registry {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *ActionSpec) int { return strings.Compare(string(a.Action), string(b.Action)) })
	return out
}

// SpecOf returns the action's spec, nil for an unknown action.
func SpecOf(a Action) *ActionSpec { return registry[a] }

// unknownAction is the spec of an action the registry does not hold: it plays
// no part (Validate refuses such a step).
var unknownAction = &ActionSpec{}

// Spec returns the spec of the step's action; for an unknown action, a spec
// that plays no part (never nil), so that callers ask it without a guard.
func (s *Step) Spec() *ActionSpec {
	if sp := registry[s.Action]; sp != nil {
		return sp
	}
	return unknownAction
}

// AllowsField reports whether a Change of the action may set the field path
// (Fields; "*" matches any one segment).
func (s *ActionSpec) AllowsField(path []string) bool {
	return slices.ContainsFunc(s.Fields, func(allowed []string) bool {
		return len(allowed) == len(path) && matchFields(allowed, path)
	})
}

func matchFields(allowed, path []string) bool {
	for i, seg := range allowed {
		if seg != "*" && seg != path[i] {
			return false
		}
	}
	return true
}

// AcceptName is the --accept name the step needs ("" when none).
func (s *ActionSpec) AcceptName(st *Step) string {
	if s.acceptName == nil {
		return ""
	}
	return s.acceptName(st)
}

// Note says what the step changes, in the words the runbook, the table and
// the TUI use; "" when the action has none for it.
func (s *ActionSpec) Note(p *Plan, st *Step) string {
	if s.note == nil {
		return ""
	}
	return s.note(p, st)
}

// HandCommand is the oc command that does what the step does, "" when no one
// command does (apply steps go through recover apply).
func (s *ActionSpec) HandCommand(p *Plan, st *Step) string {
	if s.hand == nil {
		return ""
	}
	return s.hand(p, st)
}

// Changed is the past participle of what a temporary change does to its object.
func (s *ActionSpec) Changed() string {
	if s.changed == "" {
		return "changed"
	}
	return s.changed
}

// StepNote is SpecOf(st.Action).Note, "" for an unknown action.
func StepNote(p *Plan, st *Step) string {
	if s := SpecOf(st.Action); s != nil {
		return s.Note(p, st)
	}
	return ""
}

// StepHandCommand is SpecOf(st.Action).HandCommand, "" for an unknown action.
func StepHandCommand(p *Plan, st *Step) string {
	if s := SpecOf(st.Action); s != nil {
		return s.HandCommand(p, st)
	}
	return ""
}

// mutates reports whether an action changes the cluster.
func Mutates(a Action) bool {
	s := SpecOf(a)
	return s != nil && s.Mutates
}

// acceptNameFor is the --accept name a promise step needs ("" for a step that
// needs none): derived from what the step changes, so the checker and the
// builder cannot disagree.
func AcceptNameFor(st *Step) string {
	if s := SpecOf(st.Action); s != nil {
		return s.AcceptName(st)
	}
	return ""
}

// StepNumber is the position part of a step ID ("007" of "007-revert-...").
func StepNumber(id string) string {
	n, _, _ := strings.Cut(id, "-")
	return n
}

// StepByID returns the plan's step with that ID, nil when there is none.
func (p *Plan) StepByID(id string) *Step {
	if p == nil {
		return nil
	}
	for i := range p.Steps {
		if p.Steps[i].ID == id {
			return &p.Steps[i]
		}
	}
	return nil
}

// String names an object for people, the one way recover does everywhere (the
// runbook, the table, the TUI, the engine's events, the journal):
// "PodDisruptionBudget ci/build", "KubeAPIServer cluster".
func (o ObjectRef) String() string {
	return o.Kind + " " + Qualified(o.Namespace, o.Name)
}

// changeVerbNote is the note of a remedy that changes one object: "<verb> <object>".
func changeVerbNote(verb string) func(*Plan, *Step) string {
	return func(_ *Plan, st *Step) string {
		if st.Change == nil {
			return ""
		}
		return verb + " " + st.Change.Object.String()
	}
}

// changeHand is the oc merge patch that makes a step's Change by hand (for a
// revert, what the snapshot showed; apply writes back the journaled pre-image).
func changeHand(_ *Plan, st *Step) string {
	if st.Change == nil {
		return ""
	}
	o := st.Change.Object
	return nextcmd.MergePatch(nextcmd.Resource(o.APIVersion, o.Kind, o.Name), o.Namespace, string(st.Change.Patch))
}
