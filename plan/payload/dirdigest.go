package payload

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

	"github.com/openshift-recover/recover/internal/bounded"
)

// DigestDir returns "sha256:<hex>" over a directory's regular files: each file's
// slash-separated relative path, size and content, in path order. It identifies a
// payload or graph-data directory in a plan's inputs. (Like filepath.WalkDir, it
// follows no symbolic link.)
func DigestDir(dir string) (string, error) {
	digest, _, err := digestDir(dir, nil)
	return digest, err
}

// digestDir is DigestDir, and it also returns the contents of the files whose
// slash-separated relative paths keep lists (those that are regular files; the
// others are not read), each read with the manifest size limit. Every file is read
// once. The kept files are read ahead by GOMAXPROCS goroutines while this one
// hashes in path order (opening and reading a few hundred files costs more than
// hashing them); the others are streamed through one buffer when their turn
// comes.
func digestDir(dir string, keep map[string]bool) (string, map[string][]byte, error) {
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
	ahead := readAheadFiles(files, func(i int) bool { return keep[rels[i]] })
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
			writeDigestHeader(h, rels[i], int64(len(r.data)))
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

// readAhead reads the files want picks, in order, on GOMAXPROCS goroutines
// (inOrder's) in the background.
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

func readAheadFiles(files []string, want func(int) bool) *readAhead {
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
		inOrder(len(picked), runtime.GOMAXPROCS(0), func(k int) bool {
			if a.halt.Load() {
				return false
			}
			r := a.slots[picked[k]]
			r.data, r.err = bounded.ReadFile(files[picked[k]], maxManifestFileBytes)
			close(r.ready)
			return true
		})
	}()
	return a
}

// stop makes the readers stop claiming files and waits for them.
func (a *readAhead) stop() {
	a.halt.Store(true)
	<-a.done
}

func writeDigestHeader(h hash.Hash, rel string, size int64) {
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
	writeDigestHeader(h, rel, st.Size())
	// A plain Reader, so that io.CopyBuffer uses buf rather than *os.File's
	// WriteTo, which allocates a buffer of its own for every file.
	_, err = io.CopyBuffer(h, struct{ io.Reader }{f}, buf)
	return err
}
