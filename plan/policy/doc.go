// Package policy is the planner's transition policy: which moves a component may
// make from the version it actually runs to a candidate release, and what
// Kubernetes version skew must hold on the way.
//
// Rules have stable names (Rule*) and one of three classes, modeled on kubeadm's
// split of version-skew errors into Mandatory and Skippable ones:
//
//   - Mandatory rules can never be relaxed: no cross-minor downgrade, no blocked or
//     missing update edge, kubelet and control-plane skew.
//   - Policy rules have a default that a --policy file may change: how far down
//     within a minor (Downgrades), how many minors up (MaxMinorHop, at most 1), and
//     whether Upgradeable=False blocks a minor hop (Upgradeable).
//   - Acceptable rules are risks the user may take by naming them with --accept:
//     the risks of conditional update edges.
//
// The defaults (Default, DefaultYAML) follow the cluster-version operator's own
// preconditions (ClusterVersionRollback, ClusterVersionGiantHop,
// ClusterVersionUpgradeable), the kube-apiserver operator's kubelet skew
// controller and the upstream Kubernetes version-skew policy; docs/policy.md
// documents every rule and the YAML. Load and Parse read a policy file strictly:
// unknown fields, a wrong kind or an out-of-range value are input errors.
package policy
