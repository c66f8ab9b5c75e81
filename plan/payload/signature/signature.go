package signature

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"

	"github.com/openshift-recover/recover/internal/bounded"
)

// MaxSignatures is how many signature-N files a store is searched for, as the
// CVO's library-go verifier searches (maxSignatureSearch): it bounds what a
// hostile store can make recover fetch.
const MaxSignatures = 10

// maxSignatureBytes bounds one signature file; real ones are under 1 KiB.
const maxSignatureBytes = 64 << 10

// atomicType is the critical.type of an atomic container signature.
const atomicType = "atomic container signature"

// Options say what to verify a release with.
type Options struct {
	// Keyrings are OpenPGP public keyring files, armored or binary. Every one of
	// them must have signed the release (library-go's rule for several verifiers).
	Keyrings []string
	// Stores are signature stores: http(s):// URLs, file:// URLs or directories,
	// in the layout <store>/<algo>=<hex>/signature-<N>. They are searched in order;
	// the signatures found in all of them count.
	Stores []string
	// Files are signature files the admin downloaded (one atomic container
	// signature each, as a store's signature-<N>); they are tried before the
	// stores.
	Files []string
	// HTTPClient fetches from http(s) stores (default: a client with a 30s timeout).
	HTTPClient *http.Client
}

// Enabled reports whether a verification was asked for.
func (o Options) Enabled() bool { return len(o.Keyrings) > 0 || len(o.Stores) > 0 || len(o.Files) > 0 }

// Result is a successful verification.
type Result struct {
	// Digest is the verified image digest ("sha256:<hex>").
	Digest string
	// Signers maps each keyring file to the fingerprint of the key that signed.
	Signers map[string]string
	// Sources maps each keyring file to the signature that satisfied it
	// ("<store>/<algo>=<hex>/signature-<N>", or the file's path).
	Sources map[string]string
	// Signatures are the bytes of the signatures that satisfied a keyring, in
	// the order they were found, each once: what a signature ConfigMap carries.
	Signatures [][]byte
}

// String is the plan's record of the verification.
func (r *Result) String() string {
	var parts []string
	for _, k := range sortedKeys(r.Signers) {
		parts = append(parts, fmt.Sprintf("%s (key %s, %s)", k, r.Signers[k], r.Sources[k]))
	}
	return fmt.Sprintf("verified: %s is signed by every keyring: %s", r.Digest, strings.Join(parts, "; "))
}

// Error is a failed verification. Input problems (an unreadable keyring, a bad
// store URL, missing or invalid signatures) classify as bad input; a store that
// cannot be reached does not.
type Error struct {
	Msg   string
	Input bool
	Err   error
}

func (e *Error) Error() string { return strings.Join(strings.Fields(e.Msg), " ") }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// BadInput reports whether the keyrings, stores or signatures are at fault.
func (e *Error) BadInput() bool { return e.Input }

var validDigest = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// DigestOf returns the digest of a by-digest pull spec ("...@sha256:<hex>").
func DigestOf(pullSpec string) (string, error) {
	_, d, ok := strings.Cut(pullSpec, "@")
	if !ok || !validDigest.MatchString(d) {
		return "", &Error{Msg: fmt.Sprintf("release image %q is not a pull spec by sha256 digest, so its signatures cannot be looked up", pullSpec), Input: true}
	}
	return d, nil
}

// Record verifies the release image when Options ask for it and returns what the
// plan records in Inputs.SignatureVerification: "verified: ..." or "skipped:
// <why>". A failed verification is an error: the plan must not be made.
func Record(ctx context.Context, pullSpec string, o Options) (string, error) {
	if !o.Enabled() {
		return "skipped: no --release-keyring given; the CVO verifies the release when it starts updating", nil
	}
	digest, err := DigestOf(pullSpec)
	if err != nil {
		return "", err
	}
	res, err := Verify(ctx, digest, o)
	if err != nil {
		return "", err
	}
	return res.String(), nil
}

