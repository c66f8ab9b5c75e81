package apply

import (
	"context"

	"github.com/openshift-recover/recover/plan"
)

// prepareApproveCSR prepares an approve-csr step.
func (r *run) prepareApproveCSR(_ context.Context, s *plan.Step) (*mutation, error) {
	return nil, refuse(s, "approve-csr is not available in this build")
}
