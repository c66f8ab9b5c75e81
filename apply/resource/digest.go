package resource

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// ManifestDigest returns "sha256:<hex>" of the compact JSON encoding of a plan
// manifest's object. Compacting first makes the digest independent of the plan
// file's indentation (encoding/json re-indents embedded raw messages).
func ManifestDigest(object json.RawMessage) (string, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, object); err != nil {
		return "", fmt.Errorf("manifest object is not valid JSON: %w", err)
	}
	sum := sha256.Sum256(buf.Bytes())
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}
