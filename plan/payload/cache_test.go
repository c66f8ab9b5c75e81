package payload

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/openshift-recover/recover/internal/bounded"
)

// cacheEntries returns the cache's entry files, failing on leftovers of a write.
func cacheEntries(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "decoded-") {
			t.Fatalf("cache holds %s besides entries", e.Name())
		}
		out = append(out, filepath.Join(dir, e.Name()))
	}
	return out
}

func TestDecodedCacheWarmEqualsCold(t *testing.T) {
	cases := payloadCases(t)
	for _, c := range cases {
		c.o.DirDigest = true // a load with the cache computes the digest anyway
		want, err := LoadDir(c.dir, c.o)
		if err != nil {
			t.Fatal(err)
		}
		c.o.CacheDir = t.TempDir()
		cold, err := LoadDir(c.dir, c.o)
		if err != nil {
			t.Fatal(err)
		}
		entries := cacheEntries(t, c.o.CacheDir)
		if len(entries) != 1 {
			t.Fatalf("%s: %d cache entries after a cold load", c.dir, len(entries))
		}
		warm, err := LoadDir(c.dir, c.o)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(cold, want) || !reflect.DeepEqual(warm, want) {
			t.Fatalf("%s: the cached payload differs from the decoded one", c.dir)
		}
		// Another release image renders the CVO's manifests otherwise: another entry.
		c.o.ReleaseImage = "quay.io/x/other@sha256:" + strings.Repeat("b", 64)
		if _, err := LoadDir(c.dir, c.o); err != nil {
			t.Fatal(err)
		}
		if n := len(cacheEntries(t, c.o.CacheDir)); n != 2 {
			t.Fatalf("%s: %d entries after loading with another release image", c.dir, n)
		}
	}
}

// TestDecodedCacheIsRead shows a warm load reads the entry: an entry whose JSON
// was changed (checksum recomputed) is believed, so the other tests' "ignored"
// really means the entry was refused.
func TestDecodedCacheIsRead(t *testing.T) {
	dir := filepath.Join(exampleReleases, "4.4.4")
	o := Options{CacheDir: t.TempDir()}
	if _, err := LoadDir(dir, o); err != nil {
		t.Fatal(err)
	}
	entry := cacheEntries(t, o.CacheDir)[0]
	key, ms := readEntry(t, o.CacheDir, entry)
	ms[0].Object.Object["kind"] = "Marked" + ms[0].Kind
	writeCache(o.CacheDir, key, ms)
	p, err := LoadDir(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.Manifests[0].Kind, "Marked") {
		t.Fatalf("warm load did not come from the cache: kind %s", p.Manifests[0].Kind)
	}
}

func readEntry(t *testing.T, cache, entry string) ([32]byte, []*Manifest) {
	t.Helper()
	data, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	var key [32]byte
	copy(key[:], data[len(cacheMagic)+4:])
	ms, ok := readCache(cache, key, 2)
	if !ok {
		t.Fatalf("entry %s does not read back", entry)
	}
	return key, ms
}

