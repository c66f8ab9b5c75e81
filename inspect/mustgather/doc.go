// Package mustgather collects an inspect.Snapshot from a must-gather: a directory in
// the layout `oc adm inspect` writes, or a .tar/.tar.gz of one. wedges.go lists
// where the wedge facts (PodDisruptionBudgets, CSRs, webhooks, ...) are read.
//
// Layout (openshift/oc pkg/cli/admin/inspect): cluster-scoped objects live in
// cluster-scoped-resources/<group>/<resource>/<name>.yaml (or a list in
// cluster-scoped-resources/<group>/<resource>.yaml), namespaced ones in
// namespaces/<ns>/<group>/<resource>.yaml lists or
// namespaces/<ns>/<group>/<resource>/<name>.yaml, pods also in
// namespaces/<ns>/pods/<pod>/<pod>.yaml; "core" stands for the core group. The root
// is found like omc finds it: the first directory, walking down from the given
// path, that holds cluster-scoped-resources/ or namespaces/ (must-gathers wrap it in
// a directory named after the gather image).
//
// What the must-gather lacks is recorded as Absent, with the paths looked for, and
// yields a NotCollected finding; malformed files are errors naming file and line.
package mustgather
