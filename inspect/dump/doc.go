// Package dump collects an inspect.Snapshot from files of `oc get ... -o yaml` or
// `-o json` output: single objects, Lists, or multi-document YAML, in any mix, as a
// support case or a runbook often has them
// (`oc get clusterversion,clusteroperators,machineconfigpools,nodes -o yaml > cluster.yaml`).
//
// Objects are recognised by kind; kinds inspect does not read are skipped. A
// resource type no file holds is recorded as Absent. The wedge facts' kinds
// (PodDisruptionBudget, CertificateSigningRequest, Machine, ConfigMap,
// APIRequestCount, the webhook and policy kinds, EndpointSlice, Secret (metadata
// only), CloudCredential) are read the same way.
package dump
