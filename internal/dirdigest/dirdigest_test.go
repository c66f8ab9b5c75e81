package dirdigest

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// TestSumFormat pins Sum's format, which plans record: every regular
// file's slash-separated relative path, size and content, sorted by path (so
// "a-b/y" comes before "a/x"); symbolic links and directories are not read.
func TestSumFormat(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"b.txt": "bb", "a/x": "1", "a-b/y": "22"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("b.txt", filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("a-b/y\x002\x0022" + "a/x\x001\x001" + "b.txt\x002\x00bb"))
	want := "sha256:" + hex.EncodeToString(sum[:])
	got, err := Sum(dir)
	if err != nil || got != want {
		t.Fatalf("Sum = %s %v, want %s", got, err, want)
	}
	// Kept files are hashed alike and handed back; a symbolic link is not
	// read, so not kept.
	got, kept, err := Read(dir, func(rel string) bool { return rel == "a/x" || rel == "l" }, 1<<20)
	if err != nil || got != want || len(kept) != 1 || string(kept["a/x"]) != "1" {
		t.Fatalf("Read = %s %q %v", got, kept, err)
	}
	if _, err := Sum(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("no error for a missing directory")
	}
}
