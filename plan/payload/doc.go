// Package payload reads OpenShift release payloads the way the cluster-version
// operator (CVO) reads them, decides which manifests a given cluster applies, and
// orders them as the CVO does when it updates.
//
// A payload is an `oc adm release extract` directory (manifests/: the CVO's own
// manifests, Go templates rendered with ReleaseImage, ClusterProfile and Images;
// release-manifests/: every operator's manifests plus release-metadata and
// image-references), or a release image pulled by digest through
// go-containerregistry and extracted into an on-disk cache (Pull).
//
// Loading (LoadDir, Load) parses every .yaml, .yml and .json file of both
// directories in os.ReadDir order (manifests/ first), splits multi-document files,
// takes the run-level and component from the file name with the CVO's regular
// expression ^0000_(\d+)_([a-zA-Z0-9]+(-[a-zA-Z0-9]+)*?)_ (files that do not match
// keep their place), and decides inclusion with the rules of library-go's
// manifest.Include, in its order (see Inclusion and Decide). Every manifest carries
// its Decision: included or excluded, the rule, and why.
//
// Order is the CVO's update order (ByNumberAndComponent after SplitOnJobs): stages
// run one after another; the groups of a stage (one per component of a run-level)
// may run in parallel; the manifests of a group run in file order; every batch/v1 Job
// is a stage of its own; adjacent single-component chunks merge into one serial
// group. Run-levels are read from each payload, never assumed.
//
// The package imports nothing of recover's: callers fill Inclusion from whatever
// describes the cluster.
package payload
