package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/openshift-recover/recover/internal/bounded"
)

// ErrInUse is returned when another process has the journal open for writing.
var ErrInUse = errors.New("journal is in use by another recover process")

// Writer appends records to a journal file. Each Write is on disk (fsync'd) when it
// returns. A Writer holds an exclusive flock on the file, so two processes never
// append to the same journal. It is safe for concurrent use.
type Writer struct {
	mu   sync.Mutex
	f    *os.File
	path string
	seq  int
	now  func() time.Time
	// state follows every record written (and, after Open, those read).
	state *State
}

// Create creates a new journal at path (which must not exist) with mode 0600 and
// writes its header.
func Create(path string, h Header) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("creating journal: %w", err)
	}
	w := &Writer{f: f, path: path, now: time.Now, state: newState()}
	if err := w.lock(); err != nil {
		f.Close()
		return nil, err
	}
	// The new directory entry must survive a crash too.
	if err := syncDir(filepath.Dir(path)); err != nil {
		w.Close()
		return nil, err
	}
	if h.FormatVersion == "" {
		h.FormatVersion = FormatVersion
	}
	if h.StartedAt.IsZero() {
		h.StartedAt = w.now().UTC()
	}
	if err := w.Write(Record{Type: TypeHeader, Header: &h}); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// Open reopens an existing journal for appending: it loads it, cuts off a torn last
// line, and continues the record numbering.
func Open(path string) (*Writer, *Journal, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("opening journal: %w", err)
	}
	w := &Writer{f: f, path: path, now: time.Now}
	if err := w.lock(); err != nil {
		f.Close()
		return nil, nil, err
	}
	data, err := bounded.ReadAll(f, path, MaxBytes)
	if err != nil {
		w.Close()
		return nil, nil, fmt.Errorf("reading journal: %w", err)
	}
	j, err := parse(path, data)
	if err != nil {
		w.Close()
		return nil, nil, err
	}
	if j.TornTail {
		// Nothing was mutated on behalf of a record that never reached the disk whole.
		if err := f.Truncate(int64(j.validBytes)); err != nil {
			w.Close()
			return nil, nil, fmt.Errorf("cutting the torn last line of journal %s: %w", path, err)
		}
		if err := f.Sync(); err != nil {
			w.Close()
			return nil, nil, err
		}
	}
	if n := len(j.Records); n > 0 {
		w.seq = j.Records[n-1].Seq
	}
	w.state = j.State()
	return w, j, nil
}

func (w *Writer) lock() error {
	if err := syscall.Flock(int(w.f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("%w: %s (is another recover apply running with it?)", ErrInUse, w.path)
		}
		return fmt.Errorf("locking journal %s: %w", w.path, err)
	}
	return nil
}

// Path returns the journal's path.
func (w *Writer) Path() string { return w.path }

// Write stamps r with the next sequence number and the time, appends it as one line
// and fsyncs the file.
func (w *Writer) Write(r Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return fmt.Errorf("journal %s is closed", w.path)
	}
	w.seq++
	r.Seq = w.seq
	if r.Time.IsZero() {
		r.Time = w.now().UTC()
	}
	data, err := json.Marshal(r)
	if err != nil {
		w.seq--
		return fmt.Errorf("encoding journal record: %w", err)
	}
	if bytes.ContainsRune(data, '\n') {
		w.seq--
		return fmt.Errorf("encoding journal record: newline in JSON")
	}
	data = append(data, '\n')
	if _, err := w.f.Write(data); err != nil {
		return fmt.Errorf("writing journal %s: %w", w.path, err)
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("syncing journal %s: %w", w.path, err)
	}
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

// Close releases the lock and closes the file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("syncing directory %s: %w", dir, err)
	}
	return nil
}
