package sigtest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
)

// Key makes a signing key named name.
func Key(t testing.TB, name string) *openpgp.Entity {
	t.Helper()
	e, err := openpgp.NewEntity(name, "test", name+"@example.com", nil)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// Keyring writes e's public key to dir/<name>.gpg, armored or binary, and
// returns the path.
func Keyring(t testing.TB, dir string, e *openpgp.Entity, armored bool) string {
	t.Helper()
	var buf bytes.Buffer
	if armored {
		w, err := armor.Encode(&buf, openpgp.PublicKeyType, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Serialize(w); err != nil {
			t.Fatal(err)
		}
		w.Close()
	} else if err := e.Serialize(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, e.PrimaryIdentity().UserId.Name+".gpg")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Atomic is the JSON of an atomic container signature.
func Atomic(digest, typ, identity string) string {
	return fmt.Sprintf(`{"critical":{"type":%q,"image":{"docker-manifest-digest":%q},"identity":{"docker-reference":%q}},"optional":{"creator":"test","timestamp":1590339720}}`, typ, digest, identity)
}

// Sign returns content signed by e as an OpenPGP signed message.
func Sign(t testing.TB, e *openpgp.Entity, content string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := openpgp.Sign(&buf, e, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(content)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Release returns a valid atomic container signature of digest by e.
func Release(t testing.TB, e *openpgp.Entity, digest string) []byte {
	return Sign(t, e, Atomic(digest, "atomic container signature", "quay.io/openshift-release-dev/ocp-release:test"))
}

// Store writes sigs as signature-1, -2, ... for digest in a new directory store
// under dir and returns the store.
func Store(t testing.TB, dir, digest string, sigs ...[]byte) string {
	t.Helper()
	store, err := os.MkdirTemp(dir, "sigstore-")
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(store, strings.Replace(digest, ":", "=", 1))
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, s := range sigs {
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("signature-%d", i+1)), s, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return store
}
