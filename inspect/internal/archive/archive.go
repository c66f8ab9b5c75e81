package archive

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/internal/decode"
	"github.com/openshift-recover/recover/internal/bounded"
)

// Limits bound what an archive may hold.
type Limits struct {
	// MaxFileBytes is the largest kept file.
	MaxFileBytes int64
	// MaxKeptBytes is the total of kept files.
	MaxKeptBytes int64
	// MaxArchiveBytes is the total uncompressed size of all entries, kept or not.
	MaxArchiveBytes int64
	// MaxEntries is the number of entries.
	MaxEntries int
	// MaxMemoryBytes is how much of the kept files is held in memory; the rest
	// is written to a private temporary directory. Zero means
	// DefaultLimits.MaxMemoryBytes.
	MaxMemoryBytes int64
}

// DefaultLimits fit the largest real must-gathers (tens of GB of logs are
// streamed or skipped, not kept) while refusing decompression bombs and
// archives whose resource files alone would take minutes to decode: a
// 5,000-node cluster's must-gather keeps about 200 MiB.
var DefaultLimits = Limits{
	MaxFileBytes:    decode.MaxFileBytes,
	MaxKeptBytes:    decode.MaxResourceBytes,
	MaxArchiveBytes: 64 << 30,
	MaxEntries:      2_000_000,
	MaxMemoryBytes:  64 << 20,
}

// OrDefault returns l, or DefaultLimits when l is the zero value.
func (l Limits) OrDefault() Limits {
	if l == (Limits{}) {
		return DefaultLimits
	}
	if l.MaxMemoryBytes == 0 {
		l.MaxMemoryBytes = DefaultLimits.MaxMemoryBytes
	}
	return l
}

// Options say what to do with an archive's regular files.
type Options struct {
	// Keep decides, by cleaned slash path, which files are kept (readable
	// through the returned FS).
	Keep func(name string) bool
	// Stream decides which files are handed to OnStream instead, as the archive
	// is read; they are never stored. Nil streams nothing.
	Stream func(name string) bool
	// OnStream reads a streamed file; it may stop early. An error stops the read
	// and is returned.
	OnStream func(name string, r io.Reader) error
}

// FS is an opened source: a directory or an archive's kept files. Close it to
// remove what an archive wrote to its temporary directory.
type FS interface {
	fs.FS
	fs.ReadDirFS
	fs.StatFS
	io.Closer
}

// Open returns the directory at p as an FS, or, when p is a file, the kept files
// of the tar (optionally gzip-compressed) archive it holds. A directory's files
// are not streamed: the caller walks them.
func Open(p string, opts Options, lim Limits) (FS, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, &inspect.InputError{Path: p, Err: err}
	}
	if fi.IsDir() {
		// Confined to the tree: a symlink pointing outside it (a must-gather
		// file linked to ~/.kube/config, say) fails to read instead of being
		// followed, as archives refuse such links too.
		root, err := os.OpenRoot(p)
		if err != nil {
			return nil, &inspect.InputError{Path: p, Err: err}
		}
		rfs, ok := root.FS().(dirFSI)
		if !ok {
			root.Close()
			return nil, &inspect.InputError{Path: p, Err: errors.New("this Go runtime cannot list a directory it opened safely")}
		}
		return dirFS{dirFSI: rfs, root: root}, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, &inspect.InputError{Path: p, Err: err}
	}
	defer f.Close()
	fsys, err := Read(f, opts, lim)
	if err != nil {
		var ie *inspect.InputError
		if errors.As(err, &ie) && ie.Path == "" {
			ie.Path = p
			return nil, ie
		}
		if errors.As(err, &ie) {
			return nil, err
		}
		return nil, &inspect.InputError{Path: p, Err: err}
	}
	return fsys, nil
}

// dirFSI is what os.Root's FS implements.
type dirFSI interface {
	fs.FS
	fs.ReadDirFS
	fs.StatFS
}

type dirFS struct {
	dirFSI
	root *os.Root
}

func (d dirFS) Close() error { return d.root.Close() }

