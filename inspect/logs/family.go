package logs

import (
	"strings"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
)

// FamilyOf returns the family of a container's log (inspect.LogFamily*), or ""
// for a log recover does not read: the CVO's, the machine-config daemons' and
// controller's, the static-pod installers' and the machine approver's.
func FamilyOf(namespace, pod, container string) string {
	switch {
	case namespace == openshift.CVONamespace && container == openshift.CVOContainer:
		return inspect.LogFamilyCVO
	case namespace == openshift.MachineConfigDaemonNamespace && container == openshift.MachineConfigDaemonContainer:
		return inspect.LogFamilyMachineConfigDaemon
	case namespace == openshift.MachineConfigDaemonNamespace && container == openshift.MachineConfigControllerContainer:
		return inspect.LogFamilyMachineConfigController
	case namespace == openshift.MachineApproverNamespace && container == openshift.MachineApproverContainer:
		return inspect.LogFamilyMachineApprover
	case container == openshift.InstallerContainer && strings.HasPrefix(pod, "installer-"):
		if c := inspect.StaticPodComponentFor(namespace); c != nil && c.Namespace == namespace {
			return inspect.LogFamilyInstaller
		}
	}
	return ""
}

// Namespaces are the namespaces whose logs recover reads, in a fixed order: the
// CVO's, the machine-config operator's, the static-pod operands' and the machine
// approver's. Each gets one provenance record.
func Namespaces() []string {
	out := []string{openshift.CVONamespace, openshift.MachineConfigDaemonNamespace}
	for _, c := range inspect.StaticPodComponents {
		out = append(out, c.Namespace)
	}
	return append(out, openshift.MachineApproverNamespace)
}

// newParser returns the parser of a family.
func newParser(family string) parser {
	switch family {
	case inspect.LogFamilyCVO:
		return &cvoParser{}
	case inspect.LogFamilyMachineConfigDaemon, inspect.LogFamilyMachineConfigController:
		return &mcoParser{}
	case inspect.LogFamilyInstaller:
		return &installerParser{}
	case inspect.LogFamilyMachineApprover:
		return &approverParser{}
	}
	return nil
}
