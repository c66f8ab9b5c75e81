// Package live collects an inspect.Snapshot from a running cluster.
//
// It lists every resource type inspect reads once, concurrently, with pagination
// (limit and continue), through the typed clients of k8s.io/client-go and
// github.com/openshift/client-go, and the metadata client for MachineConfigs (whose
// bodies are large and unneeded) and Secrets (whose data must never be requested:
// their LISTs accept nothing but PartialObjectMetadataList). A second phase,
// once the first has finished, lists what depends on it: the pods of drains
// cluster-wide, only when some node has drain trouble and some
// PodDisruptionBudget exists, and the EndpointSlices of the services webhooks
// call, with one set-based label selector. The number of requests depends on
// the number of resource types (and pages), never on the number of objects:
// there are no per-object GETs. Core resources travel as protobuf.
//
// A third phase reads the components' logs through pods/log (logs.go): only the
// pods that matter (the CVO's, the machine-config daemons of the nodes that are
// not settled and the controller, each node's latest installer, the machine
// approver), bounded by limitBytes and tailLines, scanned line by line as they
// stream, with timestamps asked for so every line has its date.
//
// A resource the user may not read is recorded as Forbidden and inspection goes on;
// one the cluster does not serve (no Machine API on UPI, no APIRequestCount before
// 4.8) is recorded as NotFound;
// a cluster that does not serve config.openshift.io ClusterVersion is not an
// OpenShift cluster and Collect fails with *NotOpenShiftError.
package live
