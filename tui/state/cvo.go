package state

import (
	"fmt"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/inspect"
)

// CVOState is the cluster-version operator's state as the session knows it.
type CVOState int

// The CVO states.
const (
	// CVOUnknown: the snapshot did not collect the CVO Deployment.
	CVOUnknown CVOState = iota
	// CVORunning: running, as found.
	CVORunning
	// CVOFoundDisabled: found scaled to 0 by someone else (or an earlier run).
	CVOFoundDisabled
	// CVOScalingDown: this run is scaling it down.
	CVOScalingDown
	// CVODisabled: disabled by recover (this run, or the journal being resumed).
	CVODisabled
	// CVORestoring: this run is scaling it back up.
	CVORestoring
	// CVORestored: recover gave control back and the CVO runs again.
	CVORestored
)

// CVO is the CVO's state with its replica counts.
type CVO struct {
	State CVOState
	// Replicas is the current replicas; Original what it ran before recover
	// disabled it (nil when unknown).
	Replicas int32
	Original *int32
}

// Text is the state in words, as the header and the abort dialog say it.
func (c CVO) Text() string {
	orig := ""
	if c.Original != nil {
		orig = fmt.Sprintf(", ran %d before", *c.Original)
	}
	switch c.State {
	case CVORunning:
		return fmt.Sprintf("running (%d)", c.Replicas)
	case CVOFoundDisabled:
		return "found scaled to 0"
	case CVOScalingDown:
		return "scaling down (recover)"
	case CVODisabled:
		return "DISABLED by recover" + orig
	case CVORestoring:
		return "restoring (recover)"
	case CVORestored:
		return fmt.Sprintf("restored (%d)", c.Replicas)
	}
	return "unknown"
}

// Disabled reports whether the CVO is (being) held at 0 replicas by someone:
// the states the header shows as a danger.
func (c CVO) Disabled() bool {
	switch c.State {
	case CVODisabled, CVOScalingDown, CVOFoundDisabled:
		return true
	}
	return false
}

// Reconciling reports whether the CVO runs: as found, or restored by recover.
func (c CVO) Reconciling() bool {
	return c.State == CVORunning || c.State == CVORestored
}

// CVOFromSnapshot is the CVO's state as the snapshot found it.
func CVOFromSnapshot(s *inspect.Snapshot) CVO {
	if s == nil || s.CVO == nil {
		return CVO{State: CVOUnknown}
	}
	r := s.CVO.EffectiveReplicas()
	if r == 0 {
		return CVO{State: CVOFoundDisabled}
	}
	return CVO{State: CVORunning, Replicas: r}
}

// cvoFromEvent is the CVO's state after an engine CVO report; prev supplies
// the original replicas when the event does not.
func cvoFromEvent(c *apply.CVOInfo, prev CVO) CVO {
	orig := c.OriginalReplicas
	if orig == nil {
		orig = prev.Original
	}
	switch c.State {
	case apply.CVOScalingDown:
		return CVO{State: CVOScalingDown, Original: orig}
	case apply.CVODisabled:
		return CVO{State: CVODisabled, Original: orig}
	case apply.CVORestoring:
		return CVO{State: CVORestoring, Replicas: c.Replicas, Original: orig}
	case apply.CVORunning:
		return CVO{State: CVORestored, Replicas: c.Replicas, Original: orig}
	}
	return prev
}
