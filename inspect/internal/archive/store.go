package archive

import (
	"archive/tar"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"testing/fstest"
)

// store holds an archive's kept files: in memory while they fit memBudget, then
// in a private temporary directory. Its tree (and every in-memory file) is an
// fstest.MapFS; a spilled file is a MapFS entry without data whose content is
// opened from disk.
type store struct {
	tree      fstest.MapFS
	spilled   map[string]string // name -> file on disk
	memBudget int64
	inMemory  int64
	dir       string
}

func newStore(memBudget int64) *store {
	return &store{tree: fstest.MapFS{}, spilled: map[string]string{}, memBudget: memBudget}
}

// add stores one entry, reading exactly hdr.Size bytes from r.
func (s *store) add(name string, r io.Reader, hdr *tar.Header) error {
	if s.inMemory+hdr.Size <= s.memBudget {
		data, err := io.ReadAll(io.LimitReader(r, hdr.Size+1))
		if err != nil {
			return fmt.Errorf("reading archive entry %q: %v", hdr.Name, err)
		}
		if int64(len(data)) != hdr.Size {
			return fmt.Errorf("archive entry %q is truncated", hdr.Name)
		}
		s.inMemory += hdr.Size
		s.tree[name] = &fstest.MapFile{Data: data, Mode: 0o444, ModTime: hdr.ModTime}
		delete(s.spilled, name)
		return nil
	}
	if s.dir == "" {
		dir, err := os.MkdirTemp("", "recover-archive-")
		if err != nil {
			return fmt.Errorf("archive entry %q: no room in memory and no temporary directory: %v", hdr.Name, err)
		}
		s.dir = dir
	}
	p := filepath.Join(s.dir, strconv.Itoa(len(s.spilled)))
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("archive entry %q: %v", hdr.Name, err)
	}
	n, err := io.Copy(f, io.LimitReader(r, hdr.Size))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("reading archive entry %q: %v", hdr.Name, err)
	}
	if n != hdr.Size {
		return fmt.Errorf("archive entry %q is truncated", hdr.Name)
	}
	s.tree[name] = &fstest.MapFile{Mode: 0o444, ModTime: hdr.ModTime}
	s.spilled[name] = p
	return nil
}

// Open opens a kept file or directory.
func (s *store) Open(name string) (fs.File, error) {
	if p, ok := s.spilled[name]; ok {
		f, err := os.Open(p)
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return spilledFile{File: f, name: name}, nil
	}
	return s.tree.Open(name)
}

// ReadDir lists a directory.
func (s *store) ReadDir(name string) ([]fs.DirEntry, error) { return s.tree.ReadDir(name) }

// Stat describes a kept file or directory.
func (s *store) Stat(name string) (fs.FileInfo, error) {
	if _, ok := s.spilled[name]; ok {
		f, err := s.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return f.Stat()
	}
	return s.tree.Stat(name)
}

// Close removes the spilled files.
func (s *store) Close() error {
	if s.dir == "" {
		return nil
	}
	err := os.RemoveAll(s.dir)
	s.dir = ""
	return err
}

// spilledFile is a spilled file, named as in the archive.
type spilledFile struct {
	*os.File
	name string
}

func (f spilledFile) Stat() (fs.FileInfo, error) {
	fi, err := f.File.Stat()
	if err != nil {
		return nil, err
	}
	return namedInfo{FileInfo: fi, name: filepath.Base(f.name)}, nil
}

type namedInfo struct {
	fs.FileInfo
	name string
}

func (n namedInfo) Name() string { return n.name }
