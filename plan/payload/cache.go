package payload

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"path/filepath"
	"sync/atomic"

	"github.com/openshift-recover/recover/internal/bounded"
)

// The decoded-payload cache (Options.CacheDir) keeps a payload's decoded manifests,
// so that a payload already seen is not decoded again. An entry is one file,
// <CacheDir>/decoded-<key>, where key is the sha256 of cacheFormat, what the
// manifests are rendered with (ReleaseImage, the profile, image-references) and
// the payload directory's DigestDir (with any manifest file it does not read):
// the same bytes give the same key, other bytes another one, so an entry never
// describes a payload it was not made from. The files are read once, for the
// digest, the key and, on a miss, the decoding.
//
// The file is sealed (bounded.WriteSealed): cacheMagic, the format version
// (uint32), the key, the sha256 of the body, then the body: a gob of
// cachedPayload. Decisions and the order are not kept; they depend on the
// cluster and are recomputed. An entry that is truncated, corrupted, of another
// format version or for another key is ignored: the payload is decoded afresh and
// the entry rewritten. Entries are written to a temporary file, fsynced and
// renamed into place, so a reader sees a whole entry or none.

const (
	cacheMagic  = "recover decoded payload\n"
	cacheFormat = 3
	// maxCacheEntryBytes bounds an entry read back; the real 4.4 payload's is
	// about 5 MiB.
	maxCacheEntryBytes = 512 << 20
)

// cachedPayload is an entry's body: the table of the objects' strings (joined,
// with each one's length) and the manifests.
type cachedPayload struct {
	Strings   string
	Lengths   []int
	Manifests []cachedManifest
}

// cachedManifest is what an entry keeps of a manifest: where it came from, its
// compact JSON and its object as a tree (objcodec.go); everything else is derived
// from the object as decodeFile derives it.
type cachedManifest struct {
	Dir, File           string
	Index, Line         int
	RunLevel, Component string
	Rendered            bool
	JSON                []byte
	Object              []byte
}

// payloadFiles is what one pass over a payload directory read: DigestDir's digest
// of it and the content of every manifest file, in payload order.
type payloadFiles struct {
	digest string
	raws   [][]byte
	// unwalked are the manifest files DigestDir does not read (not regular files,
	// such as symbolic links), by index; their content is not in digest.
	unwalked []int
}

// readPayloadFiles reads every file of the payload directory once: each regular
// file into DigestDir's digest, the manifest files (and manifest files DigestDir
// does not read, such as symbolic links, besides) kept for decoding. ok is false
// when any file cannot be read: the normal path then reports a manifest file's
// error in payload order, and DigestDir its own.
func readPayloadFiles(root string, files []manifestFile) (pf payloadFiles, ok bool) {
	keep := make(map[string]bool, len(files))
	for _, f := range files {
		if f.err != nil {
			return pf, false
		}
		keep[f.sub+"/"+f.name] = true
	}
	digest, kept, err := digestDir(root, keep)
	if err != nil {
		return pf, false
	}
	pf.digest = digest
	pf.raws = make([][]byte, len(files))
	for i, f := range files {
		raw, walked := kept[f.sub+"/"+f.name]
		if !walked {
			if raw, err = bounded.ReadFile(filepath.Join(root, f.sub, f.name), maxManifestFileBytes); err != nil {
				return payloadFiles{}, false
			}
			pf.unwalked = append(pf.unwalked, i)
		}
		pf.raws[i] = raw
	}
	return pf, true
}

// cacheKey is the entry key of a payload read by readPayloadFiles: the sha256 of
// cacheFormat, the render inputs, the directory's digest (every regular file's
// path, size and content) and the name and content of each manifest file the
// digest does not cover.
func cacheKey(files []manifestFile, pf payloadFiles, data renderData, images []ImageRef) (key [sha256.Size]byte) {
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
	put([]byte(pf.digest))
	binary.BigEndian.PutUint64(n[:], uint64(len(pf.unwalked)))
	h.Write(n[:])
	for _, i := range pf.unwalked {
		put([]byte(files[i].sub + "/" + files[i].name))
		put(pf.raws[i])
	}
	h.Sum(key[:0])
	return key
}

func cachePath(dir string, key [sha256.Size]byte) string {
	return filepath.Join(dir, "decoded-"+hex.EncodeToString(key[:]))
}

// readCache returns the manifests of a valid entry for key, or false.
func readCache(dir string, key [sha256.Size]byte, workers int) ([]*Manifest, bool) {
	body, ok := bounded.ReadSealed(cachePath(dir, key), cacheMagic, cacheFormat, key, maxCacheEntryBytes)
	if !ok {
		return nil, false
	}
	var cp cachedPayload
	if err := gob.NewDecoder(bytes.NewReader(body)).Decode(&cp); err != nil {
		return nil, false
	}
	strs, ok := splitStrings(cp.Strings, cp.Lengths)
	if !ok {
		return nil, false
	}
	out := make([]*Manifest, len(cp.Manifests))
	var bad atomic.Bool
	inOrder(len(cp.Manifests), workers, func(i int) bool {
		if bad.Load() {
			return false
		}
		c := cp.Manifests[i]
		obj, err := readObject(c.Object, strs)
		if err == nil {
			out[i], err = newManifest(c.Dir, c.File, c.Index, c.Line, c.JSON, obj)
		}
		if err != nil {
			bad.Store(true)
			return false
		}
		out[i].RunLevel, out[i].Component, out[i].Rendered = c.RunLevel, c.Component, c.Rendered
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
	t := newStringTable()
	cms := make([]cachedManifest, len(ms))
	for i, m := range ms {
		tree, ok := appendTree(nil, t, m.Object.Object)
		if !ok {
			return
		}
		cms[i] = cachedManifest{Dir: m.Dir, File: m.File, Index: m.Index, Line: m.Line, RunLevel: m.RunLevel, Component: m.Component, Rendered: m.Rendered, JSON: m.JSON, Object: tree}
	}
	cp := cachedPayload{Manifests: cms}
	cp.Strings, cp.Lengths = joinStrings(t.list)
	var body bytes.Buffer
	if err := gob.NewEncoder(&body).Encode(cp); err != nil {
		return
	}
	_ = bounded.WriteSealed(cachePath(dir, key), cacheMagic, cacheFormat, key, body.Bytes())
}