// Read reads a tar stream, gzip-compressed or not: the kept files into the
// returned FS, the streamed ones through opts.OnStream.
func Read(r io.Reader, opts Options, lim Limits) (FS, error) {
	lim = lim.OrDefault()
	br := bufio.NewReader(r)
	magic, _ := br.Peek(2)
	var src io.Reader = br
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("not a gzip archive: %v", err)
		}
		defer gz.Close()
		src = gz
	}
	tr := tar.NewReader(src)
	out := newStore(lim.MaxMemoryBytes)
	ok := false
	defer func() {
		if !ok {
			out.Close()
		}
	}()
	var total, kept int64
	entries := 0
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if entries == 0 {
				return nil, fmt.Errorf("not a tar or tar.gz archive (or a must-gather directory): %v", err)
			}
			return nil, fmt.Errorf("corrupt archive after %d entries: %v", entries, err)
		}
		entries++
		if entries > lim.MaxEntries {
			return nil, fmt.Errorf("archive has more than %d entries; refusing it", lim.MaxEntries)
		}
		name, err := cleanName(hdr.Name)
		if err != nil {
			return nil, err
		}
		if hdr.Size < 0 {
			return nil, fmt.Errorf("archive entry %q has a negative size", hdr.Name)
		}
		total += hdr.Size
		if total > lim.MaxArchiveBytes {
			return nil, fmt.Errorf("archive expands to more than %s; refusing it", bounded.Size(lim.MaxArchiveBytes))
		}
		switch hdr.Typeflag {
		case tar.TypeSymlink:
			target := hdr.Linkname
			if !path.IsAbs(target) {
				target = path.Join(path.Dir(name), target)
			}
			if path.IsAbs(hdr.Linkname) || escapes(path.Clean(target)) {
				return nil, fmt.Errorf("archive entry %q is a symlink to %q, outside the archive; refusing it", hdr.Name, hdr.Linkname)
			}
			// In-archive links are not followed: must-gathers do not need them.
		case tar.TypeLink:
			if t := path.Clean(strings.TrimPrefix(hdr.Linkname, "./")); path.IsAbs(hdr.Linkname) || escapes(t) {
				return nil, fmt.Errorf("archive entry %q is a hard link to %q, outside the archive; refusing it", hdr.Name, hdr.Linkname)
			}
		case tar.TypeReg, tar.TypeRegA: //nolint:staticcheck // old archives use TypeRegA
			switch {
			case opts.Stream != nil && opts.Stream(name):
				lr := &io.LimitedReader{R: tr, N: hdr.Size}
				if err := opts.OnStream(name, lr); err != nil {
					return nil, err
				}
			case opts.Keep != nil && opts.Keep(name):
				if hdr.Size > lim.MaxFileBytes {
					return nil, fmt.Errorf("archive entry %q is %d bytes, more than the %s allowed for one resource file", hdr.Name, hdr.Size, bounded.Size(lim.MaxFileBytes))
				}
				kept += hdr.Size
				if kept > lim.MaxKeptBytes {
					return nil, fmt.Errorf("archive holds more than %s of resource files; refusing it (the most recover decodes from one source)", bounded.Size(lim.MaxKeptBytes))
				}
				if err := out.add(name, tr, hdr); err != nil {
					return nil, err
				}
			}
		}
	}
	if entries == 0 {
		return nil, errors.New("empty archive")
	}
	ok = true
	return out, nil
}

// cleanName returns an entry's cleaned relative path, refusing names that escape.
func cleanName(name string) (string, error) {
	n := strings.TrimPrefix(name, "./")
	if path.IsAbs(n) || strings.HasPrefix(name, "/") {
		return "", fmt.Errorf("archive entry %q has an absolute path; refusing the archive", name)
	}
	c := path.Clean(n)
	if escapes(c) {
		return "", fmt.Errorf("archive entry %q escapes the archive root; refusing the archive", name)
	}
	return c, nil
}

func escapes(clean string) bool {
	return clean == ".." || strings.HasPrefix(clean, "../")
}
