// Package releasegen writes the example release payloads of
// examples/reconciled-4.3-to-4.4/releases (4.4.3 and 4.4.4): compact payloads in the
// `oc adm release extract` layout, modeled on the real 4.4 payload (run-levels,
// components, kinds, the CVO's own templated manifests) but written here, so that the
// two releases stay consistent with each other.
//
// The checked-in trees are this package's output; TestCheckedIn fails when they
// differ, and `go test ./internal/testing/releasegen -update` rewrites them.
//
// Every operator Deployment shares its file prefix (0000_NN_<component>_) with its
// ClusterOperator, carries env RELEASE_VERSION=<version> and takes its images from
// image-references; the static-pod operators also carry env IMAGE=<operand image>.
// ClusterOperator manifests declare status.versions (operator=<version>, plus
// kube-apiserver / kube-controller-manager / kube-scheduler = the Kubernetes version).
// Besides plain manifests the payloads hold a Job, create-only and delete-annotated
// manifests, a capability-gated component, a TechPreviewNoUpgrade manifest and
// manifests excluded on hosted control planes, so every inclusion rule has a case.
package releasegen
