package bounded

import (
	"crypto/sha256"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

const testMagic = "recover test entry\n"

func TestSealedRoundTripAndRefusals(t *testing.T) {
	key := sha256.Sum256([]byte("key"))
	body := []byte("the body")
	dir := filepath.Join(t.TempDir(), "a", "cache")
	path := filepath.Join(dir, "entry")
	if err := WriteSealed(path, testMagic, 3, key, body); err != nil {
		t.Fatal(err)
	}
	got, ok := ReadSealed(path, testMagic, 3, key, 1<<20)
	if !ok || string(got) != string(body) {
		t.Fatalf("read back %q %v", got, ok)
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("directory %v %v", st.Mode(), err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("entry %v %v", st.Mode(), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("%d files in the directory: a temporary file was left", len(entries))
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	hl := SealedHeaderLength(testMagic)
	other := sha256.Sum256([]byte("other"))
	for name, tc := range map[string]struct {
		spoil   func([]byte) []byte
		version uint32
		key     [32]byte
		limit   int64
	}{
		"truncated body":  {spoil: func(b []byte) []byte { return b[:len(b)-1] }},
		"appended byte":   {spoil: func(b []byte) []byte { return append(b, 0) }},
		"header only":     {spoil: func(b []byte) []byte { return b[:hl] }},
		"short header":    {spoil: func(b []byte) []byte { return b[:hl-1] }},
		"empty":           {spoil: func([]byte) []byte { return nil }},
		"flipped body":    {spoil: func(b []byte) []byte { b[len(b)-1] ^= 1; return b }},
		"flipped sum":     {spoil: func(b []byte) []byte { b[hl-1] ^= 1; return b }},
		"other magic":     {spoil: func(b []byte) []byte { b[0] = 'X'; return b }},
		"stored version":  {spoil: func(b []byte) []byte { binary.BigEndian.PutUint32(b[len(testMagic):], 4); return b }},
		"asked version":   {version: 4},
		"asked other key": {key: other},
		"over the limit":  {limit: int64(len(good) - 1)},
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "entry")
			data := append([]byte(nil), good...)
			if tc.spoil != nil {
				data = tc.spoil(data)
			}
			if err := os.WriteFile(p, data, 0o600); err != nil {
				t.Fatal(err)
			}
			version, k, limit := uint32(3), key, int64(1<<20)
			if tc.version != 0 {
				version = tc.version
			}
			if tc.key != ([32]byte{}) {
				k = tc.key
			}
			if tc.limit != 0 {
				limit = tc.limit
			}
			if b, ok := ReadSealed(p, testMagic, version, k, limit); ok {
				t.Fatalf("accepted, body %q", b)
			}
		})
	}
	if _, ok := ReadSealed(filepath.Join(dir, "missing"), testMagic, 3, key, 1<<20); ok {
		t.Fatal("a missing entry was read")
	}
	// Rewriting replaces the entry whole.
	if err := WriteSealed(path, testMagic, 3, key, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if got, ok := ReadSealed(path, testMagic, 3, key, 1<<20); !ok || string(got) != "new" {
		t.Fatalf("after rewrite %q %v", got, ok)
	}
}

// TestKeyHashPrefixesLengths: values split differently never give the same key,
// and the same values always do.
func TestKeyHashPrefixesLengths(t *testing.T) {
	key := func(parts ...string) [32]byte {
		kh := NewKeyHash()
		for _, p := range parts {
			kh.String(p)
		}
		return kh.Key()
	}
	if key("ab", "c") == key("a", "bc") || key("ab") == key("a", "b") || key("") == key() {
		t.Error("differently split values hash alike")
	}
	if key("a", "bc") != key("a", "bc") {
		t.Error("the same values hash differently")
	}
	kb, ks := NewKeyHash(), NewKeyHash()
	kb.Bytes([]byte("x"))
	ks.String("x")
	if kb.Key() != ks.Key() {
		t.Error("Bytes and String of the same text differ")
	}
}
