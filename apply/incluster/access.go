package incluster

import (
	"sort"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/fleet/verdictstore"
	"github.com/openshift-recover/recover/inspect/live"
	"github.com/openshift-recover/recover/plan/planfile"
)

// AccessOptions describe a run inside the cluster for RunAccess.
type AccessOptions struct {
	// AccessOptions map the plan's kinds: the cluster's discovery
	// (apply.Engine.AccessOptions, recover apply --print-rbac) or inspect's
	// catalog (apply.CatalogKinds, a fleet hub that cannot reach the cluster).
	apply.AccessOptions
	// Namespace is the run's namespace: its plan and its journal.
	Namespace string
	// AllowStale: the run does not check the plan's fingerprint, so it needs
	// none of the staleness check's reads.
	AllowStale bool
	// VerdictNamespace is where the run keeps its progress in the verdict
	// (recover apply --verdict); "" for a run without.
	VerdictNamespace string
}

// PreflightAccess is what preflight itself uses to ask which permissions the
// run has: a SelfSubjectAccessReview per permission.
var PreflightAccess = []apply.Access{{Verb: "create", Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"}}

// RunAccess is every permission a run of p inside the cluster needs, the one
// list recover apply --print-rbac and the fleet's apply template
// (apply/fleet/export) grant: what preflight checks (apply.RequiredAccess: the
// lease, ClusterVersion, each step's and gate's permissions, plus the
// journal's ConfigMaps, JournalAccess), the SelfSubjectAccessReviews
// preflight asks with (PreflightAccess), the staleness check's reads unless
// AllowStale (FingerprintAccess), and the verdict's ConfigMaps with
// VerdictNamespace. Problems are the kinds that could not be mapped, one line
// each. Sorted, each permission once.
func RunAccess(p *planfile.Plan, o AccessOptions) ([]apply.Access, []string) {
	out, problems := apply.RequiredAccess(p, o.AccessOptions)
	if !o.DryRun {
		out = append(out, JournalAccess(o.Namespace)...)
	}
	out = append(out, PreflightAccess...)
	if !o.AllowStale {
		out = append(out, FingerprintAccess()...)
	}
	if o.VerdictNamespace != "" {
		out = append(out, VerdictAccess(o.VerdictNamespace)...)
	}
	return dedupe(out), problems
}

// JournalAccess is what a journal kept in the cluster needs in its namespace
// (JournalStore): read, create and patch ConfigMaps. The plan's ConfigMaps are
// read with the same get.
func JournalAccess(namespace string) []apply.Access {
	return configMapAccess(namespace, "get", "create", "patch")
}

// VerdictAccess is what keeping the verdict and its plan in namespace needs
// (apply/fleet/verdictstore.Store).
func VerdictAccess(namespace string) []apply.Access {
	return configMapAccess(namespace, verdictstore.Verbs...)
}

func configMapAccess(namespace string, verbs ...string) []apply.Access {
	out := make([]apply.Access, 0, len(verbs))
	for _, v := range verbs {
		out = append(out, apply.Access{Verb: v, Resource: "configmaps", Namespace: namespace})
	}
	return out
}

// FingerprintAccess is what the staleness check reads: it collects a live
// snapshot with inspect's live source and compares its fingerprint with the
// plan's, so it needs the live source's reads of what the fingerprint digests
// (live.Reads with ForFingerprint). apply's
// TestInClusterRunChecksStalenessWithItsRBAC holds it to that: a
// ServiceAccount with these reads computes the admin's fingerprint, one
// without them does not.
func FingerprintAccess() []apply.Access {
	return ReadAccess(live.Reads(live.ReadOptions{ForFingerprint: true}))
}

// ReadAccess turns the live source's reads into permissions.
func ReadAccess(reads []live.Read) []apply.Access {
	var out []apply.Access
	for _, r := range reads {
		for _, v := range r.Verbs {
			out = append(out, apply.Access{Verb: v, Group: r.Resource.Group, Resource: r.Resource.Resource, Namespace: r.Namespace})
		}
	}
	return out
}

func dedupe(access []apply.Access) []apply.Access {
	seen := make(map[apply.Access]bool, len(access))
	out := access[:0]
	for _, a := range access {
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}
