package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// Writer appends records to a journal kept in a Store. Each Write is durable
// (fsync'd, or acknowledged by the API server) when it returns. A file journal is
// held with an exclusive flock, so two processes never append to it; a journal in
// the cluster fences a stale writer (ErrFenced). It is safe for concurrent use.
type Writer struct {
	mu     sync.Mutex
	store  Store
	header Header
	seq    int
	closed bool
	now    func() time.Time
	// state follows every record written (and, after Open, those read).
	state *State
}

// Create creates a new journal file at path (which must not exist) with mode
// 0600 and writes its header.
func Create(path string, h Header) (*Writer, error) {
	return CreateIn(NewFileStore(path), h)
}

// CreateIn creates a new journal in store and writes its header.
func CreateIn(store Store, h Header) (*Writer, error) {
	w := &Writer{store: store, now: time.Now, state: newState()}
	if h.FormatVersion == "" {
		h.FormatVersion = FormatVersion
	}
	if h.StartedAt.IsZero() {
		h.StartedAt = w.now().UTC()
	}
	w.header = h
	r, line, err := w.encode(Record{Type: TypeHeader, Header: &h})
	if err != nil {
		return nil, err
	}
	if err := store.Create(line); err != nil {
		return nil, err
	}
	w.seq = r.Seq
	w.state.apply(r)
	w.state.settle()
	return w, nil
}

// Open reopens an existing journal file for appending: it loads it, cuts off a
// torn last line, and continues the record numbering.
func Open(path string) (*Writer, *Journal, error) {
	return OpenIn(NewFileStore(path))
}

// OpenIn reopens the journal in store for appending: it loads it, cuts off a torn
// last line, and continues the record numbering.
func OpenIn(store Store) (*Writer, *Journal, error) {
	data, err := store.Open()
	if err != nil {
		return nil, nil, err
	}
	j, err := parse(store.Location(), data)
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	j.ResumeCommand = store.ResumeCommand(j.Header)
	if j.TornTail {
		// Nothing was mutated on behalf of a record that never reached the disk whole.
		if err := store.Truncate(j.validBytes); err != nil {
			store.Close()
			return nil, nil, err
		}
	}
	w := &Writer{store: store, header: j.Header, now: time.Now}
	if n := len(j.Records); n > 0 {
		w.seq = j.Records[n-1].Seq
	}
	w.state = j.State()
	return w, j, nil
}

// Path returns where the journal is: the file's path, or the store's location.
func (w *Writer) Path() string { return w.store.Location() }

// ResumeCommand returns the command that resumes the run this journal records.
func (w *Writer) ResumeCommand() string { return w.store.ResumeCommand(w.header) }

// Exclusive reports whether the journal's store excludes every other writer
// while it is open (Store.Exclusive).
func (w *Writer) Exclusive() bool { return w.store.Exclusive() }

// encode stamps r with the next sequence number and the time and returns its line.
func (w *Writer) encode(r Record) (Record, []byte, error) {
	r.Seq = w.seq + 1
	if r.Time.IsZero() {
		r.Time = w.now().UTC()
	}
	data, err := json.Marshal(r)
	if err != nil {
		return r, nil, fmt.Errorf("encoding journal record: %w", err)
	}
	if bytes.ContainsRune(data, '\n') {
		return r, nil, fmt.Errorf("encoding journal record: newline in JSON")
	}
	return r, append(data, '\n'), nil
}

// Write stamps r with the next sequence number and the time, appends it as one line
// and returns once the store made it durable.
func (w *Writer) Write(r Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return fmt.Errorf("journal %s is closed", w.store.Location())
	}
	r, line, err := w.encode(r)
	if err != nil {
		return err
	}
	if err := w.store.Append(line); err != nil {
		return err
	}
	w.seq = r.Seq
	w.state.apply(r)
	w.state.settle()
	return nil
}

// State returns the state of the journal as written so far (the records read by
// Open and every record written since). It is the Writer's own: read it from
// the goroutine that writes, and do not change it.
func (w *Writer) State() *State {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.state
}

// Close releases the journal.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	return w.store.Close()
}

// Header returns the journal's header.
func (w *Writer) Header() Header { return w.header }
