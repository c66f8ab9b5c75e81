package incluster

import (
	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/inspect"
)

// FingerprintAccess is what the staleness check reads: it collects a live
// snapshot with inspect's live source and compares its fingerprint with the
// plan's, so it needs every read of inspect's catalog whose absence would change
// the fingerprint: the cluster-scoped types (inspect.ClusterResources), the
// Deployments and Pods across namespaces (operators, the CVO, static pods and
// the pods of drains) and the wedge facts (inspect.WedgeResources) except the
// Secrets, whose metadata only tells certificate expiry, which the fingerprint
// leaves out. Read only: get and list.
//
// The list is built from inspect's catalog, not from inspect/live's jobs;
// apply's TestInClusterRunChecksStalenessWithItsRBAC holds the two to one
// answer: a ServiceAccount with these reads computes the admin's fingerprint,
// one without them does not.
func FingerprintAccess() []apply.Access {
	var out []apply.Access
	add := func(r inspect.Resource, ns string) {
		for _, v := range []string{"get", "list"} {
			out = append(out, apply.Access{Verb: v, Group: r.Group, Resource: r.Resource, Namespace: ns})
		}
	}
	for _, r := range inspect.ClusterResources {
		add(r, "")
	}
	add(inspect.ResDeployments, "")
	add(inspect.ResPods, "")
	for _, r := range inspect.WedgeResources() {
		if r.Resource == inspect.ResSecrets {
			continue
		}
		add(r.Resource, r.Namespace)
	}
	return out
}
