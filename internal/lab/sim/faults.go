package sim

import (
	"errors"
	"fmt"
	"slices"
	"sync"
)

// FaultType names a fault the simulator can inject.
type FaultType string

// The faults.
const (
	// FaultDegraded: the ClusterOperator reports Degraded=True (with Reason and
	// Message) from the moment the fault is injected until it is cleared, whatever
	// else the operator does.
	FaultDegraded FaultType = "degraded"
	// FaultStuckRollout: the operator's rollout of a new release never finishes. A
	// plain operator stays Progressing=True and never reports the new versions; a
	// static-pod operator's installer on Node (the first node to roll when Node is
	// empty) stays Running; the machine-config daemon on Node (the first node to
	// update when empty) stays Working. Clearing the fault lets the rollout finish.
	FaultStuckRollout FaultType = "stuck-rollout"
	// FaultKubeletFalseSuccess: the kubelet bug of the second incident. When a
	// static-pod operator installs a revision on Node, the installer pod reports
	// Succeeded but the node keeps running the old revision (the mirror pod keeps its
	// revision label and image), while the operator records the new revision as
	// current in nodeStatuses and goes on.
	FaultKubeletFalseSuccess FaultType = "kubelet-false-success"
	// FaultInstallerFails: every installer pod of a static-pod operator for
	// Revision on Node ends Failed, with Message as its termination message
	// (the static-pod rollout stuck on a revision, W7). The operator records the
	// failures in nodeStatuses, goes Degraded (NodeInstaller_InstallerPodFailed)
	// and retries with library-go's backoff; a newer revision (a new
	// forceRedeploymentReason) installs.
	FaultInstallerFails FaultType = "installer-fails"
)

// faultTypes lists the fault types for error messages.
const faultTypes = "degraded, stuck-rollout, kubelet-false-success or installer-fails"

// Fault is one injected misbehaviour.
type Fault struct {
	Type FaultType `json:"type"`
	// ClusterOperator is the operator the fault affects.
	ClusterOperator string `json:"clusterOperator"`
	// Node is the node the fault affects (kubelet-false-success: required;
	// stuck-rollout: optional).
	Node string `json:"node,omitempty"`
	// Reason and Message are the Degraded condition's, for degraded faults;
	// Message is the installer's termination message for installer-fails.
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	// Revision is the static-pod revision whose installers fail
	// (installer-fails: required).
	Revision int32 `json:"revision,omitempty"`
}

// Validate checks that a fault names what its type needs.
func (f Fault) Validate() error {
	if f.ClusterOperator == "" {
		return fmt.Errorf("%s fault: clusterOperator is empty", f.Type)
	}
	switch f.Type {
	case FaultDegraded, FaultStuckRollout:
	case FaultKubeletFalseSuccess:
		if f.Node == "" {
			return fmt.Errorf("%s fault on %s: node is empty", f.Type, f.ClusterOperator)
		}
	case FaultInstallerFails:
		if f.Node == "" {
			return fmt.Errorf("%s fault on %s: node is empty (name the node whose installers fail)", f.Type, f.ClusterOperator)
		}
		if f.Revision <= 0 {
			return fmt.Errorf("%s fault on %s: revision is %d (name the revision whose installers fail, 1 or more)", f.Type, f.ClusterOperator, f.Revision)
		}
	case "":
		return errors.New("fault type is empty (want " + faultTypes + ")")
	default:
		return fmt.Errorf("unknown fault type %q (want %s)", f.Type, faultTypes)
	}
	if f.Revision != 0 && f.Type != FaultInstallerFails {
		return fmt.Errorf("%s fault on %s: revision applies to installer-fails faults only", f.Type, f.ClusterOperator)
	}
	return nil
}

// needsStaticPodOperator reports whether the fault only makes sense for a
// static-pod operator.
func (f Fault) needsStaticPodOperator() bool {
	return f.Type == FaultKubeletFalseSuccess || f.Type == FaultInstallerFails
}

// String is the fault in one line, for events.
func (f Fault) String() string {
	s := string(f.Type) + " on " + f.ClusterOperator
	if f.Node != "" {
		s += " node " + f.Node
	}
	if f.Revision != 0 {
		s += fmt.Sprintf(" revision %d", f.Revision)
	}
	return s
}

// faultSet holds the active faults; watchers are woken when it changes.
type faultSet struct {
	mu      sync.Mutex
	faults  []Fault
	changed chan struct{}
}

func newFaultSet(initial []Fault) *faultSet {
	return &faultSet{faults: slices.Clone(initial), changed: make(chan struct{})}
}

// add activates f (once).
func (fs *faultSet) add(f Fault) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if !slices.Contains(fs.faults, f) {
		fs.faults = append(fs.faults, f)
	}
	fs.notifyLocked()
}

// remove deactivates every fault equal to f, or every fault of f's type and
// operator when f has no node, reason or message. It reports whether any was active.
func (fs *faultSet) remove(f Fault) bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n := len(fs.faults)
	fs.faults = slices.DeleteFunc(fs.faults, func(g Fault) bool {
		if g == f {
			return true
		}
		return f.Node == "" && f.Reason == "" && f.Message == "" && g.Type == f.Type && g.ClusterOperator == f.ClusterOperator
	})
	if len(fs.faults) != n {
		fs.notifyLocked()
		return true
	}
	return false
}

func (fs *faultSet) notifyLocked() {
	close(fs.changed)
	fs.changed = make(chan struct{})
}

// watch returns a channel closed at the next change.
func (fs *faultSet) watch() <-chan struct{} {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.changed
}

// find returns the active fault of type t on operator co, for node (or for any
// node, and faults without a node, when node is "").
func (fs *faultSet) find(t FaultType, co, node string) (Fault, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, f := range fs.faults {
		if f.Type != t || f.ClusterOperator != co {
			continue
		}
		if node == "" || f.Node == "" || f.Node == node {
			return f, true
		}
	}
	return Fault{}, false
}

// list returns the active faults.
func (fs *faultSet) list() []Fault {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return slices.Clone(fs.faults)
}

// findInstallerFailure returns the installer-fails fault for operator co, node and
// revision, if one is active.
func (fs *faultSet) findInstallerFailure(co, node string, rev int32) (Fault, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, f := range fs.faults {
		if f.Type == FaultInstallerFails && f.ClusterOperator == co && f.Node == node && f.Revision == rev {
			return f, true
		}
	}
	return Fault{}, false
}
