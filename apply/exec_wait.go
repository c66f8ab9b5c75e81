package apply

import "github.com/openshift-recover/recover/plan"

// wait: nothing to change; the engine waits for the step's gate.
func init() {
	registerExecutor(plan.ActionWait, execFuncs{})
}
