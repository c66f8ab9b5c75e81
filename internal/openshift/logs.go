package openshift

// The pods whose logs recover reads as evidence, and their containers (the
// components' manifests: cluster-version-operator
// install/0000_00_cluster-version-operator_30_deployment.yaml, machine-config-operator
// manifests/machineconfigdaemon/daemonset.yaml and
// manifests/machineconfigcontroller/deployment.yaml, library-go
// pkg/operator/staticpod/controller/installer/manifests/installer-pod.yaml,
// cluster-machine-approver manifests/04-deployment.yaml).
const (
	// CVOContainer is the CVO's container in its Deployment's pods.
	CVOContainer = "cluster-version-operator"
	// MachineConfigDaemonContainer is the daemon's container in the
	// machine-config-daemon DaemonSet's pods (one per node).
	MachineConfigDaemonContainer = "machine-config-daemon"
	// MachineConfigDaemonPodSelector selects the daemon's pods.
	MachineConfigDaemonPodSelector = "k8s-app=machine-config-daemon"
	// MachineConfigControllerContainer is the controller's container (and the
	// Deployment's name) in MachineConfigDaemonNamespace; it drains the nodes since
	// 4.11.
	MachineConfigControllerContainer = "machine-config-controller"
	// InstallerContainer is the only container of a static-pod installer pod.
	InstallerContainer = "installer"
	// MachineApproverNamespace runs the machine approver, which approves the
	// nodes' certificate signing requests.
	MachineApproverNamespace = "openshift-cluster-machine-approver"
	// MachineApproverContainer is the approver's container.
	MachineApproverContainer = "machine-approver-controller"
)
