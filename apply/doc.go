// Package apply is recover's engine: it executes a plan document with the
// cluster-version operator (CVO) disabled, one step at a time, and reports what it
// does as a typed event stream that the plain and JSON printers and the TUI consume.
//
// # A run
//
//	preflight   plan valid; the cluster is OpenShift; every permission the plan needs
//	            (SelfSubjectAccessReview, all missing ones listed together); the
//	            plan is not stale (its cluster fingerprint matches a live one); an
//	            etcd backup is recorded or acknowledged
//	lock        a Lease in openshift-cluster-version, renewed for the whole run
//	journal     an fsync'd JSON-lines write-ahead log (package journal)
//	steps       for each step: prepare (read live, server-side dry run, diff),
//	            confirm (Decider), journal the intent, mutate, journal the outcome,
//	            wait for the gate (package gate, through watches), journal done
//	end         release the lock; the last event, EventDone, carries the Result
//
// Remediation steps (plan formatVersion 1.1) patch one object each with a JSON
// merge patch: the live values of the fields they set, the pre-image, are
// journaled before the patch, which carries the live resourceVersion. A revert
// step writes the pre-image of the step it undoes back exactly, and never over
// someone else's edit; approve-csr approves a request only if it is still pending,
// the plan's, and vouched for (inspect.CSRVouch) against the live Nodes and
// Machines. When a run stops before a temporary change's revert step, for any
// reason but a lost lock, the engine reverts every outstanding temporary change
// of the journal before it exits (see revertonstop.go).
//
// The plan itself disables the CVO (disable-cvo: the replicas are journaled before
// the scale-down, then the engine waits until no CVO pod is left) and hands control
// back (set-desired-update, restore-cvo, and the CVO must come back). A run that
// stops before that leaves the CVO disabled, and says so in its Result with the
// commands to resume or restore it.
//
// # Driving the engine
//
//	ev := engine.Run(ctx, p, apply.Options{JournalPath: "run.journal", Decider: apply.AutoDecider{}})
//	for e := range ev {
//		printer.Print(e) // the last event is EventDone with e.Result
//	}
//
// An interactive front end sets Options.Confirm and implements Decider: the engine
// asks it before every mutating step (proceed, skip, abort) and whenever a gate or a
// step fails (retry, skip, abort). Cancelling ctx stops the run at once; the journal
// stays resumable (Options.Resume).
package apply
