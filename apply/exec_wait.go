package apply

import (
	"github.com/openshift-recover/recover/plan/planfile"
)

// wait: nothing to change; the engine waits for the step's gate.
func init() {
	registerExecutor(planfile.ActionWait, execFuncs{})
}
