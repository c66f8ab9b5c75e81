// Package timeline is the Timeline screen: the update's history as inspect
// computed it (Snapshot.Timeline), oldest first, each entry with its time, kind
// and one sentence; the entries a finding rests on are marked with the codes they
// prove, and the selected entry's detail says its source (the object's field, or
// the log file and line) and which causes of "why this cluster is stuck" cite it.
// / filters.
//
// It shows what inspect computed and computes nothing itself.
package timeline
