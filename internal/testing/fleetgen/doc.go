// Package fleetgen writes a fleet of must-gathers for recover fleet's tests and
// benchmarks: copies of the repository's example must-gathers (examples/*/must-gather)
// with variations, into a directory the test owns, and says which clusters must
// end up in the same wedge group. Nothing is committed: the fleet is generated
// in every run (unchanged files are hard links to the examples, so 200 clusters
// take little room and time).
//
// The variations:
//   - a copy of every example, once per round, under its own name;
//   - the pdb-blocks-drain example with its budget renamed (another PDB: another
//     group per name);
//   - the static-pod-stuck example with the stuck master renamed (other node
//     names, the same wedge: the same group as the example);
//   - healthy clusters: release-not-accepted with its target withdrawn and the
//     release accepted (nothing holds them: one group, not wedged);
//   - some clusters as .tar.gz archives instead of directories;
//   - broken must-gathers (a ClusterVersion that is not YAML): failures.
package fleetgen
