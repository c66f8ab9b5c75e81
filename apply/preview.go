package apply

import (
	"context"
	"fmt"

	"github.com/openshift-recover/recover/apply/gate"
	"github.com/openshift-recover/recover/apply/resource"
	"github.com/openshift-recover/recover/plan"
)

// Preview prepares one step's change against the live cluster, sent as a
// server-side dry run, and returns what the step would do and its diff. It runs no
// preflight, takes no lock, writes no journal and changes nothing: it is for a
// front end's plan view. Steps whose prerequisites an earlier step creates (a
// namespace, a CRD) may fail to preview until those steps ran.
func (e *Engine) Preview(ctx context.Context, p *plan.Plan, stepID string) (*ChangeInfo, error) {
	var s *plan.Step
	for i := range p.Steps {
		if p.Steps[i].ID == stepID {
			s = &p.Steps[i]
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
	var m *mutation
	switch s.Action {
	case plan.ActionWait:
		return &ChangeInfo{Operation: "wait", Object: gate.Describe(s.Gate), DryRun: true}, nil
	case plan.ActionApply, plan.ActionDelete:
		// The CVO deployment keeps its replicas while the CVO is disabled: assume so.
		r.cvoDisabled = true
		m, err = r.prepareManifest(ctx, s)
	case plan.ActionDisableCVO:
		m, err = r.prepareDisableCVO(ctx)
	case plan.ActionRestoreCVO:
		m, err = r.prepareRestoreCVO(ctx)
	case plan.ActionPausePool, plan.ActionUnpausePool:
		m, err = r.preparePaused(ctx, s.Pool, s.Action == plan.ActionPausePool)
	case plan.ActionSetDesiredUpdate:
		m, err = r.prepareDesiredUpdate(ctx, s.DesiredUpdate)
	default:
		return nil, fail(OutcomeBadInput, "step %s: unknown action %q", s.ID, s.Action)
	}
	if err != nil {
		return nil, fmt.Errorf("previewing step %s: %w", s.ID, err)
	}
	return &ChangeInfo{Operation: m.op, Object: m.object, Diff: m.diff, DryRun: true}, nil
}
