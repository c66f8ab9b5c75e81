// Package e2e holds the TUI's whole-program tests: the real bubbletea program
// (teatest) with the real apply engine, on a simulated cluster (internal/lab/sim) on a
// real kube-apiserver (internal/testing/kubetest). It has no code of its own; the pure
// Update/View tests live beside the components.
package e2e
