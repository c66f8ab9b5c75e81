package apply

import (
	"github.com/openshift-recover/recover/plan/planfile"
)

// relax-pdb: a JSON merge patch of one object, its pre-image journaled first
// (change.go prepareChange).
func init() {
	registerExecutor(planfile.ActionRelaxPDB, execFuncs{accessFn: changeAccess, prepareFn: prepareChangeStep})
}
