package common_test

import (
	"github.com/openshift-recover/recover/tui/applyview"
	"github.com/openshift-recover/recover/tui/common"
	"github.com/openshift-recover/recover/tui/overview"
	"github.com/openshift-recover/recover/tui/steps"
	"github.com/openshift-recover/recover/tui/target"
)

// Every screen is a Component.
var (
	_ common.Component = (*overview.Model)(nil)
	_ common.Component = (*target.Model)(nil)
	_ common.Component = (*steps.Model)(nil)
	_ common.Component = (*applyview.Model)(nil)
)
