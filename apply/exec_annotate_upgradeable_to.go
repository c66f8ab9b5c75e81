package apply

import (
	"github.com/openshift-recover/recover/plan/planfile"
)

// annotate-upgradeable-to: a JSON merge patch of one object, its pre-image journaled first
// (change.go prepareChange).
func init() {
	registerExecutor(planfile.ActionAnnotateUpgradeableTo, execFuncs{accessFn: changeAccess, prepareFn: prepareChangeStep})
}
