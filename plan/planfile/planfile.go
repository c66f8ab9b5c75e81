package planfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"sigs.k8s.io/yaml"

	"github.com/openshift-recover/recover/internal/bounded"
)

// The plan document's one reader and one writer: `recover plan -o json`, the
// TUI's save and `recover apply --plan` all go through Encode, Save and Load,
// and every one of them runs Validate.

// MaxBytes is the largest plan Load and Parse read. A plan carries every manifest
// it applies, tens of MiB for a whole release.
const MaxBytes = 256 << 20

// FileError is a plan file that cannot be read or is not a valid plan. It is
// bad input.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string {
	if errors.Is(e.Err, fs.ErrNotExist) || errors.Is(e.Err, fs.ErrPermission) {
		return e.Err.Error() // the path is in the error already
	}
	return fmt.Sprintf("plan %s: %v", e.Path, e.Err)
}
func (e *FileError) Unwrap() error { return e.Err }

// BadInput reports true: the plan file is missing, unreadable or malformed.
func (e *FileError) BadInput() bool { return true }

// Encode writes p as the plan document: indented JSON with a trailing newline.
// It is what `recover plan -o json` prints and what Save writes.
func Encode(w io.Writer, p *Plan) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(p)
}

// Digest is the digest of a plan document's bytes ("sha256:<hex>"), which the
// journal records so that a resume executes the same plan.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Load reads and validates a plan document and returns it with its Digest.
// Errors are *FileError (bad input).
func Load(path string) (*Plan, string, error) {
	data, err := bounded.ReadFile(path, MaxBytes)
	if err != nil {
		return nil, "", &FileError{Path: path, Err: fmt.Errorf("reading plan: %w", err)}
	}
	return Parse(data, path)
}

// Parse reads a plan document's bytes and validates it, as Load does for a
// file; where names where the bytes were kept (a file, ConfigMaps in the
// cluster). The same bytes have the same Digest wherever they are kept.
// Errors are *FileError (bad input).
func Parse(data []byte, where string) (*Plan, string, error) {
	if len(data) > MaxBytes {
		return nil, "", &FileError{Path: where, Err: fmt.Errorf("the plan is larger than %d bytes", MaxBytes)}
	}
	doc := data
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] != '{' {
		// recover plan -o yaml: the same document in YAML, read as JSON.
		j, err := yaml.YAMLToJSON(data)
		if err != nil {
			return nil, "", &FileError{Path: where, Err: fmt.Errorf("not a plan document: %v; make one with 'recover plan -o json' or '-o yaml'", err)}
		}
		doc = j
	}
	var p Plan
	if err := json.Unmarshal(doc, &p); err != nil {
		return nil, "", &FileError{Path: where, Err: fmt.Errorf("not a plan document: %v; make one with 'recover plan -o json' or '-o yaml'", err)}
	}
	if err := Validate(&p); err != nil {
		return nil, "", &FileError{Path: where, Err: err}
	}
	return &p, Digest(data), nil
}

// Save writes p to path as Load reads it (Encode's bytes), refusing an invalid
// plan and an existing file, syncs it to disk, and loads it back for the digest
// the journal records. A plan that could not be written whole is removed, so no
// half-written plan is left for apply to find.
func Save(path string, p *Plan) (digest string, err error) {
	if err := Validate(p); err != nil {
		return "", &FileError{Path: path, Err: fmt.Errorf("not saving the plan: %w", err)}
	}
	var buf bytes.Buffer
	if err := Encode(&buf, p); err != nil {
		return "", fmt.Errorf("encoding plan: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", fmt.Errorf("saving plan: %w", err)
	}
	_, err = f.Write(buf.Bytes())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", fmt.Errorf("saving plan %s: %w", path, err)
	}
	_, digest, err = Load(path)
	return digest, err
}
