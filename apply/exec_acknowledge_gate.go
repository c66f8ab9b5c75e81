package apply

import (
	"github.com/openshift-recover/recover/plan/planfile"
)

// acknowledge-gate: a JSON merge patch of one object, its pre-image journaled first
// (change.go prepareChange).
func init() {
	registerExecutor(planfile.ActionAcknowledgeGate, execFuncs{accessFn: changeAccess, prepareFn: prepareChangeStep})
}
