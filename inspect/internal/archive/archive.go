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
	"testing/fstest"

	"github.com/openshift-recover/recover/inspect"
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
}

// DefaultLimits fit the largest real must-gathers (tens of GB of logs are skipped,
// not kept) while refusing decompression bombs.
var DefaultLimits = Limits{
	MaxFileBytes:    512 << 20,
	MaxKeptBytes:    4 << 30,
	MaxArchiveBytes: 64 << 30,
	MaxEntries:      2_000_000,
}

// OrDefault returns l, or DefaultLimits when l is the zero value.
func (l Limits) OrDefault() Limits {
	if l == (Limits{}) {
		return DefaultLimits
	}
	return l
}

// Open returns the directory at p as an fs.FS, or, when p is a file, the kept
// files of the tar (optionally gzip-compressed) archive it holds. keep decides, by
// cleaned slash path, which regular files are kept in memory.
func Open(p string, keep func(name string) bool, lim Limits) (fs.FS, error) {
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
		return root.FS(), nil
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, &inspect.InputError{Path: p, Err: err}
	}
	defer f.Close()
	fsys, err := Read(f, keep, lim)
	if err != nil {
		var ie *inspect.InputError
		if errors.As(err, &ie) && ie.Path == "" {
			ie.Path = p
			return nil, ie
		}
		return nil, &inspect.InputError{Path: p, Err: err}
	}
	return fsys, nil
}

// Read reads a tar stream, gzip-compressed or not, into memory.
func Read(r io.Reader, keep func(name string) bool, lim Limits) (fs.FS, error) {
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
	out := fstest.MapFS{}
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
			return nil, fmt.Errorf("archive expands to more than %d bytes; refusing it", lim.MaxArchiveBytes)
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
			if !keep(name) {
				continue
			}
			if hdr.Size > lim.MaxFileBytes {
				return nil, fmt.Errorf("archive entry %q is %d bytes, more than the %d allowed", hdr.Name, hdr.Size, lim.MaxFileBytes)
			}
			kept += hdr.Size
			if kept > lim.MaxKeptBytes {
				return nil, fmt.Errorf("archive holds more than %d bytes of resource files; refusing it", lim.MaxKeptBytes)
			}
			data, err := io.ReadAll(io.LimitReader(tr, hdr.Size+1))
			if err != nil {
				return nil, fmt.Errorf("reading archive entry %q: %v", hdr.Name, err)
			}
			if int64(len(data)) != hdr.Size {
				return nil, fmt.Errorf("archive entry %q is truncated", hdr.Name)
			}
			out[name] = &fstest.MapFile{Data: data, Mode: 0o444, ModTime: hdr.ModTime}
		}
	}
	if entries == 0 {
		return nil, errors.New("empty archive")
	}
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
