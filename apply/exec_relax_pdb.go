package apply

import "github.com/openshift-recover/recover/plan"

// relax-pdb: a JSON merge patch of one object, its pre-image journaled first
// (change.go prepareChange).
func init() {
	registerExecutor(plan.ActionRelaxPDB, execFuncs{accessFn: changeAccess, prepareFn: prepareChangeStep})
}
