package apply

import (
	"github.com/openshift-recover/recover/plan/planfile"
)

// force-redeployment: a JSON merge patch of one object, its pre-image journaled first
// (change.go prepareChange).
func init() {
	registerExecutor(planfile.ActionForceRedeployment, execFuncs{accessFn: changeAccess, prepareFn: prepareChangeStep})
}
