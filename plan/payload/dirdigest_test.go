package payload

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// TestDigestDirFormat pins DigestDir's format, which plans record: every regular
// file's slash-separated relative path, size and content, sorted by path (so
// "a-b/y" comes before "a/x"); symbolic links and directories are not read.
func TestDigestDirFormat(t *testing.T) {
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
	got, err := DigestDir(dir)
	if err != nil || got != want {
		t.Fatalf("DigestDir = %s %v, want %s", got, err, want)
	}
	// Kept files are hashed alike and handed back.
	got, kept, err := digestDir(dir, map[string]bool{"a/x": true, "l": true})
	if err != nil || got != want || len(kept) != 1 || string(kept["a/x"]) != "1" {
		t.Fatalf("digestDir = %s %q %v", got, kept, err)
	}
	if _, err := DigestDir(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("no error for a missing directory")
	}
}

// TestLoadDirDigestIsDigestDir: the digest a load computes from its own reads is
// DigestDir's, with and without the decoded-payload cache, cold and warm.
func TestLoadDirDigestIsDigestDir(t *testing.T) {
	for _, c := range payloadCases(t) {
		want, err := DigestDir(c.dir)
		if err != nil {
			t.Fatal(err)
		}
		if p, err := LoadDir(c.dir, c.o); err != nil || p.DirDigest != "" {
			t.Fatalf("%s: DirDigest %q without asking (%v)", c.dir, p.DirDigest, err)
		}
		cache := t.TempDir()
		for _, o := range []Options{{DirDigest: true}, {CacheDir: cache}, {CacheDir: cache, DirDigest: true}} {
			o.Inclusion, o.ReleaseImage, o.Version = c.o.Inclusion, c.o.ReleaseImage, c.o.Version
			p, err := LoadDir(c.dir, o)
			if err != nil {
				t.Fatal(err)
			}
			if p.DirDigest != want {
				t.Fatalf("%s with %+v: DirDigest %s, DigestDir %s", c.dir, o, p.DirDigest, want)
			}
		}
	}
}
