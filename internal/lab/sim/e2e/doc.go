// Package e2e holds recover's end-to-end tests against the simulator: for each
// example scenario, inspect, plan and apply (as `recover apply --yes` runs it)
// against a simulated wedged cluster on a real kube-apiserver. It has no code of
// its own; the tests are in e2e_test.go.
package e2e
