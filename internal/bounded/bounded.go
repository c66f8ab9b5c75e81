package bounded

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// LimitError is the error a read returns, wrapped in an *fs.PathError naming
// the file, when the file holds more than Limit bytes.
type LimitError struct {
	// Limit is the largest accepted size in bytes.
	Limit int64
}

// Error says the file is too large and what the limit is.
func (e *LimitError) Error() string {
	return fmt.Sprintf("larger than %s, the most recover accepts here: check that this is the right file", Size(e.Limit))
}

// IsLimit reports whether err is, or wraps, a *LimitError.
func IsLimit(err error) bool {
	var le *LimitError
	return errors.As(err, &le)
}

// ReadFile reads the file at path, or fails with a *LimitError (inside an
// *fs.PathError) when it holds more than limit bytes. A regular file is measured
// before it is read; a pipe or device is read up to limit+1 bytes.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f, path, limit)
}

// ReadFS is ReadFile for a file of fsys.
func ReadFS(fsys fs.FS, name string, limit int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f, name, limit)
}

func read(f fs.File, name string, limit int64) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return ReadAll(f, name, limit)
	}
	if fi.Size() > limit {
		return nil, &fs.PathError{Op: "read", Path: name, Err: &LimitError{Limit: limit}}
	}
	// A regular file is read into a buffer of its size (plus a byte to see EOF
	// without growing), not grown from 512 bytes as io.ReadAll does; a file that
	// grows while it is read is still cut at the limit.
	return readAll(f, name, limit, make([]byte, 0, fi.Size()+1))
}

// ReadAll reads r to its end, or fails with a *LimitError (inside an
// *fs.PathError naming name) after more than limit bytes.
func ReadAll(r io.Reader, name string, limit int64) ([]byte, error) {
	return readAll(r, name, limit, make([]byte, 0, 512))
}

func readAll(r io.Reader, name string, limit int64, buf []byte) ([]byte, error) {
	data, err := appendAll(buf, io.LimitReader(r, limit+1))
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, err // a file's read error names the file already
		}
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	if int64(len(data)) > limit {
		return nil, &fs.PathError{Op: "read", Path: name, Err: &LimitError{Limit: limit}}
	}
	return data, nil
}

// appendAll is io.ReadAll appending to buf.
func appendAll(buf []byte, r io.Reader) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// Size renders n bytes for people: "64 MiB", "512 KiB", "100 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Counter counts the bytes read through it: what a streaming reader has read
// of a limit it passes to io.LimitReader.
type Counter struct {
	R io.Reader
	N int64
}

// Read reads from R and counts.
func (c *Counter) Read(p []byte) (int, error) {
	k, err := c.R.Read(p)
	c.N += int64(k)
	return k, err
}
