package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/openshift-recover/recover/internal/bounded"
	"github.com/openshift-recover/recover/internal/nextcmd"
)

// Store keeps a journal's records durably. The Writer, Load, the State and the
// Summary are the same for every store; a store only keeps bytes: the journal is
// JSON lines, one record per line, and a store returns them in the order they
// were appended.
//
// Two stores exist: FileStore (the default, a local file) and, for a run inside
// the cluster, apply/incluster's ConfigMap store.
type Store interface {
	// Location names the journal for people (a path, "configmap NS/NAME").
	Location() string
	// ResumeCommand is the command that resumes the run the journal records (h
	// is its header).
	ResumeCommand(h Header) string
	// Exclusive reports whether Open excludes every other writer for as long as
	// the journal is open (a file lock): opening the journal then proves the
	// process that wrote it before is gone. A store that is not exclusive fences
	// a stale writer instead (Append fails with ErrFenced).
	Exclusive() bool
	// Create makes a new journal whose first line is first; it fails when the
	// journal exists.
	Create(first []byte) error
	// Open takes an existing journal for appending and returns its content.
	Open() ([]byte, error)
	// Read returns the journal's content without taking it for appending.
	Read() ([]byte, error)
	// Truncate cuts an opened journal to its first n bytes (a torn last line).
	Truncate(n int) error
	// Append adds one line (ending in a newline) and returns once it is durable:
	// fsync'd, or acknowledged by the API server. Nothing may change the cluster
	// on the line's behalf before Append returned nil.
	Append(line []byte) error
	// Close releases the journal.
	Close() error
}

// ErrInUse is returned when another process has the journal open for writing.
var ErrInUse = errors.New("journal is in use by another recover process")

// ErrFenced is returned by a store that is not exclusive when another run wrote
// the journal since this one last read or wrote it: this run no longer owns it
// and must change nothing more.
var ErrFenced = errors.New("the journal was written by another run: this run no longer owns it")

// FileStore is a journal in a local file: mode 0600, fsync'd after every line,
// held with an exclusive flock while it is open, so two processes never append to
// the same journal.
type FileStore struct {
	path string
	f    *os.File
}

// NewFileStore returns the store of the journal file at path.
func NewFileStore(path string) *FileStore { return &FileStore{path: path} }

// Location returns the file's path.
func (s *FileStore) Location() string { return s.path }

// ResumeCommand resumes the run from the file.
func (s *FileStore) ResumeCommand(Header) string { return nextcmd.Resume(s.path) }

// Exclusive is true: the flock proves no other process has the file open.
func (s *FileStore) Exclusive() bool { return true }

// Create creates the file (which must not exist) with mode 0600, locks it, makes
// its directory entry durable and writes first.
func (s *FileStore) Create(first []byte) error {
	f, err := os.OpenFile(s.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("creating journal: %w", err)
	}
	s.f = f
	if err := s.lock(); err != nil {
		s.Close()
		return err
	}
	// The new directory entry must survive a crash too.
	if err := syncDir(filepath.Dir(s.path)); err != nil {
		s.Close()
		return err
	}
	if err := s.Append(first); err != nil {
		s.Close()
		return err
	}
	return nil
}

// Open opens the file for appending, locks it and reads it.
func (s *FileStore) Open() ([]byte, error) {
	f, err := os.OpenFile(s.path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, fmt.Errorf("opening journal: %w", err)
	}
	s.f = f
	if err := s.lock(); err != nil {
		s.Close()
		return nil, err
	}
	data, err := bounded.ReadAll(f, s.path, MaxBytes)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("reading journal: %w", err)
	}
	return data, nil
}

// Read reads the file.
func (s *FileStore) Read() ([]byte, error) {
	data, err := bounded.ReadFile(s.path, MaxBytes)
	if err != nil {
		return nil, fmt.Errorf("reading journal: %w", err)
	}
	return data, nil
}

// Truncate cuts the file to n bytes and syncs it.
func (s *FileStore) Truncate(n int) error {
	if err := s.f.Truncate(int64(n)); err != nil {
		return fmt.Errorf("cutting the torn last line of journal %s: %w", s.path, err)
	}
	return s.f.Sync()
}

// Append writes line and fsyncs the file.
func (s *FileStore) Append(line []byte) error {
	if s.f == nil {
		return fmt.Errorf("journal %s is closed", s.path)
	}
	if _, err := s.f.Write(line); err != nil {
		return fmt.Errorf("writing journal %s: %w", s.path, err)
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("syncing journal %s: %w", s.path, err)
	}
	return nil
}

// Close releases the lock and closes the file.
func (s *FileStore) Close() error {
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	return err
}

func (s *FileStore) lock() error {
	if err := syscall.Flock(int(s.f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("%w: %s (is another recover apply running with it?)", ErrInUse, s.path)
		}
		return fmt.Errorf("locking journal %s: %w", s.path, err)
	}
	return nil
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
