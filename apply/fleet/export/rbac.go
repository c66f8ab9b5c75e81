package export

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/incluster"
	"github.com/openshift-recover/recover/inspect/live"
)

// InspectAccess is what the inspect Job needs: read everything the live source
// reads (live.Reads) and keep the verdict and the plan in its namespace
// (incluster.VerdictAccess).
func InspectAccess(ns string) []apply.Access {
	return append(incluster.ReadAccess(live.Reads(live.ReadOptions{})), incluster.VerdictAccess(ns)...)
}

// roles grants accesses to the ServiceAccount sa of the spoke namespace, as
// recover apply --print-rbac grants a run's (incluster.Roles): a ClusterRole
// and Roles named sa. Every namespace of a Role exists on an OpenShift
// cluster: the run's own (the template creates it), those of the objects a
// remediation plan changes, and those inspect reads Secrets and ConfigMaps in.
func roles(o Options, sa, component string, accesses []apply.Access) []runtime.Object {
	l := labels(o)
	l["app.kubernetes.io/component"] = component
	return incluster.Roles(accesses, incluster.RBACOptions{Namespace: o.Namespace, ServiceAccount: sa, Name: sa, Labels: l})
}
