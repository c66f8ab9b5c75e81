// Command recover-lab starts a simulated wedged OpenShift cluster to try recover
// against: a real kube-apiserver (with etcd, kube-controller-manager and
// kube-scheduler) loaded with a scenario, and the simulator's fake CVO, operators
// and machine-config operator reacting to what is applied. It prints the
// KUBECONFIG to export and the commands to try, streams what the fake controllers
// do, and on Ctrl-C stops everything and removes its temporary files.
//
// Run it from the repository root (it finds the control-plane binaries through
// hack/kube-binaries.sh, or $RECOVER_KUBE_BIN):
//
//	go run ./internal/lab/sim/cmd/recover-lab --scenario examples/reconciled-4.3-to-4.4
//
// Exit codes: 0 after Ctrl-C, 2 for bad flags, 4 for a scenario that does not load
// (or holds objects the API server refuses), 1 when the control plane cannot start.
package main