func TestDecodedCacheIgnoresBadEntries(t *testing.T) {
	dir := filepath.Join(exampleReleases, "4.4.4")
	want, err := LoadDir(dir, Options{DirDigest: true})
	if err != nil {
		t.Fatal(err)
	}
	for name, spoil := range map[string]func([]byte) []byte{
		"truncated":     func(b []byte) []byte { return b[:len(b)/2] },
		"header only":   func(b []byte) []byte { return b[:bounded.SealedHeaderLength(cacheMagic)] },
		"empty":         func([]byte) []byte { return nil },
		"flipped byte":  func(b []byte) []byte { b[len(b)-10] ^= 0x40; return b },
		"other magic":   func(b []byte) []byte { b[0] = 'X'; return b },
		"other version": func(b []byte) []byte { binary.BigEndian.PutUint32(b[len(cacheMagic):], cacheFormat+1); return b },
		"other key":     func(b []byte) []byte { b[len(cacheMagic)+4] ^= 1; return b },
		"not gob":       func(b []byte) []byte { return reseal(b[:bounded.SealedHeaderLength(cacheMagic)], []byte("garbage")) },
		"bad manifest":  func(b []byte) []byte { return b }, // replaced below
		"cut tree": func(b []byte) []byte {
			var cp cachedPayload
			hl := bounded.SealedHeaderLength(cacheMagic)
			if err := gob.NewDecoder(bytes.NewReader(b[hl:])).Decode(&cp); err != nil {
				t.Fatal(err)
			}
			cp.Manifests[0].Object = cp.Manifests[0].Object[:len(cp.Manifests[0].Object)/2]
			var body bytes.Buffer
			if err := gob.NewEncoder(&body).Encode(cp); err != nil {
				t.Fatal(err)
			}
			return reseal(b[:hl], body.Bytes())
		},
		"appended bytes": func(b []byte) []byte { return append(b, 0) },
	} {
		t.Run(name, func(t *testing.T) {
			o := Options{CacheDir: t.TempDir()}
			if _, err := LoadDir(dir, o); err != nil {
				t.Fatal(err)
			}
			entry := cacheEntries(t, o.CacheDir)[0]
			good, err := os.ReadFile(entry)
			if err != nil {
				t.Fatal(err)
			}
			bad := spoil(append([]byte(nil), good...))
			if name == "bad manifest" {
				key, ms := readEntry(t, o.CacheDir, entry)
				delete(ms[0].Object.Object, "kind")
				writeCache(o.CacheDir, key, ms)
				bad, _ = os.ReadFile(entry)
			}
			if err := os.WriteFile(entry, bad, 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := LoadDir(dir, o)
			if err != nil {
				t.Fatalf("a spoiled entry made the load fail: %v", err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatal("a spoiled entry was trusted")
			}
			again, err := os.ReadFile(entry)
			if err != nil || string(again) != string(good) {
				t.Fatalf("the spoiled entry was not rewritten: %v", err)
			}
		})
	}
}

// reseal puts a body behind a header with the body's checksum recomputed.
func reseal(hdr, body []byte) []byte {
	h := append([]byte(nil), hdr...)
	sum := sha256Sum(body)
	copy(h[len(cacheMagic)+4+32:], sum[:])
	return append(h, body...)
}

func TestDecodedCachePermissionsAndConcurrentWriters(t *testing.T) {
	dir := filepath.Join(exampleReleases, "4.4.4")
	cache := filepath.Join(t.TempDir(), "a", "decoded")
	o := Options{CacheDir: cache}
	want, err := LoadDir(dir, Options{DirDigest: true})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() { _, errs[i] = LoadDir(dir, o) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	st, err := os.Stat(cache)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("cache directory: %v %v", st.Mode(), err)
	}
	entries := cacheEntries(t, cache) // no temporary files left
	if len(entries) != 1 {
		t.Fatalf("%d entries", len(entries))
	}
	st, err = os.Stat(entries[0])
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("cache entry: %v %v", st.Mode(), err)
	}
	got, err := LoadDir(dir, o)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("after concurrent writers: %v", err)
	}
}

// TestDecodedCacheFollowsContent: a changed manifest file is another key, so the
// old entry is not used.
func TestDecodedCacheFollowsContent(t *testing.T) {
	dir := writePayload(t, map[string]string{"release-manifests/0000_50_a_01_cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n  namespace: ns\n" + annotated})
	o := Options{CacheDir: t.TempDir()}
	if _, err := LoadDir(dir, o); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "release-manifests/0000_50_a_01_cm.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: two\n  namespace: ns\n"+annotated), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := LoadDir(dir, o)
	if err != nil || p.Manifests[0].Name != "two" {
		t.Fatalf("changed file: %v %+v", err, p.Manifests)
	}
	// A bad file is reported as without the cache.
	if err := os.WriteFile(filepath.Join(dir, "release-manifests/0000_50_a_01_cm.yaml"), []byte("key: [unclosed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err1 := LoadDir(dir, o)
	_, err2 := LoadDir(dir, Options{})
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
		t.Fatalf("bad file with the cache: %v, without: %v", err1, err2)
	}
}

func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }

// TestDecodedCacheFollowsSymlinkedManifest: a manifest file behind a symbolic
// link is not in DigestDir's digest, yet it is in the key: changing the file it
// points at is another key.
func TestDecodedCacheFollowsSymlinkedManifest(t *testing.T) {
	dir := writePayload(t, map[string]string{"release-manifests/0000_50_a_00_ns.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns\n" + annotated})
	target := filepath.Join(t.TempDir(), "cm.yaml")
	write := func(name string) {
		t.Helper()
		if err := os.WriteFile(target, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "+name+"\n  namespace: ns\n"+annotated), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("one")
	if err := os.Symlink(target, filepath.Join(dir, "release-manifests/0000_50_a_01_cm.yaml")); err != nil {
		t.Fatal(err)
	}
	o := Options{CacheDir: t.TempDir()}
	for _, name := range []string{"one", "two"} {
		write(name)
		p, err := LoadDir(dir, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Manifests) != 2 || p.Manifests[1].Name != name {
			t.Fatalf("the linked manifest reads %+v, want %s", p.Manifests[len(p.Manifests)-1], name)
		}
		d, err := DigestDir(dir)
		if err != nil || p.DirDigest != d {
			t.Fatalf("DirDigest %s, DigestDir %s %v", p.DirDigest, d, err)
		}
	}
	if n := len(cacheEntries(t, o.CacheDir)); n != 2 {
		t.Fatalf("%d entries for two contents of the linked file", n)
	}
}
