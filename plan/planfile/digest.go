package planfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/openshift-recover/recover/plan/payload"
)

// ManifestDigest returns "sha256:<hex>" of the compact JSON of a manifest object:
// the rule apply verifies (compact first, because encoding/json re-indents an
// embedded json.RawMessage when the plan is written with indentation).
//
// An object that is valid and compact already, as every payload manifest is, is
// recognised by isCompactJSON (several times faster than json.Compact) and hashed
// as it is; anything else takes json.Compact, which compacts it or says what is
// wrong.
func ManifestDigest(object json.RawMessage) (string, error) {
	if IsCompactJSON(object) {
		return DigestBytes(object), nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, object); err != nil {
		return "", fmt.Errorf("manifest object is not valid JSON: %w", err)
	}
	return DigestBytes(buf.Bytes()), nil
}

func DigestBytes(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// embedManifest turns a payload manifest into the plan's embedded form, without
// its digest: digestManifests fills the digests of a whole list of steps at once.
func EmbedManifest(m *payload.Manifest) *Manifest {
	return &Manifest{
		File: m.Dir + "/" + m.File, Index: m.Index,
		APIVersion: m.APIVersion, Kind: m.Kind, Namespace: m.Namespace, Name: m.Name,
		CreateOnly: m.CreateOnly, Object: json.RawMessage(m.JSON),
	}
}

// digestManifests sets the digest of every embedded manifest of steps (hashing
// the objects is the largest part of making the steps). The payload's JSON is
// compact already (payload.Manifest.JSON), so its digest is apply's; the checker
// re-verifies every digest with ManifestDigest.
func DigestManifests(steps []Step) {
	EachManifest(steps, func(_ int, mf *Manifest) { mf.Digest = DigestBytes(mf.Object) })
}

// eachManifest calls f with every step's embedded manifest on GOMAXPROCS
// goroutines; f must touch only what belongs to step i.
func EachManifest(steps []Step, f func(i int, mf *Manifest)) {
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range steps {
		if mf := steps[i].Manifest; mf != nil {
			g.Go(func() error {
				f(i, mf)
				return nil
			})
		}
	}
	_ = g.Wait()
}
