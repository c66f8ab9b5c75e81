package golden

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aymanbagabas/go-udiff"
)

var update = flag.Bool("update", false, "rewrite the golden files the tests compare with")

// Update reports whether the test binary runs with -update, for a test whose
// golden output is more than one file (it rewrites them itself, then compares).
func Update() bool { return *update }

// Assert compares got byte for byte with the golden file at path (relative to the
// test's package directory). With -update it writes got to path instead (creating
// its directory) and passes. On a mismatch or a missing file the test fails with a
// unified diff, control characters escaped so that terminal styles stay readable,
// and the command that rewrites the file.
func Assert(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("golden: %v", err)
			return
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("golden: %v", err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("golden file %s does not exist; %s writes it", path, RerunHint(t))
		return
	} else if err != nil {
		t.Fatalf("golden: %v", err)
		return
	}
	if bytes.Equal(want, got) {
		return
	}
	diff := udiff.Unified(path, "got", escape(string(want)), escape(string(got)))
	t.Fatalf("%s differs from the output (-golden +got); if the change is intended, %s rewrites it:\n%s", path, RerunHint(t), diff)
}

// RerunHint returns the command that reruns t's top-level test with -update:
// go test ./<pkg> -run '^<Test>$' -update, <pkg> being the working directory
// (the test's package) relative to the module root.
func RerunHint(t testing.TB) string {
	name, _, _ := strings.Cut(t.Name(), "/")
	return fmt.Sprintf("go test ./%s -run '^%s$' -update", packageDir(), name)
}

// packageDir returns the working directory relative to the nearest directory
// above it that holds a go.mod, with slashes; "." when it is the root itself.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil {
				return "."
			}
			return filepath.ToSlash(rel)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "."
		}
		dir = parent
	}
}

// escape quotes every line's control characters (ANSI styles, tabs, carriage
// returns), keeping the newlines, so that a diff shows what differs.
func escape(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		q := strconv.Quote(l)
		lines[i] = q[1 : len(q)-1]
	}
	return strings.Join(lines, "\n")
}

// Path returns the golden file named after the test, testdata/<t.Name()>.golden
// (a subtest's file sits in a directory named after its parent), the layout the
// TUI's screen goldens use.
func Path(t testing.TB) string {
	return filepath.Join("testdata", filepath.FromSlash(t.Name())+".golden")
}
