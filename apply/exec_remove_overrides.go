package apply

import (
	"github.com/openshift-recover/recover/plan/planfile"
)

// remove-overrides: a JSON merge patch of one object, its pre-image journaled first
// (change.go prepareChange).
func init() {
	registerExecutor(planfile.ActionRemoveOverrides, execFuncs{accessFn: changeAccess, prepareFn: prepareChangeStep})
}
