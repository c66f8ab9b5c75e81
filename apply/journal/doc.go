// Package journal is recover apply's write-ahead log: an append-only JSON-lines
// file, mode 0600, fsync'd after every record, that records the intent before each
// mutation of the cluster and its outcome after, so that a run stopped by Ctrl-C, a
// crash or kill -9 can be resumed safely.
//
// # Format
//
// Every line is one Record. The first is a header (TypeHeader) carrying the
// format version, the run, and the plan by path and digest; the plan itself is not
// copied, because it may embed Secret manifests. Later records say, per step:
//
//	intent   before a mutation: what is about to change (and, for the CVO, its
//	         replicas, recorded before it is scaled down)
//	outcome  after the mutation: what the API server did
//	gate     the step's gate passed, failed, timed out or was skipped
//	step     the step is finished: done (its gate passed) or skipped
//
// and, per run: backup, resume, stop and finish records.
//
// A step is done only when its step record says so. A step with an intent and no
// step record is in flight: resume re-checks it against the cluster rather than
// trusting the journal. A torn last line (the process died while writing it) is
// ignored on load and cut off when the journal is reopened for appending: nothing
// was mutated on its behalf, because mutations start only after their intent is on
// disk.
package journal
