package openshift

import "strings"

// ManifestWait is what the CVO waits for after it applies a release manifest
// before it moves on in its order (cluster-version-operator lib/resourcebuilder
// and pkg/cvo/internal: the ClusterOperator builder waits for the operator's
// versions, the apps/v1 Deployment and DaemonSet builders for their rollout, the
// batch/v1 Job builder for completion; apiextensions.k8s.io CRDs are Established
// before later manifests may create their objects).
type ManifestWait int

// The waits, one per kind of gate a manifest step gets.
const (
	// WaitNone: the CVO applies the object and moves on.
	WaitNone ManifestWait = iota
	// WaitClusterOperator: a config.openshift.io ClusterOperator.
	WaitClusterOperator
	// WaitCRDEstablished: an apiextensions.k8s.io CustomResourceDefinition.
	WaitCRDEstablished
	// WaitRollout: an apps Deployment or DaemonSet (not the CVO's own Deployment,
	// which apply keeps at 0 replicas while the CVO is disabled).
	WaitRollout
	// WaitJobComplete: a batch/v1 Job, a barrier in the CVO's order.
	WaitJobComplete
)

// Group returns the API group of an apiVersion ("" for the core group).
func Group(apiVersion string) string {
	group, _, found := strings.Cut(apiVersion, "/")
	if !found {
		return ""
	}
	return group
}

// ManifestWaitFor says what the CVO waits for after applying the object
// (apiVersion, kind, namespace, name). The planner's gates and its checker's
// required gates both ask it.
func ManifestWaitFor(apiVersion, kind, namespace, name string) ManifestWait {
	group := Group(apiVersion)
	switch {
	case IsClusterOperator(apiVersion, kind):
		return WaitClusterOperator
	case kind == "CustomResourceDefinition" && group == "apiextensions.k8s.io":
		return WaitCRDEstablished
	case IsCVODeployment(apiVersion, kind, namespace, name):
		return WaitNone
	case (kind == "Deployment" || kind == "DaemonSet") && group == "apps":
		return WaitRollout
	case kind == "Job" && apiVersion == "batch/v1":
		return WaitJobComplete
	}
	return WaitNone
}

// IsCVODeployment reports whether the object is the CVO's own Deployment.
func IsCVODeployment(apiVersion, kind, namespace, name string) bool {
	return IsDeployment(apiVersion, kind) && namespace == CVONamespace && name == CVODeployment
}

// IsClusterOperator reports whether the object is a config.openshift.io
// ClusterOperator (a kind name alone could be any group's).
func IsClusterOperator(apiVersion, kind string) bool {
	return kind == "ClusterOperator" && Group(apiVersion) == "config.openshift.io"
}

// IsDeployment reports whether the object is an apps Deployment.
func IsDeployment(apiVersion, kind string) bool {
	return kind == "Deployment" && Group(apiVersion) == "apps"
}
