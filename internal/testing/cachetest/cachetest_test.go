package cachetest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestEntries(t *testing.T) {
	dir := t.TempDir()
	if got := Entries(t, filepath.Join(dir, "missing"), "e-"); got != nil {
		t.Fatalf("a missing directory has entries %v", got)
	}
	for _, name := range []string{"e-1", "e-2"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if got := Entries(t, dir, "e-"); len(got) != 2 || got[0] != filepath.Join(dir, "e-1") {
		t.Fatalf("entries %v", got)
	}
	if err := os.WriteFile(filepath.Join(dir, ".tmp-1"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ft := &fatalRecorder{TB: t}
	func() {
		defer func() { _ = recover() }()
		Entries(ft, dir, "e-")
	}()
	if !ft.failed {
		t.Fatal("a leftover temporary file was not reported")
	}
}

// fatalRecorder records Fatalf instead of failing the test, and stops the call
// as Fatalf would.
type fatalRecorder struct {
	testing.TB
	failed bool
}

func (f *fatalRecorder) Fatalf(string, ...any) {
	f.failed = true
	panic("fatal")
}

func (f *fatalRecorder) Helper() {}
