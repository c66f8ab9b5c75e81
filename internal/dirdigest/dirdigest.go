package dirdigest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/openshift-recover/recover/internal/bounded"
)

// Sum returns "sha256:<hex>" over a directory's regular files: each file's
// slash-separated relative path, size and content, in path order. (Like
// filepath.WalkDir, it follows no symbolic link.)
func Sum(dir string) (string, error) {
	digest, _, err := Read(dir, nil, 0)
	return digest, err
}

// Read is Sum, and it also returns the contents of the regular files whose
// slash-separated relative paths keep picks, each read whole with limit (the
// others are streamed into the digest and not kept). Every file is read once.
// The kept files are read ahead by GOMAXPROCS goroutines while this one hashes
// in path order (opening and reading a few hundred files costs more than
// hashing them). A file keep picks that is not a regular file (a symbolic
// link) is neither read nor kept: the caller reads it itself.
func Read(dir string, keep func(rel string) bool, limit int64) (string, map[string][]byte, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return "", nil, err
	}
	sort.Strings(files)
	rels := make([]string, len(files))
	for i, path := range files {
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return "", nil, err
		}
		rels[i] = filepath.ToSlash(rel)
	}
	ahead := readAheadFiles(files, limit, func(i int) bool { return keep != nil && keep(rels[i]) })
	defer ahead.stop()
	h := sha256.New()
	kept := map[string][]byte{}
	buf := make([]byte, 64<<10)
	for i, path := range files {
		if r := ahead.slots[i]; r != nil {
			<-r.ready
			if r.err != nil {
				return "", nil, r.err
			}
			writeHeader(h, rels[i], int64(len(r.data)))
			h.Write(r.data)
			kept[rels[i]] = r.data
			continue
		}
		if err := digestFile(h, path, rels[i], buf); err != nil {
			return "", nil, err
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), kept, nil
}

// readAhead reads the files want picks, in path order, on GOMAXPROCS
// goroutines in the background.
type readAhead struct {
	slots []*readSlot // nil for a file not picked
	halt  atomic.Bool
	done  chan struct{}
}

type readSlot struct {
	data  []byte
	err   error
	ready chan struct{} // closed once data and err are set
}

func readAheadFiles(files []string, limit int64, want func(int) bool) *readAhead {
	a := &readAhead{slots: make([]*readSlot, len(files)), done: make(chan struct{})}
	var picked []int
	for i := range files {
		if want(i) {
			a.slots[i] = &readSlot{ready: make(chan struct{})}
			picked = append(picked, i)
		}
	}
	go func() {
		defer close(a.done)
		// Go blocks while GOMAXPROCS reads are under way, so files are
		// started in path order, the order the hasher waits for them.
		var g errgroup.Group
		g.SetLimit(max(1, runtime.GOMAXPROCS(0)))
		for _, i := range picked {
			if a.halt.Load() {
				break
			}
			r := a.slots[i]
			g.Go(func() error {
				r.data, r.err = bounded.ReadFile(files[i], limit)
				close(r.ready)
				return nil
			})
		}
		_ = g.Wait()
	}()
	return a
}

// stop makes the readers start no more files and waits for them.
func (a *readAhead) stop() {
	a.halt.Store(true)
	<-a.done
}

func writeHeader(h hash.Hash, rel string, size int64) {
	fmt.Fprintf(h, "%s\x00%d\x00", rel, size)
}

// digestFile streams one file into h through buf.
func digestFile(h hash.Hash, path, rel string, buf []byte) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	writeHeader(h, rel, st.Size())
	// A plain Reader, so that io.CopyBuffer uses buf rather than *os.File's
	// WriteTo, which allocates a buffer of its own for every file.
	_, err = io.CopyBuffer(h, struct{ io.Reader }{f}, buf)
	return err
}
