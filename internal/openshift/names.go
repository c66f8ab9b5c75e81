package openshift

import (
	"fmt"
	"strings"
)

// The cluster-version operator (cluster-version-operator pkg/internal/constants.go;
// enhancements dev-guide/cluster-version-operator/dev/clusterversion.md).
const (
	// CVONamespace and CVODeployment name the CVO's Deployment.
	CVONamespace  = "openshift-cluster-version"
	CVODeployment = "cluster-version-operator"
	// CVOPodSelector is the label of the CVO's pods, used when the Deployment
	// cannot be read.
	CVOPodSelector = "k8s-app=cluster-version-operator"
	// CVOComponent is the payload component of the CVO's own manifests.
	CVOComponent = "cluster-version-operator"
	// ClusterVersionName is the ClusterVersion singleton.
	ClusterVersionName = "version"
	// SingletonName is the name of the config.openshift.io and operator.openshift.io
	// singletons (FeatureGate, Infrastructure, KubeAPIServer, ...).
	SingletonName = "cluster"
)

// KubeAPIServer names the kube-apiserver: its ClusterOperator, its operand
// version in that ClusterOperator's status.versions, and its static-pod component.
const KubeAPIServer = "kube-apiserver"

// MachineConfigOperator is the machine-config ClusterOperator, which reports its
// new version only once the required pools (master) rolled out.
const MachineConfigOperator = "machine-config"

// PoolMaster is the control-plane MachineConfigPool. The MCO always waits for it
// (machine-config-operator pkg/operator/sync.go syncRequiredMachineConfigPools);
// it carries LabelRequiredForUpgradePool, but snapshots of old releases may not.
const PoolMaster = "master"

// Release manifest annotations (cluster-version-operator lib/resourcebuilder,
// pkg/payload; enhancements dev-guide/cluster-version-operator/dev/operators.md).
const (
	AnnotationCreateOnly   = "release.openshift.io/create-only"
	AnnotationDelete       = "release.openshift.io/delete"
	AnnotationFeatureSet   = "release.openshift.io/feature-set"
	AnnotationFeatureGate  = "release.openshift.io/feature-gate"
	AnnotationMajorVersion = "release.openshift.io/major-version"
	// ReleaseAnnotationInfix marks the include./exclude.release.openshift.io/
	// annotations a snapshot keeps.
	ReleaseAnnotationInfix = "release.openshift.io/"
)

// CreateOnly reports whether a manifest's annotations make the CVO create the
// object when it is missing and never update it: release.openshift.io/create-only
// is "true" in any case, as the CVO reads it (cluster-version-operator
// lib/resourceapply/interface.go IsCreateOnly: strings.EqualFold). Every layer
// asks here: the payload loader, the checker, apply's plan validation and its
// applier.
func CreateOnly(annotations map[string]string) bool {
	return strings.EqualFold(annotations[AnnotationCreateOnly], "true")
}

// DeleteAnnotation reads release.openshift.io/delete as the CVO does
// (cluster-version-operator lib/resourcedelete/helper.go ValidDeleteAnnotation):
// absent is no delete; "true" (exactly) is a delete; any other value is an error
// (the CVO fails the manifest).
func DeleteAnnotation(annotations map[string]string) (bool, error) {
	v, ok := annotations[AnnotationDelete]
	switch {
	case !ok:
		return false, nil
	case v != "true":
		return true, fmt.Errorf("annotation %s=%q: the only valid value is \"true\"", AnnotationDelete, v)
	}
	return true, nil
}

// DeleteAnnotated reports whether a manifest's annotations ask the CVO to delete
// the object: release.openshift.io/delete=true, the only value the CVO accepts
// (DeleteAnnotation says why another value is an error).
func DeleteAnnotated(annotations map[string]string) bool {
	del, err := DeleteAnnotation(annotations)
	return del && err == nil
}

// Node role labels. Control-plane nodes carry master (every release) or
// control-plane (4.9 and later), or both.
const (
	LabelNodeRolePrefix         = "node-role.kubernetes.io/"
	LabelNodeRoleMaster         = LabelNodeRolePrefix + "master"
	LabelNodeRoleControl        = LabelNodeRolePrefix + "control-plane"
	RoleMaster                  = "master"
	RoleControlPlane            = "control-plane"
	LabelRequiredForUpgradePool = "operator.machineconfiguration.openshift.io/required-for-upgrade"
)

// ControlPlaneLabels pick the nodes a static-pod operand runs on.
var ControlPlaneLabels = []string{LabelNodeRoleMaster, LabelNodeRoleControl}

// IsControlPlaneRole reports whether a node role (the part after
// node-role.kubernetes.io/) is a control-plane role.
func IsControlPlaneRole(role string) bool { return role == RoleMaster || role == RoleControlPlane }
