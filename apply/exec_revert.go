package apply

import (
	"github.com/openshift-recover/recover/plan/planfile"
)

// revert: write back the pre-image journaled before the step it reverts
// (change.go prepareRevert); it needs what that step's change needed.
func init() {
	registerExecutor(planfile.ActionRevert, execFuncs{
		accessFn: func(p *planfile.Plan, s *planfile.Step, mapKind KindMapper) ([]Access, error) {
			t, err := revertTarget(p, s)
			if err != nil {
				return nil, err
			}
			return changeAccess(p, t, mapKind)
		},
		prepareFn: prepareRevertStep,
	})
}
