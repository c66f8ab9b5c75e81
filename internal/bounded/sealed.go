package bounded

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
)

// A sealed file is a cache entry a reader can trust to be whole and to be the one
// it asked for: a magic line, the format version (big-endian uint32), the entry's
// key (a sha256 of what the entry was made from), the CRC-32C of the body
// (big-endian uint32), then the body. recover's caches of decoded inputs
// (payloads, update graphs) keep their entries so.
//
// The checksum is there to catch a damaged file (a torn write, a flipped bit),
// not a forged one: whoever can write the cache directory can write any entry.
// CRC-32C catches every burst of up to 32 bits and anything else but for one in
// 2^32, and the processor computes it an order of magnitude faster than sha256,
// which for a payload's entry of several MiB is milliseconds on every warm load.

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// SealedHeaderLength is the length of a sealed file's header for magic.
func SealedHeaderLength(magic string) int { return len(magic) + 4 + sha256.Size + 4 }

// ReadSealed returns the body of the sealed file at path, read up to limit bytes,
// when its magic, version and key are the ones given and the body matches its
// checksum; false for anything else (missing, truncated, corrupt, another format
// version or another key).
func ReadSealed(path, magic string, version uint32, key [sha256.Size]byte, limit int64) ([]byte, bool) {
	data, err := ReadFile(path, limit)
	if err != nil || len(data) < SealedHeaderLength(magic) || string(data[:len(magic)]) != magic {
		return nil, false
	}
	h := data[len(magic):]
	if binary.BigEndian.Uint32(h) != version || !bytes.Equal(h[4:4+sha256.Size], key[:]) {
		return nil, false
	}
	body := data[SealedHeaderLength(magic):]
	if binary.BigEndian.Uint32(h[4+sha256.Size:]) != crc32.Checksum(body, castagnoli) {
		return nil, false
	}
	return body, true
}

// SealedHeader is the header of the sealed file of body: with body after it, the
// bytes WriteSealed writes.
func SealedHeader(magic string, version uint32, key [sha256.Size]byte, body []byte) []byte {
	hdr := make([]byte, 0, SealedHeaderLength(magic))
	hdr = append(hdr, magic...)
	hdr = binary.BigEndian.AppendUint32(hdr, version)
	hdr = append(hdr, key[:]...)
	return binary.BigEndian.AppendUint32(hdr, crc32.Checksum(body, castagnoli))
}

// WriteSealed writes body as the sealed file at path: into a temporary file of
// its directory (created 0700 if missing, and made 0700), 0600, fsynced, then
// renamed into place and the directory fsynced, so a concurrent reader or writer
// sees a whole entry or none.
func WriteSealed(path, magic string, version uint32, key [sha256.Size]byte, body []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after a successful rename, there is nothing to remove
	_, err = f.Write(SealedHeader(magic, version, key, body))
	if err == nil {
		_, err = f.Write(body)
	}
	if err == nil {
		err = f.Chmod(0o600)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// KeyHash makes a sealed entry's key: the sha256 of a sequence of numbers and
// length-prefixed byte strings, so that no two sequences of values hash alike.
type KeyHash struct {
	h hash.Hash
	n [8]byte
}

// NewKeyHash returns an empty key hash.
func NewKeyHash() *KeyHash { return &KeyHash{h: sha256.New()} }

// Uint writes v (8 bytes, big-endian).
func (k *KeyHash) Uint(v uint64) {
	binary.BigEndian.PutUint64(k.n[:], v)
	k.h.Write(k.n[:])
}

// Bytes writes b's length, then b.
func (k *KeyHash) Bytes(b []byte) {
	k.Uint(uint64(len(b)))
	k.h.Write(b)
}

// String writes s as Bytes does.
func (k *KeyHash) String(s string) {
	k.Uint(uint64(len(s)))
	io.WriteString(k.h, s)
}

// Key is the key of what was written.
func (k *KeyHash) Key() (key [sha256.Size]byte) {
	k.h.Sum(key[:0])
	return key
}
