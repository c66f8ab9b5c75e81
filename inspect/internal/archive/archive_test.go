package archive

import (
	"archive/tar"
	"bytes"
	"io"
	"io/fs"
	"os"
	"strings"
	"testing"
)

func tarOf(t *testing.T, files map[string]string, order []string) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, name := range order {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(files[name])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(files[name])); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestKeptFilesSpillToDiskAndLogsStream: kept files beyond the memory budget go
// to a private temporary directory and read back the same; streamed files are
// handed over as they come and never kept; Close removes what was spilled.
func TestKeptFilesSpillToDiskAndLogsStream(t *testing.T) {
	files := map[string]string{
		"mg/a.yaml":                strings.Repeat("a", 600),
		"mg/dir/b.yaml":            strings.Repeat("b", 600),
		"mg/dir/c.yaml":            strings.Repeat("c", 600),
		"mg/logs/current.log":      "line 1\nline 2\n",
		"mg/ignored/something.bin": "x",
	}
	order := []string{"mg/a.yaml", "mg/logs/current.log", "mg/dir/b.yaml", "mg/dir/c.yaml", "mg/ignored/something.bin"}
	var streamed []string
	fsys, err := Read(bytes.NewReader(tarOf(t, files, order)), Options{
		Keep:   func(n string) bool { return strings.HasSuffix(n, ".yaml") },
		Stream: func(n string) bool { return strings.HasSuffix(n, ".log") },
		OnStream: func(n string, r io.Reader) error {
			data, err := io.ReadAll(r)
			streamed = append(streamed, n+"="+string(data))
			return err
		},
	}, Limits{MaxFileBytes: 1 << 20, MaxKeptBytes: 1 << 20, MaxArchiveBytes: 1 << 20, MaxEntries: 10, MaxMemoryBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	st := fsys.(*store)
	if len(st.spilled) != 2 || st.inMemory != 600 || st.dir == "" {
		t.Fatalf("in memory %d bytes, spilled %v", st.inMemory, st.spilled)
	}
	for _, name := range []string{"mg/a.yaml", "mg/dir/b.yaml", "mg/dir/c.yaml"} {
		data, err := fs.ReadFile(fsys, name)
		if err != nil || string(data) != files[name] {
			t.Errorf("%s: %v, %d bytes", name, err, len(data))
		}
		if fi, err := fs.Stat(fsys, name); err != nil || fi.Size() != 600 || fi.Name() != name[strings.LastIndex(name, "/")+1:] {
			t.Errorf("stat %s: %v %v", name, fi, err)
		}
	}
	if entries, err := fs.ReadDir(fsys, "mg/dir"); err != nil || len(entries) != 2 {
		t.Errorf("ReadDir: %v %v", entries, err)
	}
	if _, err := fs.Stat(fsys, "mg/logs/current.log"); err == nil {
		t.Error("a streamed file was kept")
	}
	if len(streamed) != 1 || streamed[0] != "mg/logs/current.log=line 1\nline 2\n" {
		t.Errorf("streamed %q", streamed)
	}
	dir := st.dir
	if err := fsys.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the spill directory %s is still there: %v", dir, err)
	}
}

// TestKeptBytesLimit: the total of kept files is refused past its limit, before
// the entry is read.
func TestKeptBytesLimit(t *testing.T) {
	files := map[string]string{"a.yaml": strings.Repeat("a", 700), "b.yaml": strings.Repeat("b", 700)}
	_, err := Read(bytes.NewReader(tarOf(t, files, []string{"a.yaml", "b.yaml"})), Options{Keep: func(string) bool { return true }},
		Limits{MaxFileBytes: 1 << 20, MaxKeptBytes: 1000, MaxArchiveBytes: 1 << 20, MaxEntries: 10, MaxMemoryBytes: 100})
	if err == nil || !strings.Contains(err.Error(), "more than 1000 bytes of resource files") {
		t.Fatalf("err %v", err)
	}
}
