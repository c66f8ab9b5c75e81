// Package gate verifies the conditions a plan step waits for, against what the
// cluster actually runs, through watches (informers), not polling loops.
//
// Each gate kind is a set of watched sources (a ClusterOperator, a CRD, a workload,
// the mirror pods and nodes of a static-pod operand, a MachineConfigPool, the CVO's
// Deployment and pods, ClusterVersion) and a pure evaluation over their current
// objects that says whether the gate is met, has failed for good, or what is still
// pending. The evaluation runs again on every watch event, so a gate reacts as soon
// as its condition becomes true.
//
// Reported status is a claim (incident 2: a kubelet reported a failed installer as
// Succeeded): the static-pods gate therefore reads the revision label of every
// selected node's running mirror pod, not only the operator's nodeStatuses, and
// names the node that is behind when they disagree.
package gate
