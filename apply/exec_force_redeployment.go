package apply

import "github.com/openshift-recover/recover/plan"

// force-redeployment: a JSON merge patch of one object, its pre-image journaled first
// (change.go prepareChange).
func init() {
	registerExecutor(plan.ActionForceRedeployment, execFuncs{accessFn: changeAccess, prepareFn: prepareChangeStep})
}
