// Package lock keeps two recover apply runs off one cluster: a
// coordination.k8s.io/v1 Lease, recover-apply in openshift-cluster-version, held and
// renewed for the whole run.
//
// A second run is refused with the holder and since when. A lease left by a dead run
// can be taken over only after it expires, with --break-lock, or by a resume of the
// same run (same run ID), which proves its predecessor is dead by holding the
// journal's file lock.
package lock
