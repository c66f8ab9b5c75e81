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
