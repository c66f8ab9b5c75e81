// Package containertest runs recover as a user runs it inside a cluster: the
// image make image builds (an OCI layout), started by podman with runc, on
// the real kube-apiserver (internal/testing/kubetest, RBAC enforced), and
// configured only by a service-account token from the TokenRequest API
// mounted where a pod's projected token is. One in-cluster run (recover apply
// --in-cluster, as the fleet's apply Job runs it) is killed with SIGKILL and a
// second container takes over through the lease and completes.
//
// Only its test exists. It needs podman and runc (.ci/run installs both from
// Debian's packages); where neither can be had it skips, and make test's
// summary line says so (hack/container-test.sh). The image comes from
// RECOVER_IMAGE_LAYOUT when set (a layout make image wrote), else the test
// runs make image for the host's platform once.
package containertest
