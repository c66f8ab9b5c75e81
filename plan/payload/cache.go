package payload

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"path/filepath"
	"sync/atomic"

	"github.com/openshift-recover/recover/internal/bounded"
	"github.com/openshift-recover/recover/internal/dirdigest"
)

// The decoded-payload cache (Options.CacheDir) keeps a payload's decoded manifests,
// so that a payload already seen is not decoded again. An entry is one file,
// <CacheDir>/decoded-<key>, where key is the sha256 of cacheFormat, what the
// manifests are rendered with (ReleaseImage, the profile, image-references) and
// the payload directory's digest, dirdigest.Sum (with any manifest file it does
// not read):
// the same bytes give the same key, other bytes another one, so an entry never
// describes a payload it was not made from. The files are read once, for the
// digest, the key and, on a miss, the decoding.
//
// The file is sealed (bounded.WriteSealed): cacheMagic, the format version
// (uint32), the key, the body's checksum, then the body (below). Decisions and
// the order are not kept; they depend on the cluster and are recomputed. An entry
// that is truncated, corrupted, of another format version or for another key, or
// whose body does not read back, is ignored: the payload is decoded afresh and
// the entry rewritten. Entries are written to a temporary file, fsynced and
// renamed into place, so a reader sees a whole entry or none.

const (
	cacheMagic  = "recover decoded payload\n"
	cacheFormat = 5 // 5: documents end as apimachinery's YAMLReader ends them
	// maxCacheEntryBytes bounds an entry read back; the real 4.4 payload's is
	// about 4 MiB.
	maxCacheEntryBytes = 512 << 20
)

// The body of an entry is, in the reader's forms (objcodec.go): the table of the
// objects' strings, the number of manifests, then each manifest: its directory,
// file, document index, line, run-level, component, whether it was rendered, its
// compact JSON and its object as a tree. Everything else is derived from the
// object as decodeFile derives it.

// cachedManifest is one manifest of a body; as read, JSON and Object share the
// body's memory.
type cachedManifest struct {
	Dir, File           string
	Index, Line         int
	RunLevel, Component string
	Rendered            bool
	JSON, Object        []byte
}

func (c *cachedManifest) append(b []byte) []byte {
	rendered := byte(0)
	if c.Rendered {
		rendered = 1
	}
	b = appendText(appendText(b, c.Dir), c.File)
	b = binary.AppendUvarint(binary.AppendUvarint(b, uint64(c.Index)), uint64(c.Line))
	b = append(appendText(appendText(b, c.RunLevel), c.Component), rendered)
	return appendBytes(appendBytes(b, c.JSON), c.Object)
}

func (r *reader) manifest() (c cachedManifest, err error) {
	if c.Dir, err = r.text(); err != nil {
		return c, err
	}
	if c.File, err = r.text(); err != nil {
		return c, err
	}
	for _, n := range []*int{&c.Index, &c.Line} {
		v, err := r.uvarint()
		if err != nil || v > math.MaxInt32 {
			return c, errBadTree
		}
		*n = int(v)
	}
	if c.RunLevel, err = r.text(); err != nil {
		return c, err
	}
	if c.Component, err = r.text(); err != nil {
		return c, err
	}
	if len(r.b) == 0 || r.b[0] > 1 {
		return c, errBadTree
	}
	c.Rendered, r.b = r.b[0] == 1, r.b[1:]
	if c.JSON, err = r.bytes(); err != nil {
		return c, err
	}
	c.Object, err = r.bytes()
	return c, err
}

// payloadFiles is what one pass over a payload directory read: its digest
// (dirdigest.Sum) and the content of every manifest file, in payload order.
type payloadFiles struct {
	digest string
	raws   [][]byte
	// unwalked are the manifest files the digest does not read (not regular files,
	// such as symbolic links), by index; their content is not in digest.
	unwalked []int
}

// readPayloadFiles reads every file of the payload directory once: each regular
// file into the directory's digest (dirdigest.Read), the manifest files (and
// manifest files the digest does not read, such as symbolic links, besides) kept
// for decoding. ok is false when any file cannot be read: the normal path then
// reports a manifest file's error in payload order, and dirdigest.Sum its own.
func readPayloadFiles(root string, files []manifestFile) (pf payloadFiles, ok bool) {
	keep := make(map[string]bool, len(files))
	for _, f := range files {
		if f.err != nil {
			return pf, false
		}
		keep[f.sub+"/"+f.name] = true
	}
	digest, kept, err := dirdigest.Read(root, func(rel string) bool { return keep[rel] }, maxManifestFileBytes)
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
func cacheKey(files []manifestFile, pf payloadFiles, data renderData, images []ImageRef) [sha256.Size]byte {
	kh := bounded.NewKeyHash()
	kh.Uint(cacheFormat)
	kh.String(data.ReleaseImage)
	kh.String(data.ClusterProfile)
	kh.Uint(uint64(len(images)))
	for _, r := range images {
		kh.String(r.Name)
		kh.String(r.From)
	}
	kh.String(pf.digest)
	kh.Uint(uint64(len(pf.unwalked)))
	for _, i := range pf.unwalked {
		kh.String(files[i].sub + "/" + files[i].name)
		kh.Bytes(pf.raws[i])
	}
	return kh.Key()
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
	strs, cms, err := parseBody(body)
	if err != nil {
		return nil, false
	}
	out := make([]*Manifest, len(cms))
	var bad atomic.Bool
	inOrder(len(cms), workers, func(i int) bool {
		if bad.Load() {
			return false
		}
		c := cms[i]
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

// parseBody reads an entry's body: the string table and the manifests, whose
// trees are decoded later, on the workers.
func parseBody(body []byte) ([]string, []cachedManifest, error) {
	r := reader{body}
	strs, err := r.table()
	if err != nil {
		return nil, nil, err
	}
	n, err := r.count(10) // a manifest takes at least ten bytes
	if err != nil {
		return nil, nil, err
	}
	cms := make([]cachedManifest, n)
	for i := range cms {
		if cms[i], err = r.manifest(); err != nil {
			return nil, nil, err
		}
	}
	if len(r.b) != 0 {
		return nil, nil, errBadTree
	}
	return strs, cms, nil
}

// writeCache stores manifests under key. It is best effort: a cache that cannot be
// written only costs the next load a decode.
func writeCache(dir string, key [sha256.Size]byte, ms []*Manifest) {
	// The trees first, into one buffer, for the string table that precedes them;
	// then the body, in one allocation of its size.
	t := newStringTable()
	var trees []byte
	ends := make([]int, len(ms))
	size := (len(ms) + 2) * binary.MaxVarintLen64
	for i, m := range ms {
		var ok bool
		if trees, ok = t.appendTree(trees, m.Object.Object); !ok {
			return // a value no decoding makes
		}
		ends[i] = len(trees)
		size += 7*binary.MaxVarintLen64 + 1 + len(m.Dir) + len(m.File) + len(m.RunLevel) + len(m.Component) + len(m.JSON)
	}
	size += len(trees) + len(t.list)*binary.MaxVarintLen64 + t.bytes
	body := binary.AppendUvarint(appendTable(make([]byte, 0, size), t.list), uint64(len(ms)))
	start := 0
	for i, m := range ms {
		c := cachedManifest{Dir: m.Dir, File: m.File, Index: m.Index, Line: m.Line, RunLevel: m.RunLevel, Component: m.Component, Rendered: m.Rendered, JSON: m.JSON, Object: trees[start:ends[i]]}
		body = c.append(body)
		start = ends[i]
	}
	_ = bounded.WriteSealed(cachePath(dir, key), cacheMagic, cacheFormat, key, body)
}
