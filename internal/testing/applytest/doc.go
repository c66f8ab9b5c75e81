// Package applytest is test machinery for the apply engine: a builder of plan
// documents by hand (every action and gate kind), a minimal OpenShift on a
// kubetest control plane (ClusterVersion, the CVO Deployment, a master pool,
// control-plane nodes with kube-apiserver mirror pods), and fake controllers that
// play the CVO and the operators the gates wait for. Only tests import it; the
// simulator (internal/lab/sim) is the faithful stand-in for end-to-end scenarios.
package applytest
