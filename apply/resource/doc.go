// Package resource applies one plan manifest the way the cluster-version operator
// would (lib/resourcemerge, pkg/cvo/internal/generic.go), through the dynamic client
// and a cached REST mapper:
//
//   - create the object when it is absent;
//   - never update an object annotated release.openshift.io/create-only=true;
//   - otherwise copy the manifest's top-level fields (all but apiVersion, kind,
//     metadata and status) over the live object, merging labels and annotations
//     (added or overwritten, never removed);
//   - add an owner reference to ClusterVersion/version (controller unless
//     create-only), only when the object has no owner other than it;
//   - default a Deployment's missing spec.replicas to 1;
//   - delete manifests annotated release.openshift.io/delete=true, without waiting.
//
// Every change is prepared first (Prepare): the live object is read, the change is
// sent as a server-side dry run, and the dry run's result is diffed against the
// live object, so "unchanged" means the API server itself would store nothing new.
// Commit then makes the change. Secret values never appear in diffs: they are
// replaced by their sha256.
package resource
