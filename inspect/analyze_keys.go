package inspect

// The provenance keys of the wedge facts (snapshot formatVersion 1.1), as the
// sources record them: a check that reads a fact asks collectedIn first, so a fact
// that was not collected keeps it silent instead of reading as empty.
const (
	keyPDBs            = "poddisruptionbudgets.policy"
	keyPods            = "pods"
	keyCSRs            = "certificatesigningrequests.certificates.k8s.io"
	keyMachines        = "machines.machine.openshift.io"
	keyConfigMaps      = "configmaps"
	keyAPIRequestCount = "apirequestcounts.apiserver.openshift.io"
	keyValidatingWH    = "validatingwebhookconfigurations.admissionregistration.k8s.io"
	keyMutatingWH      = "mutatingwebhookconfigurations.admissionregistration.k8s.io"
	keyVAPs            = "validatingadmissionpolicies.admissionregistration.k8s.io"
	keyEndpointSlices  = "endpointslices.discovery.k8s.io"
)
