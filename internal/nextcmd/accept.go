package nextcmd

// The --accept names of the admin's promises, spelled once for the findings
// that suggest them (inspect), the planner that asks for them (plan's action
// registry) and the docs. A risk name keeps its update-service form, which is
// also the name the cluster gives it (ClusterVersion
// status.conditionalUpdateRisks[].name, conditionalUpdates[].riskNames) and
// the one `oc adm upgrade accept` writes to spec.desiredUpdate.acceptRisks
// (openshift/oc pkg/cli/admin/upgrade/accept); a remedy name is a lowercase
// prefix, and for some a colon and what it is about.
const (
	// AcceptForceRedeployment + "<component>": a new forceRedeploymentReason
	// on a static-pod operator.
	AcceptForceRedeployment = "force-redeployment:"
	// AcceptAdminAck + "<gate key>": acknowledge an admin gate.
	AcceptAdminAck = "admin-ack:"
	// AcceptRemoveOverrides: remove ClusterVersion spec.overrides.
	AcceptRemoveOverrides = "remove-overrides"
	// AcceptUpgradeableTo + "<major.minor>": the cloud-credential
	// upgradeable-to annotation.
	AcceptUpgradeableTo = "upgradeable-to:"
)

// OCAcceptRisks is oc's command that accepts conditional-update risks in the
// cluster (it merges the names into spec.desiredUpdate.acceptRisks), for a
// comma-separated list of risk names.
func OCAcceptRisks(names string) string {
	return "oc adm upgrade accept " + names
}

// PlanAccepting is the plan command that takes the admin's promise name.
func PlanAccepting(name string) string {
	return "recover plan --accept " + name
}
