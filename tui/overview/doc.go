// Package overview is the Overview screen: why the cluster is stuck (inspect's
// ranked wedge summary: what blocks the update first, and the next command),
// then the cluster's claim (ClusterVersion) beside the reality (what runs), ClusterOperators grouped by version and marked
// by their distance to the plan's target, nodes by kubelet version, static pods
// whose claimed revision differs from the running one, and the findings by
// severity with their class (BLOCKS the update, or informs) and evidence,
// filterable with /.
//
// Everything shown comes from the inspect.Snapshot as inspect analyzed it (its
// Summary, Wedges and Findings, and inspect's own static-pod and kubelet-skew
// checks); the screen never changes the snapshot and computes nothing a
// recovery depends on.
package overview
