package cachetest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Entries returns the paths of the entries (files named prefix...) in a cache
// directory, none when it does not exist, and fails the test on any other file,
// such as a temporary file a write left behind.
func Entries(t testing.TB, dir, prefix string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range des {
		if !strings.HasPrefix(e.Name(), prefix) {
			t.Fatalf("cache %s holds %s besides entries", dir, e.Name())
		}
		out = append(out, filepath.Join(dir, e.Name()))
	}
	return out
}

// ConcurrentWriters runs load n times at once, as n processes filling one cache
// would, and fails on any error; then the cache directory must be 0700 and hold
// exactly one entry, 0600, which it returns.
func ConcurrentWriters(t testing.TB, n int, dir, prefix string, load func() error) string {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range errs {
		wg.Go(func() { errs[i] = load() })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	st, err := os.Stat(dir)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("cache directory %s: %v %v", dir, st.Mode(), err)
	}
	entries := Entries(t, dir, prefix)
	if len(entries) != 1 {
		t.Fatalf("%d entries after %d concurrent writers", len(entries), n)
	}
	if st, err := os.Stat(entries[0]); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("cache entry: %v %v", st.Mode(), err)
	}
	return entries[0]
}
