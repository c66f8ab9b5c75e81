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
	"sort"

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
// once, with one buffer.
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
	h := sha256.New()
	kept := map[string][]byte{}
	buf := make([]byte, 64<<10)
	for _, path := range files {
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return "", nil, err
		}
		rel = filepath.ToSlash(rel)
		if keep[rel] {
			data, err := bounded.ReadFile(path, maxManifestFileBytes)
			if err != nil {
				return "", nil, err
			}
			writeDigestHeader(h, rel, int64(len(data)))
			h.Write(data)
			kept[rel] = data
			continue
		}
		if err := digestFile(h, path, rel, buf); err != nil {
			return "", nil, err
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), kept, nil
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
