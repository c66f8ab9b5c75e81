package payload

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/openshift-recover/recover/internal/testing/shareddata"
)

// realPayloadFiles reads every manifest file of the real 4.4 payload.
func realPayloadFiles(b *testing.B) (files [][]byte, total int64) {
	dir := shareddata.RealData(b, "payload-release-4.4")
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && hasManifestExtension(d.Name()) && strings.Contains(path, "manifests") {
			data, _ := os.ReadFile(path)
			files = append(files, data)
			total += int64(len(data))
		}
		return nil
	})
	return files, total
}

// BenchmarkDecodeRealPayloadYAML is the baseline: decode each document of every
// manifest file of the real 4.4 payload with sigs.k8s.io/yaml (YAML -> JSON -> map).
func BenchmarkDecodeRealPayloadYAML(b *testing.B) {
	files, total := realPayloadFiles(b)
	b.SetBytes(total)
	for b.Loop() {
		for _, f := range files {
			for _, d := range splitYAML(f) {
				var v any
				_ = yaml.Unmarshal(d.data, &v) // templates in manifests/ may not parse; the cost counts
			}
		}
	}
}

// BenchmarkDecodeRealPayloadFast is the same with the loader's decoder
// (go.yaml.in/yaml/v2 straight to the map form, plus the compact JSON a manifest
// keeps, which the baseline does not even write).
func BenchmarkDecodeRealPayloadFast(b *testing.B) {
	files, total := realPayloadFiles(b)
	b.SetBytes(total)
	for b.Loop() {
		for _, f := range files {
			for _, d := range splitYAML(f) {
				_, _, _ = decodeYAMLDocument(d.data)
			}
		}
	}
}

// BenchmarkLoadRealPayload loads, renders, decides and orders the real 4.4 payload
// (file reads included).
func BenchmarkLoadRealPayload(b *testing.B) {
	dir := shareddata.RealData(b, "payload-release-4.4")
	for b.Loop() {
		if _, err := LoadDir(dir, Options{Version: "4.4.0"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadExamplePayload(b *testing.B) {
	for b.Loop() {
		if _, err := LoadDir(filepath.Join(exampleReleases, "4.4.4"), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadRealPayloadOneWorker is BenchmarkLoadRealPayload decoded by one
// goroutine, as before parallel decoding.
func BenchmarkLoadRealPayloadOneWorker(b *testing.B) {
	dir := shareddata.RealData(b, "payload-release-4.4")
	for b.Loop() {
		if _, err := loadDir(dir, Options{Version: "4.4.0"}, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadRealPayloadCacheCold loads with an empty decoded-payload cache each
// time: hashing the files, decoding, and writing the entry (fsync included).
func BenchmarkLoadRealPayloadCacheCold(b *testing.B) {
	dir := shareddata.RealData(b, "payload-release-4.4")
	for b.Loop() {
		b.StopTimer()
		cache := b.TempDir()
		b.StartTimer()
		if _, err := LoadDir(dir, Options{Version: "4.4.0", CacheDir: cache}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadRealPayloadCacheWarm loads from a warm decoded-payload cache:
// hashing the files, reading and checking the entry, JSON to objects.
func BenchmarkLoadRealPayloadCacheWarm(b *testing.B) {
	dir := shareddata.RealData(b, "payload-release-4.4")
	o := Options{Version: "4.4.0", CacheDir: b.TempDir()}
	if _, err := LoadDir(dir, o); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := LoadDir(dir, o); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRealPayloadCacheKey is the cost of the key alone: the one pass that
// reads every file of the directory for its digest (dirdigest.Sum) (which a plan records)
// and keeps the manifest files, then the key. A warm load pays it; so does a plan
// without the cache, for the digest.
func BenchmarkRealPayloadCacheKey(b *testing.B) {
	dir := shareddata.RealData(b, "payload-release-4.4")
	files := listManifestFiles(dir)
	for b.Loop() {
		pf, ok := readPayloadFiles(dir, files)
		if !ok {
			b.Fatal("unreadable file")
		}
		_ = cacheKey(files, pf, renderData{}, nil)
	}
}
