package live

import "github.com/openshift-recover/recover/inspect"

// Reads lists every resource type the live source lists, with the namespace it
// lists it in ("" for every namespace, or a cluster-scoped type): what an
// identity needs to read for a complete snapshot (verbs: ReadVerbs). The
// fleet's inspect and apply Jobs get these permissions
// (apply/fleetexport.InspectAccess); TestAWaveOnARealAPIServer there collects a
// live snapshot with nothing else and finds no resource forbidden.
func Reads() []inspect.ResourceIn {
	var out []inspect.ResourceIn
	for _, r := range inspect.ClusterResources {
		out = append(out, inspect.ResourceIn{Resource: r})
	}
	out = append(out, inspect.ResourceIn{Resource: inspect.ResDeployments})
	for _, c := range inspect.StaticPodComponents {
		out = append(out, inspect.ResourceIn{Resource: inspect.ResPods, Namespace: c.Namespace})
	}
	return append(out, inspect.WedgeResources()...)
}

// ReadVerbs are the verbs a read of r needs: list for Secrets (metadata only,
// never get, which would return their data), get, list and watch otherwise.
func ReadVerbs(r inspect.Resource) []string {
	if r == inspect.ResSecrets {
		return []string{"list"}
	}
	return []string{"get", "list", "watch"}
}
