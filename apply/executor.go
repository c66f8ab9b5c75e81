package apply

import (
	"context"

	"github.com/openshift-recover/recover/plan/planfile"
)

// An executor is the engine's half of one action (the plan's half is its
// plan.ActionSpec): the permissions a step of it needs, and how it prepares its
// change from the live cluster (the diff, the journaled intent with the
// pre-image, the commit and its server-side dry run). The engine does the
// rest the same way for every action: sequencing, the CVO bracket, the lock,
// the journal (intent fsync'd before the commit, outcome after), confirmation
// and the gates. A temporary change is undone by its revert step, and by
// revert-on-stop when a run ends early, through the one pre-image mechanism
// (change.go prepareRestore). Each exec_<action>.go registers one executor.
type executor interface {
	// access lists the permissions a step needs besides its gate's reads.
	access(p *planfile.Plan, s *planfile.Step, mapKind KindMapper) ([]Access, error)
	// prepare builds the step's change from the live cluster without making it.
	prepare(ctx context.Context, r *run, s *planfile.Step) (*mutation, error)
}

// execFuncs is an executor made of two functions.
type execFuncs struct {
	accessFn  func(p *planfile.Plan, s *planfile.Step, mapKind KindMapper) ([]Access, error)
	prepareFn func(ctx context.Context, r *run, s *planfile.Step) (*mutation, error)
}

func (e execFuncs) access(p *planfile.Plan, s *planfile.Step, mapKind KindMapper) ([]Access, error) {
	if e.accessFn == nil {
		return nil, nil
	}
	return e.accessFn(p, s, mapKind)
}

func (e execFuncs) prepare(ctx context.Context, r *run, s *planfile.Step) (*mutation, error) {
	if e.prepareFn == nil {
		return nil, nil
	}
	return e.prepareFn(ctx, r, s)
}

var executors = map[planfile.Action]executor{}

// registerExecutor adds an action's executor; each exec_*.go calls it from init.
func registerExecutor(a planfile.Action, e executor) {
	if _, dup := executors[a]; dup {
		panic("apply: executor of " + string(a) + " registered twice")
	}
	executors[a] = e
}

// executorOf returns the action's executor, nil for an unknown action.
func executorOf(a planfile.Action) executor { return executors[a] }

// HasExecutor reports whether the engine can run steps of the action.
func HasExecutor(a planfile.Action) bool { return executors[a] != nil }

// StepAccess is the permissions one step's action needs (its gates' reads
// aside), for tests and RBAC generation that look at one action.
func StepAccess(p *planfile.Plan, s *planfile.Step, mapKind KindMapper) ([]Access, error) {
	ex := executorOf(s.Action)
	if ex == nil {
		return nil, nil
	}
	return ex.access(p, s, mapKind)
}

// changeAccess is the permissions of a step that patches its Change's object.
func changeAccess(_ *planfile.Plan, s *planfile.Step, mapKind KindMapper) ([]Access, error) {
	if s.Change == nil {
		return nil, nil
	}
	return objectAccess(mapKind, s.Change.Object, "get", "patch")
}

// prepareChangeStep prepares a step that patches its Change's object.
func prepareChangeStep(ctx context.Context, r *run, s *planfile.Step) (*mutation, error) {
	return r.prepareChange(ctx, s)
}
