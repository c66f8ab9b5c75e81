package signature

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"

	"github.com/openshift-recover/recover/internal/testing/inputcheck"
	"github.com/openshift-recover/recover/internal/testing/sigtest"
)

var (
	digest  = "sha256:" + hexOf("release 4.4.4")
	other   = "sha256:" + hexOf("release 4.4.5")
	release = "quay.io/openshift-release-dev/ocp-release@" + digest
)

func hexOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

var (
	key        = sigtest.Key
	keyring    = sigtest.Keyring
	sign       = sigtest.Sign
	atomicJSON = sigtest.Atomic
)

func good(t testing.TB, e *openpgp.Entity) []byte { return sigtest.Release(t, e, digest) }

// store writes signatures as signature-1, -2, ... for d in a directory store.
func store(t testing.TB, d string, sigs ...[]byte) string {
	t.Helper()
	return sigtest.Store(t, t.TempDir(), d, sigs...)
}

func TestVerify(t *testing.T) {
	red, blue, stranger := key(t, "red"), key(t, "blue"), key(t, "stranger")
	dir := t.TempDir()
	redRing, blueRing := keyring(t, dir, red, true), keyring(t, dir, blue, false)
	tampered := good(t, red)
	tampered[len(tampered)/2] ^= 0x01
	many := make([][]byte, MaxSignatures)
	for i := range many {
		many[i] = []byte("not a signature")
	}
	many = append(many, good(t, red))
	for _, tc := range []struct {
		name     string
		keyrings []string
		stores   func(t *testing.T) []string
		want     string // "" means verified
	}{
		{"one keyring, armored", []string{redRing}, func(t *testing.T) []string { return []string{store(t, digest, good(t, red))} }, ""},
		{"binary keyring", []string{blueRing}, func(t *testing.T) []string { return []string{store(t, digest, good(t, blue))} }, ""},
		{"every keyring signed", []string{redRing, blueRing}, func(t *testing.T) []string { return []string{store(t, digest, good(t, blue), good(t, red))} }, ""},
		{"signatures split across stores", []string{redRing, blueRing}, func(t *testing.T) []string {
			return []string{store(t, digest, good(t, blue)), "file://" + store(t, digest, good(t, red))}
		}, ""},
		{"an invalid signature before a valid one", []string{redRing}, func(t *testing.T) []string {
			return []string{store(t, digest, []byte("garbage"), good(t, stranger), good(t, red))}
		}, ""},
		{"only one of two keyrings signed", []string{redRing, blueRing}, func(t *testing.T) []string { return []string{store(t, digest, good(t, red))} }, "no valid signature from " + blueRing},
		{"signed by an unknown key", []string{redRing}, func(t *testing.T) []string { return []string{store(t, digest, good(t, stranger))} }, "not in the keyring"},
		{"signature for another release", []string{redRing}, func(t *testing.T) []string {
			return []string{store(t, digest, sign(t, red, atomicJSON(other, atomicType, "x")))}
		}, "the signature is for " + other},
		{"wrong type", []string{redRing}, func(t *testing.T) []string {
			return []string{store(t, digest, sign(t, red, atomicJSON(digest, "cosign container image signature", "x")))}
		}, "not \"atomic container signature\""},
		{"no identity", []string{redRing}, func(t *testing.T) []string {
			return []string{store(t, digest, sign(t, red, atomicJSON(digest, atomicType, "")))}
		}, "no identity"},
		{"unknown fields", []string{redRing}, func(t *testing.T) []string {
			return []string{store(t, digest, sign(t, red, strings.Replace(atomicJSON(digest, atomicType, "x"), `"critical"`, `"extra":1,"critical"`, 1)))}
		}, "unknown field"},
		{"tampered signature", []string{redRing}, func(t *testing.T) []string { return []string{store(t, digest, tampered)} }, "signature"},
		{"no signatures", []string{redRing}, func(t *testing.T) []string { return []string{store(t, digest)} }, "signature-1: not found"},
		{"valid signature past the search limit", []string{redRing}, func(t *testing.T) []string { return []string{store(t, digest, many...)} }, "no valid signature"},
		{"store is not a directory", []string{redRing}, func(t *testing.T) []string { return []string{filepath.Join(dir, "nope")} }, "is not a directory"},
		{"store scheme", []string{redRing}, func(t *testing.T) []string { return []string{"ftp://mirror/sigs"} }, "want an http(s)://"},
		{"keyring missing", []string{filepath.Join(dir, "nope.gpg")}, func(t *testing.T) []string { return []string{store(t, digest)} }, "reading keyring"},
		{"keyring not a keyring", []string{writeFile(t, dir, "junk.gpg", "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\njunk\n")}, func(t *testing.T) []string { return []string{store(t, digest)} }, "not an OpenPGP public keyring"},
		{"store without keyring", nil, func(t *testing.T) []string { return []string{store(t, digest)} }, "without a keyring"},
		{"keyring without store", []string{redRing}, func(t *testing.T) []string { return nil }, "without a signature store"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Verify(context.Background(), digest, Options{Keyrings: tc.keyrings, Stores: tc.stores(t)})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("want verified, got %v", err)
				}
				if len(res.Signers) != len(tc.keyrings) || !strings.HasPrefix(res.String(), "verified: "+digest) {
					t.Fatalf("result %+v %q", res, res.String())
				}
				return
			}
			if p := inputcheck.Problem(err); p != "" {
				t.Fatal(p)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not say %q", err, tc.want)
			}
		})
	}
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHTTPStore(t *testing.T) {
	red := key(t, "red")
	ring := keyring(t, t.TempDir(), red, true)
	var requests atomic.Int32
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		switch {
		case status != http.StatusOK:
			http.Error(w, "no", status)
		case r.URL.Path == "/sigs/"+strings.Replace(digest, ":", "=", 1)+"/signature-1":
			_, _ = w.Write([]byte("junk"))
		case r.URL.Path == "/sigs/"+strings.Replace(digest, ":", "=", 1)+"/signature-2":
			_, _ = w.Write(good(t, red))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	res, err := Verify(context.Background(), digest, Options{Keyrings: []string{ring}, Stores: []string{srv.URL + "/sigs/"}})
	if err != nil || !strings.Contains(res.Sources[ring], "signature-2") {
		t.Fatalf("verify over HTTP: %v %+v", err, res)
	}
	if n := requests.Load(); n != 2 {
		t.Errorf("%d requests, want 2 (stop at the first valid signature)", n)
	}
	requests.Store(0)
	if _, err := Verify(context.Background(), other, Options{Keyrings: []string{ring}, Stores: []string{srv.URL + "/sigs"}}); err == nil || requests.Load() != 1 {
		t.Errorf("a missing signature-1 ends the search: %v after %d requests", err, requests.Load())
	}
	status = http.StatusServiceUnavailable
	_, err = Verify(context.Background(), digest, Options{Keyrings: []string{ring}, Stores: []string{srv.URL + "/sigs"}})
	var se *Error
	if !errors.As(err, &se) || se.BadInput() || !strings.Contains(err.Error(), "HTTP 503") {
		t.Errorf("a failing store is not bad input (exit 1): %v", err)
	}
}

func TestRecordSaysWhatHappened(t *testing.T) {
	red := key(t, "red")
	ring := keyring(t, t.TempDir(), red, true)
	got, err := Record(context.Background(), release, Options{})
	if err != nil || !strings.HasPrefix(got, "skipped: no --release-keyring given") {
		t.Fatalf("no keyring: %q %v", got, err)
	}
	got, err = Record(context.Background(), release, Options{Keyrings: []string{ring}, Stores: []string{store(t, digest, good(t, red))}})
	if err != nil || !strings.HasPrefix(got, "verified: "+digest) || !strings.Contains(got, fmt.Sprintf("%X", red.PrimaryKey.Fingerprint)) {
		t.Fatalf("verified: %q %v", got, err)
	}
	if _, err := Record(context.Background(), "quay.io/openshift-release-dev/ocp-release:4.4.4-x86_64", Options{Keyrings: []string{ring}, Stores: []string{t.TempDir()}}); inputcheck.Problem(err) != "" {
		t.Fatalf("by tag: %v", err)
	}
	if _, err := Record(context.Background(), release, Options{Keyrings: []string{ring}, Stores: []string{store(t, digest)}}); inputcheck.Problem(err) != "" {
		t.Fatalf("unsigned: %v", err)
	}
}

// FuzzVerify feeds arbitrary signature files to the verifier: never a panic, and
// never verified (the fuzzer cannot forge a signature).
func FuzzVerify(f *testing.F) {
	red := key(f, "red")
	f.Add(good(f, red))
	f.Add(sign(f, red, atomicJSON(other, atomicType, "x")))
	f.Add([]byte("-----BEGIN PGP MESSAGE-----\n\nxx\n-----END PGP MESSAGE-----\n"))
	f.Add([]byte{0xa3, 0x01, 0x00})
	stranger := key(f, "stranger")
	dir := f.TempDir()
	ring := keyring(f, dir, stranger, true)
	f.Fuzz(func(t *testing.T, sig []byte) {
		s := store(t, digest, sig)
		_, err := Verify(context.Background(), digest, Options{Keyrings: []string{ring}, Stores: []string{s}})
		if p := inputcheck.Problem(err); p != "" {
			t.Fatal(p)
		}
	})
}
