package live

import "github.com/openshift-recover/recover/inspect"

// Read is one permission the live source needs: Verbs on Resource in
// Namespace ("" for every namespace, or a cluster-scoped type).
type Read struct {
	Resource  inspect.Resource
	Namespace string
	Verbs     []string
}

// ReadOptions select the reads.
type ReadOptions struct {
	// ForFingerprint keeps only what inspect.Snapshot.Fingerprint digests: it
	// leaves out the Secrets, whose metadata tells only certificate expiry,
	// which the fingerprint does not digest (and whose list would return their
	// data too: a run that only checks a plan's fingerprint has no use for it).
	ForFingerprint bool
}

// Reads is the one list of what the live source reads, as the permissions an
// identity needs for a complete snapshot: the fleet's inspect Job
// (apply/fleet/export) and the staleness check of a run inside the cluster
// (apply/incluster, ForFingerprint) are granted exactly these.
//
// The live source only lists (paged), so the verb is list. A read of anything
// but Secrets and ConfigMaps is granted in every namespace, even where the
// source lists one namespace only: such reads reveal nothing a namespace
// boundary protects, and a Role in a namespace a cluster's capabilities leave
// out (no openshift-machine-api) could not be created. Secrets and ConfigMaps
// stay in the namespaces the source reads them in. Each resource comes once,
// in the catalog's order.
//
// TestAWaveOnARealAPIServer (apply/fleet/export) collects a live snapshot with
// these reads and nothing else and finds no resource forbidden;
// TestInClusterRunChecksStalenessWithItsRBAC (apply) computes the fingerprint
// with the ForFingerprint reads.
func Reads(o ReadOptions) []Read {
	var out []Read
	seen := map[inspect.ResourceIn]bool{}
	add := func(r inspect.Resource, ns string) {
		if o.ForFingerprint && r == inspect.ResSecrets {
			return
		}
		if r != inspect.ResSecrets && r != inspect.ResConfigMaps {
			ns = ""
		}
		k := inspect.ResourceIn{Resource: r, Namespace: ns}
		if seen[k] {
			return
		}
		seen[k] = true
		out = append(out, Read{Resource: r, Namespace: ns, Verbs: []string{"list"}})
	}
	for _, r := range inspect.ClusterResources {
		add(r, "")
	}
	add(inspect.ResDeployments, "")
	for _, c := range inspect.StaticPodComponents {
		add(inspect.ResPods, c.Namespace)
	}
	for _, r := range inspect.WedgeResources() {
		add(r.Resource, r.Namespace)
	}
	return out
}
