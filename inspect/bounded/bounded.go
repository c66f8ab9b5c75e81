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

// ReadAll reads r to its end, or fails with a *LimitError (inside an
// *fs.PathError naming name) after more than limit bytes.
func ReadAll(r io.Reader, name string, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
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

func read(f fs.File, name string, limit int64) ([]byte, error) {
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > limit {
		return nil, &fs.PathError{Op: "read", Path: name, Err: &LimitError{Limit: limit}}
	}
	return ReadAll(f, name, limit)
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
