// Package incluster is what recover apply needs to run inside the cluster it
// repairs, as a Job: the journal kept as ConfigMaps (JournalStore, a
// journal.Store fenced against stale writers), the plan read from ConfigMaps
// (gzip'd and split when large, its digest checked after assembly), and the
// least-privilege RBAC of the run, generated from the permissions preflight
// checks (apply.Engine.RequiredAccess).
//
// The engine, the journal's records, its summary and resume are the ones of a
// run from a laptop: only where the plan and the journal are kept differs.
package incluster
