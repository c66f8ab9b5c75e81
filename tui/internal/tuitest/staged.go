package tuitest

import (
	"github.com/openshift-recover/recover/internal/testing/stagedplan"
	"github.com/openshift-recover/recover/plan"
)

// StagedPlan is stagedplan.EUS: three stages, the middle one paused.
func StagedPlan() *plan.Plan { return stagedplan.EUS() }
