package inspect

// The provenance keys of the wedge facts (snapshot formatVersion 1.1), as the
// sources record them (WedgeResources): a check that reads a fact asks
// collectedIn first, so a fact that was not collected keeps it silent instead of
// reading as empty.
var (
	keyPDBs            = ResPodDisruptionBudgets.Key()
	keyPods            = ResPods.Key()
	keyCSRs            = ResCertificateSigningRequests.Key()
	keyMachines        = ResMachines.Key()
	keyConfigMaps      = ResConfigMaps.Key()
	keyAPIRequestCount = ResAPIRequestCounts.Key()
	keyValidatingWH    = ResValidatingWebhookConfigurations.Key()
	keyMutatingWH      = ResMutatingWebhookConfigurations.Key()
	keyVAPs            = ResValidatingAdmissionPolicies.Key()
	keyEndpointSlices  = ResEndpointSlices.Key()
)
