package payload

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/internal/bounded"
	"github.com/openshift-recover/recover/internal/dirdigest"
	"github.com/openshift-recover/recover/internal/testing/cachetest"
)

// cacheEntries returns the cache's entry files, failing on leftovers of a write.
func cacheEntries(t *testing.T, dir string) []string {
	t.Helper()
	return cachetest.Entries(t, dir, "decoded-")
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
		"not a body":    func(b []byte) []byte { return reseal(b, []byte("garbage")) },
		"bad manifest":  func(b []byte) []byte { return b }, // replaced below
		"cut tree": func(b []byte) []byte {
			strs, cms, err := parseBody(b[bounded.SealedHeaderLength(cacheMagic):])
			if err != nil {
				t.Fatal(err)
			}
			cms[0].Object = cms[0].Object[:len(cms[0].Object)/2]
			return reseal(b, appendBody(strs, cms))
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

// appendBody is the body of an entry with these strings and manifests.
func appendBody(strs []string, cms []cachedManifest) []byte {
	body := binary.AppendUvarint(appendTable(nil, strs), uint64(len(cms)))
	for i := range cms {
		body = cms[i].append(body)
	}
	return body
}

// TestCacheBodyRefusesDamage: a body cut anywhere, or with any byte changed, is
// refused or read without a panic; the whole body reads back as written.
func TestCacheBodyRefusesDamage(t *testing.T) {
	o := Options{CacheDir: t.TempDir()}
	if _, err := LoadDir(filepath.Join(exampleReleases, "4.4.4"), o); err != nil {
		t.Fatal(err)
	}
	entry, err := os.ReadFile(cacheEntries(t, o.CacheDir)[0])
	if err != nil {
		t.Fatal(err)
	}
	body := entry[bounded.SealedHeaderLength(cacheMagic):]
	strs, cms, err := parseBody(body)
	if err != nil || len(cms) < 10 {
		t.Fatalf("%d manifests: %v", len(cms), err)
	}
	if again := appendBody(strs, cms); string(again) != string(body) {
		t.Fatal("the body does not read back as written")
	}
	for n := 0; n < len(body); n++ {
		if _, _, err := parseBody(body[:n]); err == nil {
			t.Fatalf("body cut at %d of %d: accepted", n, len(body))
		}
	}
	for i := 0; i < len(body); i += 7 {
		bad := append([]byte(nil), body...)
		bad[i] ^= 0xff
		_, _, _ = parseBody(bad) // must not panic
	}
}

// reseal returns a sealed entry with the key of entry and body as its body.
func reseal(entry, body []byte) []byte {
	var key [32]byte
	copy(key[:], entry[len(cacheMagic)+4:])
	return append(bounded.SealedHeader(cacheMagic, cacheFormat, key, body), body...)
}

func TestDecodedCachePermissionsAndConcurrentWriters(t *testing.T) {
	dir := filepath.Join(exampleReleases, "4.4.4")
	cache := filepath.Join(t.TempDir(), "a", "decoded")
	o := Options{CacheDir: cache}
	want, err := LoadDir(dir, Options{DirDigest: true})
	if err != nil {
		t.Fatal(err)
	}
	cachetest.ConcurrentWriters(t, 8, cache, "decoded-", func() error {
		_, err := LoadDir(dir, o)
		return err
	})
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

// TestDecodedCacheFollowsSymlinkedManifest: a manifest file behind a symbolic
// link is not in the directory's digest, yet it is in the key: changing the file it
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
		d, err := dirdigest.Sum(dir)
		if err != nil || p.DirDigest != d {
			t.Fatalf("DirDigest %s, dirdigest.Sum %s %v", p.DirDigest, d, err)
		}
	}
	if n := len(cacheEntries(t, o.CacheDir)); n != 2 {
		t.Fatalf("%d entries for two contents of the linked file", n)
	}
}
