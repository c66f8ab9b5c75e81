// Package insights collects an inspect.Snapshot from an Insights operator archive:
// a directory (or .tar.gz) in the insights-operator layout, whose files hold JSON,
// with or without a .json extension:
//
//	config/version[.json]                                  ClusterVersion
//	config/clusteroperator/<name>[.json]                   ClusterOperators
//	config/clusteroperator/operator.openshift.io/<kind>/cluster.json   operator CRs
//	config/node/<name>.json                                Nodes (often without kind)
//	config/machineconfigpools/<name>.json                  MachineConfigPools
//	config/machineconfigs/<name>.json                      MachineConfigs
//	config/featuregate[.json], config/infrastructure[.json]
//	config/pod/<namespace>/<name>.json                     pods with failing containers only
//
// and the wedge facts it gathers (insights-operator pkg/gatherers/clusterconfig):
//
//	config/pdbs/<namespace>/<name>.json                    PodDisruptionBudgets (openshift-* only in newer releases)
//	config/certificatesigningrequests/<name>.json          CSRs without a valid certificate, anonymized
//	config/machines/<namespace>/<name>.json                Machines (4.11.29+)
//	config/validatingwebhookconfigurations/<name>.json     and mutatingwebhookconfigurations (4.10+)
//	config/configmaps/openshift-config/admin-acks/<key>    one file per key (4.7+ layout)
//	config/clusteroperator/operator.openshift.io/cloudcredential/cluster.json
//
// and, where it has any, the logs of the pods of degraded operators' namespaces
// (logs.go), scanned line by line as evidence.
//
// An Insights archive never holds Deployments, and only the pods of failing
// containers, so those are recorded as Absent (pods found are still used) and
// static-pod revisions and operator versions cannot be verified from it. Nor does
// it hold the admin-gates ConfigMap, APIRequestCounts (only while an alert fires,
// elsewhere), admission policies, EndpointSlices or Secrets: those are Absent too.
package insights