// Verify checks that every keyring in o has signed digest with a valid atomic
// container signature found in o's stores.
func Verify(ctx context.Context, digest string, o Options) (*Result, error) {
	if !validDigest.MatchString(digest) {
		return nil, &Error{Msg: fmt.Sprintf("%q is not a sha256 image digest", digest), Input: true}
	}
	switch {
	case len(o.Keyrings) == 0:
		return nil, &Error{Msg: "signature stores given without a keyring to verify with: pass --release-keyring FILE", Input: true}
	case len(o.Stores) == 0 && len(o.Files) == 0:
		return nil, &Error{Msg: "a keyring given without a signature store: pass --signature-store URL|DIR (the official one is https://mirror.openshift.com/pub/openshift-v4/signatures/openshift/release)", Input: true}
	}
	keyrings := make([]openpgp.EntityList, len(o.Keyrings))
	for i, path := range o.Keyrings {
		kr, err := LoadKeyring(path)
		if err != nil {
			return nil, err
		}
		keyrings[i] = kr
	}
	res := &Result{Digest: digest, Signers: map[string]string{}, Sources: map[string]string{}}
	var seen []string // why signatures did not count, for the error
	// try counts data toward every keyring it satisfies.
	try := func(data []byte, where string) {
		matched := false
		for i, kr := range keyrings {
			if _, done := res.Signers[o.Keyrings[i]]; done {
				continue
			}
			fp, err := verifyOne(data, kr, digest)
			if err != nil {
				continue
			}
			res.Signers[o.Keyrings[i]], res.Sources[o.Keyrings[i]] = fp, where
			matched = true
		}
		if matched {
			res.Signatures = append(res.Signatures, data)
		} else {
			seen = append(seen, where+": "+explain(data, keyrings, digest))
		}
	}
	for _, path := range o.Files {
		data, err := bounded.ReadFile(path, maxSignatureBytes)
		if err != nil {
			return nil, &Error{Msg: fmt.Sprintf("reading signature %s: %v", path, pathErrText(err)), Input: true, Err: err}
		}
		try(data, path)
	}
	for _, store := range o.Stores {
		fetch, err := newStore(store, o.HTTPClient)
		if err != nil {
			return nil, err
		}
		for n := 1; n <= MaxSignatures && len(res.Signers) < len(keyrings); n++ {
			name := strings.Replace(digest, ":", "=", 1) + "/signature-" + fmt.Sprint(n)
			where := strings.TrimRight(store, "/") + "/" + name
			data, found, err := fetch(ctx, name)
			if err != nil {
				return nil, err
			}
			if !found {
				if n == 1 {
					seen = append(seen, where+": not found")
				}
				break
			}
			try(data, where)
		}
	}
	if len(res.Signers) == len(keyrings) {
		return res, nil
	}
	var missing []string
	for _, k := range o.Keyrings {
		if _, ok := res.Signers[k]; !ok {
			missing = append(missing, k)
		}
	}
	return nil, &Error{Input: true, Msg: fmt.Sprintf("release %s is not signed by every keyring: no valid signature from %s (%s); do not update to an unverified release: check --signature-store and --release-signature, or that this is the release you meant",
		digest, strings.Join(missing, ", "), strings.Join(seen, "; "))}
}

// VerifySignature checks one atomic container signature of digest against a
// keyring and returns the fingerprint of the key that signed it: the check a
// signature store's verifier makes of each signature it finds.
func VerifySignature(data []byte, keyring openpgp.EntityList, digest string) (string, error) {
	return verifyOne(data, keyring, digest)
}

// maxKeyringBytes caps a keyring file; Red Hat's release key is about 2 KiB.
const maxKeyringBytes = 16 << 20

// LoadKeyring reads an armored or binary OpenPGP public keyring.
func LoadKeyring(path string) (openpgp.EntityList, error) {
	data, err := bounded.ReadFile(path, maxKeyringBytes)
	if err != nil {
		return nil, &Error{Msg: fmt.Sprintf("reading keyring %s: %v", path, pathErrText(err)), Input: true, Err: err}
	}
	kr, err := openpgp.ReadArmoredKeyRing(bytes.NewReader(data))
	if err != nil {
		kr, err = openpgp.ReadKeyRing(bytes.NewReader(data))
	}
	if err != nil || len(kr) == 0 {
		return nil, &Error{Msg: fmt.Sprintf("keyring %s is not an OpenPGP public keyring (armored or binary): %v; export one with 'gpg --export --armor KEYID'", path, err), Input: true, Err: err}
	}
	return kr, nil
}

// verifyOne checks one signature file against one keyring and the digest, and
// returns the signing key's fingerprint.
func verifyOne(data []byte, kr openpgp.EntityList, digest string) (string, error) {
	md, err := openpgp.ReadMessage(bytes.NewReader(data), kr, nil, nil)
	if err != nil {
		return "", fmt.Errorf("not an OpenPGP signed message: %v", err)
	}
	if md.IsEncrypted || !md.IsSigned {
		return "", errors.New("not a signed message")
	}
	if md.SignedBy == nil {
		return "", fmt.Errorf("signed by key %X, which is not in the keyring", md.SignedByKeyId)
	}
	body, err := io.ReadAll(io.LimitReader(md.UnverifiedBody, maxSignatureBytes+1))
	if err != nil {
		return "", fmt.Errorf("invalid signature: %v", err)
	}
	if len(body) > maxSignatureBytes {
		return "", errors.New("signed content too large")
	}
	if md.SignatureError != nil || md.Signature == nil {
		return "", fmt.Errorf("invalid signature: %v", md.SignatureError)
	}
	if err := checkAtomic(body, digest); err != nil {
		return "", err
	}
	return fmt.Sprintf("%X", md.SignedBy.PublicKey.Fingerprint), nil
}

