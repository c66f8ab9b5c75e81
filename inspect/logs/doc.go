// Package logs reads the components' own logs as evidence: it scans a container
// log line by line (never holding more than one line) and keeps only the lines
// that prove why an update is stuck, parsed into inspect.LogEntry records.
//
// Every log recover reads is klog text, `Lmmdd hh:mm:ss.uuuuuu threadid
// file:line] message`, with or without the RFC 3339 time `oc adm inspect` (and
// `kubectl logs --timestamps`) writes in front; lines without a klog header (the
// YAML an installer prints after "Writing a pod under ...") are counted and
// skipped. A klog time has no year: it is resolved against the time the source
// was collected (inspect.ResolveLogYear), the RFC 3339 prefix has one.
//
// One file per component's line family, each naming the source lines it reads:
//
//   - cvo.go: the cluster-version operator (openshift/cluster-version-operator
//     pkg/cvo/sync_worker.go, pkg/payload/task.go, pkg/payload/task_graph.go,
//     pkg/verify, cmd/start.go), and the BZ1838497 sequence: an Updating sync
//     whose work was cancelled or timed out, followed by a Reconciling sync of the
//     same payload and generation.
//   - mco.go: the machine-config daemon and controller
//     (openshift/machine-config-operator pkg/daemon/writer.go, pkg/daemon/drain.go,
//     pkg/controller/drain/drain_controller.go, and the eviction lines of
//     k8s.io/kubectl/pkg/drain/drain.go they vendor).
//   - installer.go: the static-pod installer (openshift/library-go
//     pkg/operator/staticpod/installerpod/cmd.go).
//   - approver.go: the machine approver (openshift/cluster-machine-approver
//     pkg/controller/controller.go and csr_check.go).
//
// Scanning is bounded: a file is read up to Limits.MaxBytes, a line is cut at
// Limits.MaxLineBytes, and a file keeps at most Limits.MaxEntries distinct entries
// (repeats of one entry are counted, not kept). It runs near the speed of reading
// the bytes: a line is classified by its first bytes and parsed only when it
// matches (BenchmarkScan).
package logs
