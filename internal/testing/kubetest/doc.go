// Package kubetest runs a real Kubernetes control plane on loopback for recover's
// integration tests: etcd and kube-apiserver always, and on request
// kube-controller-manager, kube-scheduler and kwok, so that Deployments really roll
// out to Running pods on fake nodes.
//
// The binaries are built once from the Go module proxy by hack/kube-binaries.sh into a
// cache directory (make kube-binaries, or make test which does it first). When they are
// missing, Start fails with an error naming that command.
//
// # Usage
//
// One control plane per test package keeps the suite fast:
//
//	var env *kubetest.Env
//
//	func TestMain(m *testing.M) {
//		kubetest.Main(m, kubetest.Options{}, &env)
//	}
//
// Main skips the control plane (env stays nil) when the tests run with -short, and
// integration tests then call kubetest.Require(t, env) which skips them with a reason.
// Tests isolate themselves by object names; the singleton ClusterVersion/version needs
// serial tests or a cluster of their own. Env.Fresh starts another kube-apiserver on the
// same etcd with its own prefix. Env.ForTest gives a test such a cluster and takes it
// back when the test ends: it wipes the cluster back to the objects it held when it
// started, checks that it did (same objects, unchanged), and hands it to the next test;
// a cluster it cannot restore exactly is stopped. Starting a kube-apiserver costs about
// 4 CPU-seconds; a wipe took 0.1 to 3 seconds in the simulator's tests.
//
// Every process is started in its own process group with a parent-death signal, so a
// killed test binary leaves nothing running; Stop terminates them and removes the
// temporary directory.
package kubetest
