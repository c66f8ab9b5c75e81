package plan

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/openshift-recover/recover/plan/payload"
)

// ManifestDigest returns "sha256:<hex>" of the compact JSON of a manifest object:
// the rule apply verifies (compact first, because encoding/json re-indents an
// embedded json.RawMessage when the plan is written with indentation).
func ManifestDigest(object json.RawMessage) (string, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, object); err != nil {
		return "", fmt.Errorf("manifest object is not valid JSON: %w", err)
	}
	return digestBytes(buf.Bytes()), nil
}

func digestBytes(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// embedManifest turns a payload manifest into the plan's embedded form. The
// payload's JSON is compact already (payload.Manifest.JSON), so its digest is
// apply's; the checker re-verifies every digest with ManifestDigest.
func embedManifest(m *payload.Manifest) *Manifest {
	obj := json.RawMessage(m.JSON)
	return &Manifest{
		File: m.Dir + "/" + m.File, Index: m.Index,
		APIVersion: m.APIVersion, Kind: m.Kind, Namespace: m.Namespace, Name: m.Name,
		CreateOnly: m.CreateOnly, Object: obj, Digest: digestBytes(obj),
	}
}

// DigestDir returns "sha256:<hex>" over a directory's regular files: each file's
// slash-separated relative path, size and content, in path order. It identifies a
// payload or graph-data directory in the plan's inputs.
func DigestDir(dir string) (string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	h := sha256.New()
	for _, path := range files {
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return "", err
		}
		f, err := os.Open(path)
		if err != nil {
			return "", err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(rel), st.Size())
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
