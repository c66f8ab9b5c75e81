// Package fleet inspects many clusters at once: every must-gather and Insights
// archive in a directory (Discover), or a list of kubeconfig contexts
// (Contexts). Run collects each target's snapshot on a bounded number of
// goroutines and hands it to a judge function, keeping only what the judge
// returns: at most Options.Concurrency snapshots are alive at any time, so the
// memory a fleet run takes does not grow with the number of clusters.
//
// What a cluster's answer is (its verdict, and the wedge signature clusters are
// grouped by) is the fleet room's business (apply/fleet): recover fleet judges
// with apply/fleet/verdict.Judge and groups with verdict.Group. This package
// only finds the sources and runs them; it stays in inspect, a source of many
// snapshots, since inspect imports nothing of apply.
package fleet
