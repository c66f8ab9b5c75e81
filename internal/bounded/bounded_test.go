package bounded

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, n int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, bytes.Repeat([]byte("x"), n), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name    string
		path    string
		limit   int64
		wantLen int
		wantErr func(error) bool
	}{
		{"under the limit", write("small", 10), 11, 10, nil},
		{"exactly the limit", write("exact", 11), 11, 11, nil},
		{"over the limit", write("big", 12), 11, 0, IsLimit},
		{"empty", write("empty", 0), 1, 0, nil},
		{"missing", filepath.Join(dir, "nope"), 1, 0, func(err error) bool { return errors.Is(err, fs.ErrNotExist) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := ReadFile(tc.path, tc.limit)
			if tc.wantErr == nil {
				if err != nil || len(data) != tc.wantLen {
					t.Fatalf("ReadFile = %d bytes, %v; want %d bytes", len(data), err, tc.wantLen)
				}
				return
			}
			if !tc.wantErr(err) {
				t.Fatalf("ReadFile error = %v, not the expected kind", err)
			}
			var pe *fs.PathError
			if !errors.As(err, &pe) || pe.Path != tc.path {
				t.Fatalf("error %v does not name the file %s", err, tc.path)
			}
		})
	}
}

// An endless device is cut at the limit instead of filling memory.
func TestReadFileStopsAnEndlessDevice(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	_, err := ReadFile("/dev/zero", 1<<20)
	if !IsLimit(err) || !strings.Contains(err.Error(), "larger than 1 MiB") {
		t.Fatalf("ReadFile(/dev/zero) = %v, want a limit error naming 1 MiB", err)
	}
}

func TestReadFS(t *testing.T) {
	fsys := fstest.MapFS{"a/b.yaml": {Data: []byte("kind: Node\n")}}
	if data, err := ReadFS(fsys, "a/b.yaml", 64); err != nil || string(data) != "kind: Node\n" {
		t.Fatalf("ReadFS = %q, %v", data, err)
	}
	if _, err := ReadFS(fsys, "a/b.yaml", 4); !IsLimit(err) {
		t.Fatalf("ReadFS over the limit = %v, want a limit error", err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{100: "100 bytes", 1 << 10: "1 KiB", 1536: "1536 bytes", 64 << 20: "64 MiB", 2 << 30: "2 GiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
