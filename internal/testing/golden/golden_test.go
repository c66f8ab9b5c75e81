package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records a failure instead of stopping the test.
type recorder struct {
	testing.TB
	name   string
	failed string
}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return r.name }
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
}

func TestAssert(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.golden")
	if err := os.WriteFile(path, []byte("one\ntwo \x1b[1mbold\x1b[0m\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, got string
		want            []string // substrings of the failure; none: must pass
	}{
		{name: "equal", path: path, got: "one\ntwo \x1b[1mbold\x1b[0m\nthree\n"},
		{name: "differs", path: path, got: "one\ntwo \x1b[1mbold\x1b[0m\nTHREE\n",
			want: []string{path + " differs", "-three", "+THREE", ` two \x1b[1mbold\x1b[0m`, "go test ./internal/testing/golden -run '^TestSomething$' -update"}},
		{name: "trailing newline", path: path, got: "one\ntwo \x1b[1mbold\x1b[0m\nthree",
			want: []string{path + " differs"}},
		{name: "missing", path: filepath.Join(dir, "none.golden"), got: "x",
			want: []string{"none.golden does not exist", "-run '^TestSomething$' -update"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{TB: t, name: "TestSomething/case_one"}
			Assert(r, tc.path, []byte(tc.got))
			if len(tc.want) == 0 && r.failed != "" {
				t.Fatalf("failed: %s", r.failed)
			}
			if len(tc.want) > 0 && r.failed == "" {
				t.Fatal("passed, want a failure")
			}
			for _, w := range tc.want {
				if !strings.Contains(r.failed, w) {
					t.Errorf("failure lacks %q:\n%s", w, r.failed)
				}
			}
		})
	}
}

func TestAssertUpdateWrites(t *testing.T) {
	defer func(old bool) { *update = old }(*update)
	*update = true
	path := filepath.Join(t.TempDir(), "sub", "dir", "y.golden")
	r := &recorder{TB: t, name: "TestSomething"}
	Assert(r, path, []byte("fresh\x00bytes"))
	if r.failed != "" {
		t.Fatalf("failed: %s", r.failed)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "fresh\x00bytes" {
		t.Fatalf("golden file holds %q, %v", b, err)
	}
	if !Update() {
		t.Error("Update() = false under -update")
	}
}

func TestPath(t *testing.T) {
	t.Run("sub/case", func(t *testing.T) {
		if got, want := Path(t), filepath.Join("testdata", "TestPath", "sub", "case.golden"); got != want {
			t.Errorf("Path = %s, want %s", got, want)
		}
	})
}
