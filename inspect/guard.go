package inspect

import "github.com/openshift-recover/recover/internal/openshift"

// GuardOf returns the static-pod component whose control-plane guard the
// PodDisruptionBudget ns/name is, or nil: the one answer to "is this a guard
// PDB" that inspect's findings, the planner, its checker and apply's plan
// validation all ask.
//
// A guard PDB is what library-go's guard controller makes
// (pkg/operator/staticpod/controller/guard: getGuardPDBName gives
// "<podResourcePrefix>-guard-pdb", created in the operand's target namespace),
// and the guard controller runs in the four static-pod operators only; or
// etcd's pre-4.11 etcd-quorum-guard (openshift-etcd, or
// openshift-machine-config-operator where the MCO shipped it). A budget of
// another namespace whose name only ends in "-guard-pdb" (a user's
// shop/web-guard-pdb) is an ordinary budget.
func GuardOf(ns, name string) *StaticPodComponent {
	for i := range StaticPodComponents {
		c := &StaticPodComponents[i]
		if ns == c.Namespace && name == openshift.GuardPDBName(c.PodPrefix) {
			return c
		}
	}
	if name == openshift.EtcdQuorumGuard && (ns == "openshift-etcd" || ns == openshift.MachineConfigDaemonNamespace) {
		return StaticPodComponentFor("etcd")
	}
	return nil
}

// IsGuardPDB reports whether the PodDisruptionBudget ns/name is a
// control-plane guard (GuardOf), which recover never relaxes.
func IsGuardPDB(ns, name string) bool { return GuardOf(ns, name) != nil }
