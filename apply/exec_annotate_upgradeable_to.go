package apply

import "github.com/openshift-recover/recover/plan"

// annotate-upgradeable-to: a JSON merge patch of one object, its pre-image journaled first
// (change.go prepareChange).
func init() {
	registerExecutor(plan.ActionAnnotateUpgradeableTo, execFuncs{accessFn: changeAccess, prepareFn: prepareChangeStep})
}