// explain says why no keyring accepted a signature (the first keyring's reason).
func explain(data []byte, keyrings []openpgp.EntityList, digest string) string {
	_, err := verifyOne(data, keyrings[0], digest)
	if err == nil {
		return "valid, but every keyring it satisfies already has a signature"
	}
	return err.Error()
}

// atomicSignature is the signed JSON of an atomic container signature
// (containers/image docs/containers-signature.5.md).
type atomicSignature struct {
	Critical struct {
		Type  string `json:"type"`
		Image struct {
			DockerManifestDigest string `json:"docker-manifest-digest"`
		} `json:"image"`
		Identity struct {
			DockerReference string `json:"docker-reference"`
		} `json:"identity"`
	} `json:"critical"`
	Optional struct {
		Creator   string `json:"creator"`
		Timestamp int64  `json:"timestamp"`
	} `json:"optional"`
}

// checkAtomic applies library-go's rules: strict JSON, the atomic type, an
// identity, and the digest.
func checkAtomic(body []byte, digest string) error {
	d := json.NewDecoder(bytes.NewReader(body))
	d.DisallowUnknownFields()
	var s atomicSignature
	if err := d.Decode(&s); err != nil {
		return fmt.Errorf("signed content is not an atomic container signature: %v", err)
	}
	switch {
	case s.Critical.Type != atomicType:
		return fmt.Errorf("signed content has type %q, not %q", s.Critical.Type, atomicType)
	case s.Critical.Identity.DockerReference == "":
		return errors.New("signed content has no identity")
	case s.Critical.Image.DockerManifestDigest != digest:
		return fmt.Errorf("the signature is for %s, not %s", s.Critical.Image.DockerManifestDigest, digest)
	}
	return nil
}

// fetcher returns the signature at name in a store, and false when it does not
// exist.
type fetcher func(ctx context.Context, name string) ([]byte, bool, error)

func newStore(store string, client *http.Client) (fetcher, error) {
	u, err := url.Parse(store)
	if err != nil || (u.Scheme != "" && u.Scheme != "file" && u.Scheme != "http" && u.Scheme != "https") || (u.Scheme == "file" && u.Path == "") {
		return nil, &Error{Msg: fmt.Sprintf("signature store %q: want an http(s):// or file:// URL, or a directory", store), Input: true}
	}
	if u.Scheme == "http" || u.Scheme == "https" {
		if client == nil {
			client = &http.Client{Timeout: 30 * time.Second}
		}
		return httpStore(strings.TrimRight(store, "/"), client), nil
	}
	dir := store
	if u.Scheme == "file" {
		dir = u.Path
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, &Error{Msg: fmt.Sprintf("signature store %s is not a directory", dir), Input: true, Err: err}
	}
	return func(_ context.Context, name string) ([]byte, bool, error) {
		f, err := os.Open(filepath.Join(dir, filepath.FromSlash(name)))
		if errors.Is(err, os.ErrNotExist) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, &Error{Msg: fmt.Sprintf("reading signature %s: %v", filepath.Join(dir, name), pathErrText(err)), Input: true, Err: err}
		}
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(f, maxSignatureBytes+1))
		if err != nil {
			return nil, false, &Error{Msg: fmt.Sprintf("reading signature %s: %v", filepath.Join(dir, name), pathErrText(err)), Input: true, Err: err}
		}
		return data, true, nil
	}, nil
}

func httpStore(base string, client *http.Client) fetcher {
	return func(ctx context.Context, name string) ([]byte, bool, error) {
		target := base + "/" + name
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
		if err != nil {
			return nil, false, &Error{Msg: fmt.Sprintf("signature store URL %s: %v", target, err), Input: true, Err: err}
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, false, &Error{Msg: fmt.Sprintf("fetching signature %s: %v; check the network, or mirror the signatures into a directory and pass it as --signature-store", target, err), Err: err}
		}
		defer resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusNotFound:
			return nil, false, nil
		case resp.StatusCode != http.StatusOK:
			return nil, false, &Error{Msg: fmt.Sprintf("fetching signature %s: HTTP %d; retry later, or mirror the signatures into a directory and pass it as --signature-store", target, resp.StatusCode)}
		}
		data, err := io.ReadAll(io.LimitReader(resp.Body, maxSignatureBytes+1))
		if err != nil {
			return nil, false, &Error{Msg: fmt.Sprintf("fetching signature %s: %v", target, err), Err: err}
		}
		return data, true, nil
	}
}

func pathErrText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
