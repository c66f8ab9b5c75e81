// Package incluster is what recover apply needs to run inside the cluster it
// repairs, as a Job: the journal kept as ConfigMaps (JournalStore, a
// journal.Store fenced against stale writers), the plan read from the
// ConfigMaps plan/planconfigmap encodes (LoadPlan: the client I/O; the codec
// assembles and verifies), and the least-privilege RBAC of the run: RunAccess,
// the one list of its permissions (what preflight checks, apply.RequiredAccess,
// plus the journal, the staleness check's reads and the verdict), rendered as
// Roles by RBAC. recover apply --print-rbac derives it with the cluster's
// discovery, the fleet's apply template (apply/fleet/export) with inspect's
// catalog, for the same rules.
//
// The engine, the journal's records, its summary and resume are the ones of a
// run from a laptop: only where the plan and the journal are kept differs.
package incluster
