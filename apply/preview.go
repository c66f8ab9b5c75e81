package apply

import (
	"context"
	"fmt"

	"github.com/openshift-recover/recover/apply/gate"
	"github.com/openshift-recover/recover/apply/resource"
	"github.com/openshift-recover/recover/plan/planfile"
)

// Preview prepares one step's change against the live cluster, sent as a
// server-side dry run, and returns what the step would do and its diff. It runs no
// preflight, takes no lock, writes no journal and changes nothing: it is for a
// front end's plan view. Steps whose prerequisites an earlier step creates (a
// namespace, a CRD) may fail to preview until those steps ran.
func (e *Engine) Preview(ctx context.Context, p *planfile.Plan, stepID string) (*ChangeInfo, error) {
	var s *planfile.Step
	for _, rs := range planfile.RunOrder(p) {
		if rs.Step.ID == stepID {
			s = rs.Step
		}
	}
	if s == nil {
		return nil, fail(OutcomeBadInput, "the plan has no step %q", stepID)
	}
	r := newRun(e, p, Options{DryRun: true}, nil)
	cv, err := r.readClusterVersion(ctx)
	if err != nil {
		return nil, err
	}
	r.applier = resource.NewApplier(e.dyn, e.mapper, resource.Owner(cv.UID))
	if s.Spec().WaitOnly {
		return &ChangeInfo{Operation: "wait", Object: gate.Describe(s.Gate), DryRun: true}, nil
	}
	// The CVO deployment keeps its replicas while the CVO is disabled: assume so.
	r.cvoDisabled = true
	m, err := r.prepare(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("previewing step %s: %w", s.ID, err)
	}
	return m.changeInfo(true), nil
}
