// Package resource applies one plan manifest the way the cluster-version
// operator (CVO) does, through the dynamic client and a cached REST mapper.
//
// Merge restates the CVO's rules (cluster-version-operator main: pkg/cvo/cvo.go,
// lib/resourcebuilder, lib/resourceapply, lib/resourcemerge,
// pkg/cvo/internal/generic.go and operatorstatus.go), one file per kind
// (merge_<kind>.go), each rule citing the function it restates: the CVO's owner
// reference, the delete and create-only annotations as the CVO reads them
// (internal/openshift), the per-kind modifications (proxy, the CVO's own API
// endpoint), creation as the kind's Go type prints it (a ClusterOperator
// pre-created with its relatedObjects), and the per-kind merge into the live
// object, or the generic rule for kinds the CVO has no typed builder for. What
// the manifest does not name stays the live object's: injected CA bundles,
// allocated Service addresses, an administrator's restartedAt.
//
// Every change is prepared first (Prepare): the live object is read, Merge
// decides, the change is sent as a server-side dry run, and the dry run's result
// is diffed against the live object, so "unchanged" means the CVO would write
// nothing or the API server itself would store nothing new. Commit then makes
// the change. Secret values never appear in diffs: they are replaced by their
// sha256. The CVO's own results on the real payload (../shared/referee) are the
// tests' referee (merge_referee_test.go).
package resource
