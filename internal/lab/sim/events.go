package sim

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"
)

// Event is one thing a fake controller did, in the order it did it. Tests wait on
// events and check their order; the lab prints them.
type Event struct {
	// Seq numbers events from 1 in the order they were recorded.
	Seq  int
	Time time.Time
	// Actor is the fake controller: "loader", "kubelet", "cvo", "machine-config",
	// or "operator/<clusteroperator>".
	Actor string
	// Reason is a CamelCase verb: Loaded, Applied, ModeChanged, Progressing,
	// VersionReported, RevisionCreated, InstallerSucceeded, MirrorPodUpdated,
	// NodeUpdating, NodeUpdated, PoolPaused, Completed, Failing, FaultInjected, ...
	Reason string
	// Object is the object acted on ("Deployment openshift-etcd-operator/etcd-operator").
	Object string
	// Message says the rest in a sentence.
	Message string
	// Manifest is set for the fake CVO's Applied events.
	Manifest *ManifestRef
}

// ManifestRef places an applied manifest in its payload.
type ManifestRef struct {
	// Mode is the CVO mode that applied it: Updating or Reconciling.
	Mode string
	// Version is the release the manifest belongs to.
	Version string
	// File is the payload file name, RunLevel ("20") and Component its parsed
	// prefix (empty when the name has none).
	File      string
	RunLevel  string
	Component string
	// Pass counts the CVO's passes over the payload, from 1.
	Pass int
}

// String formats the event as one log line.
func (e Event) String() string {
	s := fmt.Sprintf("%s %-24s %-18s", e.Time.Format("15:04:05.000"), e.Actor, e.Reason)
	switch {
	case e.Object != "" && e.Message != "":
		s += " " + e.Object + ": " + e.Message
	case e.Object != "":
		s += " " + e.Object
	case e.Message != "":
		s += " " + e.Message
	}
	return s
}

// recorder keeps the events and wakes waiters.
type recorder struct {
	mu      sync.Mutex
	events  []Event
	changed chan struct{}
	out     io.Writer
}

func newRecorder(out io.Writer) *recorder {
	return &recorder{changed: make(chan struct{}), out: out}
}

func (r *recorder) record(actor, reason, object, message string, m *ManifestRef) {
	r.mu.Lock()
	e := Event{Seq: len(r.events) + 1, Time: time.Now(), Actor: actor, Reason: reason, Object: object, Message: message, Manifest: m}
	r.events = append(r.events, e)
	close(r.changed)
	r.changed = make(chan struct{})
	out := r.out
	r.mu.Unlock()
	if out != nil {
		fmt.Fprintln(out, e.String())
	}
}

func (r *recorder) snapshot() ([]Event, <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...), r.changed
}

// waitFor returns the first event, at or after index from, that match accepts.
func (r *recorder) waitFor(ctx context.Context, from int, match func(Event) bool) (Event, error) {
	for {
		events, changed := r.snapshot()
		for _, e := range events[min(from, len(events)):] {
			if match(e) {
				return e, nil
			}
		}
		select {
		case <-ctx.Done():
			return Event{}, fmt.Errorf("waiting for a simulator event: %w", context.Cause(ctx))
		case <-changed:
		}
	}
}
