package payload

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/openshift-recover/recover/internal/bounded"
)

// The decoded-payload cache (Options.CacheDir) keeps a payload's decoded manifests,
// so that a payload already seen is not decoded again. An entry is one file,
// <CacheDir>/decoded-<key>, where key is the sha256 of cacheFormat, what the
// manifests are rendered with (ReleaseImage, the profile, image-references) and
// every manifest file's name and content: the same bytes give the same key, other
// bytes another one, so an entry never describes a payload it was not made from.
//
// The file is cacheMagic, the format version (uint32), the key, the sha256 of the
// body, then the body: a gob of cachedManifest. Decisions and the order are not
// kept; they depend on the cluster and are recomputed. An entry that is truncated,
// corrupted, of another format version or for another key is ignored: the payload
// is decoded afresh and the entry rewritten. Entries are written to a temporary
// file, fsynced and renamed into place, so a reader sees a whole entry or none.

const (
	cacheMagic   = "recover decoded payload\n"
	cacheFormat  = 1
	headerLength = len(cacheMagic) + 4 + 2*sha256.Size
	// maxCacheEntryBytes bounds an entry read back; the real 4.4 payload's is
	// about 5 MiB.
	maxCacheEntryBytes = 512 << 20
)

// cachedManifest is what an entry keeps of a manifest: where it came from and its
// compact JSON; everything else is derived from the JSON as decodeFile derives it.
type cachedManifest struct {
	Dir, File           string
	Index, Line         int
	RunLevel, Component string
	Rendered            bool
	JSON                []byte
}

// cacheKey reads every manifest file and returns the entry key with the files'
// contents (so they are read once). ok is false when a file cannot be read: the
// normal path then reports it in payload order.
func cacheKey(root string, files []manifestFile, data renderData, images []ImageRef) (key [sha256.Size]byte, raws [][]byte, ok bool) {
	h := sha256.New()
	var n [8]byte
	put := func(b []byte) {
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	binary.BigEndian.PutUint64(n[:], cacheFormat)
	h.Write(n[:])
	put([]byte(data.ReleaseImage))
	put([]byte(data.ClusterProfile))
	binary.BigEndian.PutUint64(n[:], uint64(len(images)))
	h.Write(n[:])
	for _, r := range images {
		put([]byte(r.Name))
		put([]byte(r.From))
	}
	raws = make([][]byte, len(files))
	for i, f := range files {
		if f.err != nil {
			return key, nil, false
		}
		raw, err := bounded.ReadFile(filepath.Join(root, f.sub, f.name), maxManifestFileBytes)
		if err != nil {
			return key, nil, false
		}
		raws[i] = raw
		put([]byte(f.sub + "/" + f.name))
		put(raw)
	}
	h.Sum(key[:0])
	return key, raws, true
}

func cachePath(dir string, key [sha256.Size]byte) string {
	return filepath.Join(dir, "decoded-"+hex.EncodeToString(key[:]))
}

// readCache returns the manifests of a valid entry for key, or false.
func readCache(dir string, key [sha256.Size]byte, workers int) ([]*Manifest, bool) {
	data, err := bounded.ReadFile(cachePath(dir, key), maxCacheEntryBytes)
	if err != nil || len(data) < headerLength || string(data[:len(cacheMagic)]) != cacheMagic {
		return nil, false
	}
	h := data[len(cacheMagic):]
	if binary.BigEndian.Uint32(h) != cacheFormat || !bytes.Equal(h[4:4+sha256.Size], key[:]) {
		return nil, false
	}
	body := data[headerLength:]
	if sum := sha256.Sum256(body); !bytes.Equal(h[4+sha256.Size:4+2*sha256.Size], sum[:]) {
		return nil, false
	}
	var cms []cachedManifest
	if err := gob.NewDecoder(bytes.NewReader(body)).Decode(&cms); err != nil {
		return nil, false
	}
	out := make([]*Manifest, len(cms))
	var bad atomic.Bool
	inOrder(len(cms), workers, func(i int) bool {
		if bad.Load() {
			return false
		}
		c := cms[i]
		var obj map[string]any
		if err := json.Unmarshal(c.JSON, &obj); err != nil || obj == nil {
			bad.Store(true)
			return false
		}
		m, err := newManifest(c.Dir, c.File, c.Index, c.Line, c.JSON, obj)
		if err != nil {
			bad.Store(true)
			return false
		}
		m.RunLevel, m.Component, m.Rendered = c.RunLevel, c.Component, c.Rendered
		out[i] = m
		return true
	})
	if bad.Load() {
		return nil, false
	}
	return out, true
}

// writeCache stores manifests under key. It is best effort: a cache that cannot be
// written only costs the next load a decode.
func writeCache(dir string, key [sha256.Size]byte, ms []*Manifest) {
	cms := make([]cachedManifest, len(ms))
	for i, m := range ms {
		cms[i] = cachedManifest{Dir: m.Dir, File: m.File, Index: m.Index, Line: m.Line, RunLevel: m.RunLevel, Component: m.Component, Rendered: m.Rendered, JSON: m.JSON}
	}
	var body bytes.Buffer
	if err := gob.NewEncoder(&body).Encode(cms); err != nil {
		return
	}
	if err := mkdirPrivate(dir); err != nil {
		return
	}
	f, err := os.CreateTemp(dir, ".decoded-*")
	if err != nil {
		return
	}
	defer os.Remove(f.Name()) // after a successful rename, there is nothing to remove
	var hdr bytes.Buffer
	hdr.WriteString(cacheMagic)
	_ = binary.Write(&hdr, binary.BigEndian, uint32(cacheFormat))
	hdr.Write(key[:])
	sum := sha256.Sum256(body.Bytes())
	hdr.Write(sum[:])
	_, err = f.Write(hdr.Bytes())
	if err == nil {
		_, err = f.Write(body.Bytes())
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
		return
	}
	if os.Rename(f.Name(), cachePath(dir, key)) == nil {
		if d, err := os.Open(dir); err == nil {
			_ = d.Sync()
			d.Close()
		}
	}
}
