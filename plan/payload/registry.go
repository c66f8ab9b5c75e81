package payload

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/docker/cli/cli/config"
	"github.com/docker/cli/cli/config/configfile"
	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
)

// PullOptions say how to pull a release image.
type PullOptions struct {
	// RegistryConfig is a registry credentials file in the docker config.json /
	// containers auth.json format (an OpenShift pull secret is one). Empty uses the
	// default keychain (DOCKER_CONFIG, REGISTRY_AUTH_FILE, ~/.docker/config.json).
	RegistryConfig string
	// CacheDir holds extracted payloads, one directory per image digest (default:
	// the user cache directory's recover/payloads). Directories are created 0700 and
	// files 0600.
	CacheDir string
	// Arch picks the image of a manifest list (default amd64).
	Arch string
	// Insecure allows plain-HTTP registries (tests, local mirrors).
	Insecure bool
	// Transport overrides the HTTP transport.
	Transport http.RoundTripper
	// MaxBytes caps the extracted payload size (default 256 MiB).
	MaxBytes int64
}

// completeMarker marks a fully extracted cache entry.
const completeMarker = ".complete"

// DefaultCacheDir returns the default payload cache directory.
func DefaultCacheDir() string {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "recover", "payloads")
}

// DecodedCacheDir returns the decoded-payload cache directory (Options.CacheDir)
// that goes with a pulled-image cache directory ("" is DefaultCacheDir): its
// decoded/ subdirectory, beside the sha256-<hex> image directories.
func DecodedCacheDir(cacheDir string) string { return cacheSubdir(cacheDir, "decoded") }

// GraphCacheDir returns the loaded-graph cache directory (graph.Options.CacheDir)
// that goes with a pulled-image cache directory ("" is DefaultCacheDir): its
// graphs/ subdirectory, beside decoded/.
func GraphCacheDir(cacheDir string) string { return cacheSubdir(cacheDir, "graphs") }

func cacheSubdir(cacheDir, name string) string {
	if cacheDir == "" {
		cacheDir = DefaultCacheDir()
	}
	return filepath.Join(cacheDir, name)
}

// Pull makes the release image named by a by-digest pull spec available as an
// extracted payload directory and returns it with the image digest. A cache entry
// for the digest is reused without contacting the registry; otherwise the image is
// pulled (its manifest and layers verified against their digests by
// go-containerregistry, and the manifest digest checked against the pull spec again
// here) and its /manifests and /release-manifests extracted.
func Pull(ctx context.Context, pullSpec string, o PullOptions) (dir, digest string, err error) {
	var nameOpts []name.Option
	if o.Insecure {
		nameOpts = append(nameOpts, name.Insecure)
	}
	ref, err := name.ParseReference(pullSpec, nameOpts...)
	if err != nil {
		return "", "", &PullError{Ref: pullSpec, Msg: "invalid pull spec: " + err.Error(), Input: true, Err: err}
	}
	dref, ok := ref.(name.Digest)
	if !ok {
		return "", "", &PullError{Ref: pullSpec, Msg: "pull spec is by tag, so its content cannot be verified", Hint: "use the by-digest pull spec (oc adm release info " + pullSpec + " prints it)", Input: true}
	}
	want, err := v1.NewHash(dref.DigestStr())
	if err != nil {
		return "", "", &PullError{Ref: pullSpec, Msg: "invalid digest: " + err.Error(), Input: true, Err: err}
	}
	cache := o.CacheDir
	if cache == "" {
		cache = DefaultCacheDir()
	}
	dir = filepath.Join(cache, want.Algorithm+"-"+want.Hex)
	if _, err := os.Stat(filepath.Join(dir, completeMarker)); err == nil {
		return dir, want.String(), nil
	}
	if err := mkdirPrivate(cache); err != nil {
		return "", "", &PullError{Ref: pullSpec, Msg: "cannot create payload cache: " + err.Error(), Hint: "pass a writable --cache-dir", Err: err}
	}

	kc, err := keychain(o.RegistryConfig)
	if err != nil {
		return "", "", err
	}
	arch := o.Arch
	if arch == "" {
		arch = "amd64"
	}
	ropts := []remote.Option{remote.WithContext(ctx), remote.WithAuthFromKeychain(kc), remote.WithPlatform(v1.Platform{OS: "linux", Architecture: arch})}
	if o.Transport != nil {
		ropts = append(ropts, remote.WithTransport(o.Transport))
	}
	desc, err := remote.Get(dref, ropts...)
	if err != nil {
		return "", "", classifyPull(pullSpec, o.RegistryConfig, err)
	}
	if desc.Digest != want {
		return "", "", &PullError{Ref: pullSpec, Msg: fmt.Sprintf("digest mismatch: the registry served %s for %s; refusing it", desc.Digest, want), Hint: "the registry or a mirror is serving other content; check the mirror", Input: true}
	}
	img, err := desc.Image()
	if err != nil {
		return "", "", classifyPull(pullSpec, o.RegistryConfig, err)
	}
	tmp, err := os.MkdirTemp(cache, ".pull-")
	if err != nil {
		return "", "", &PullError{Ref: pullSpec, Msg: "cannot write payload cache: " + err.Error(), Err: err}
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o700); err != nil {
		return "", "", &PullError{Ref: pullSpec, Msg: err.Error(), Err: err}
	}
	maxBytes := o.MaxBytes
	if maxBytes <= 0 {
		maxBytes = 256 << 20
	}
	n, err := extractPayload(img, tmp, maxBytes)
	if err != nil {
		var pe *PullError
		if errors.As(err, &pe) {
			pe.Ref = pullSpec
			return "", "", pe
		}
		return "", "", classifyPull(pullSpec, o.RegistryConfig, err)
	}
	if n == 0 {
		return "", "", &PullError{Ref: pullSpec, Msg: "not a release image: it has no /manifests or /release-manifests files", Input: true}
	}
	if err := os.WriteFile(filepath.Join(tmp, completeMarker), []byte(want.String()+"\n"), 0o600); err != nil {
		return "", "", &PullError{Ref: pullSpec, Msg: err.Error(), Err: err}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, completeMarker)); serr == nil {
			return dir, want.String(), nil // another recover filled it meanwhile
		}
		return "", "", &PullError{Ref: pullSpec, Msg: "cannot store payload in cache: " + err.Error(), Err: err}
	}
	return dir, want.String(), nil
}

// extractPayload writes the flattened image's top-level files under manifests/ and
// release-manifests/ into dir and returns how many it wrote.
func extractPayload(img v1.Image, dir string, maxBytes int64) (int, error) {
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	var total int64
	count := 0
	made := map[string]bool{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			// mutate.Extract writes the tar trailer before it reports a failed
			// layer fetch on the pipe: read on, so a registry failure midway is
			// an error rather than a silently partial payload.
			if _, err := io.Copy(io.Discard, rc); err != nil {
				return count, err
			}
			return count, nil
		}
		if err != nil {
			return count, err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		clean := strings.TrimPrefix(path.Clean("/"+h.Name), "/")
		sub, file, ok := strings.Cut(clean, "/")
		if !ok || (sub != ManifestDir && sub != ReleaseManifestDir) || strings.Contains(file, "/") || file == "" || file == completeMarker {
			continue
		}
		total += h.Size
		if total > maxBytes {
			return count, &PullError{Msg: fmt.Sprintf("payload larger than %d bytes", maxBytes), Input: true}
		}
		if !made[sub] {
			if err := mkdirPrivate(filepath.Join(dir, sub)); err != nil {
				return count, err
			}
			made[sub] = true
		}
		f, err := os.OpenFile(filepath.Join(dir, sub, file), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
		if err != nil {
			return count, err
		}
		_, err = io.Copy(f, io.LimitReader(tr, h.Size))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return count, err
		}
		count++
	}
}

// mkdirPrivate creates dir (and parents) and makes sure dir itself is 0700.
func mkdirPrivate(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.Chmod(dir, 0o700)
}

// classifyPull turns a go-containerregistry error into a PullError.
func classifyPull(ref, registryConfig string, err error) error {
	pe := &PullError{Ref: ref, Msg: err.Error(), Err: err}
	var te *transport.Error
	switch {
	case errors.Is(err, context.Canceled):
		pe.Msg = "canceled"
	case errors.As(err, &te) && (te.StatusCode == http.StatusUnauthorized || te.StatusCode == http.StatusForbidden):
		pe.Msg = fmt.Sprintf("the registry refused access (HTTP %d)", te.StatusCode)
		if registryConfig == "" {
			pe.Hint = "pass --registry-config with a pull secret for the registry"
		} else {
			pe.Hint = "check that " + registryConfig + " has credentials for the registry"
		}
		pe.Input = true
	case errors.As(err, &te) && te.StatusCode == http.StatusNotFound:
		pe.Msg = "not found in the registry (HTTP 404)"
		pe.Hint = "check the pull spec; in a disconnected cluster use the mirror's pull spec"
		pe.Input = true
	case strings.Contains(err.Error(), "does not match") || strings.Contains(err.Error(), "digest mismatch"):
		pe.Msg = "digest mismatch, refusing the content: " + err.Error()
		pe.Hint = "the registry or a mirror is serving other content; check the mirror"
		pe.Input = true
	case !isTransportError(err):
		// The bytes arrived but are not a readable image: a corrupt or hostile
		// layer (invalid tar or gzip, an unsafe path).
		pe.Msg = "the image content is corrupt or unsafe, refusing it: " + err.Error()
		pe.Hint = "the registry or a mirror is serving damaged content; check the mirror"
		pe.Input = true
	default:
		pe.Hint = "check the network and the registry, or extract the payload elsewhere with `oc adm release extract --to DIR` and pass DIR"
	}
	return pe
}

// isTransportError reports whether err comes from talking to the registry (an
// HTTP status, a network or URL error, a cut connection) rather than from the
// content it served.
func isTransportError(err error) bool {
	var te *transport.Error
	var ne net.Error
	var ue *url.Error
	return errors.As(err, &te) || errors.As(err, &ne) || errors.As(err, &ue) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, context.DeadlineExceeded)
}

// keychain returns the credentials source: the given registry config file, or the
// default keychain.
func keychain(registryConfig string) (authn.Keychain, error) {
	if registryConfig == "" {
		return authn.DefaultKeychain, nil
	}
	f, err := os.Open(registryConfig)
	if err != nil {
		return nil, &InputError{Path: registryConfig, Msg: "cannot read registry config: " + pathErrText(err), Hint: "pass a docker config.json or pull secret file", Err: err}
	}
	defer f.Close()
	cf, err := config.LoadFromReader(f)
	if err != nil {
		return nil, &InputError{Path: registryConfig, Msg: "malformed registry config: " + err.Error(), Hint: "the file must look like {\"auths\": {\"quay.io\": {\"auth\": \"...\"}}}", Err: err}
	}
	return fileKeychain{cf: cf}, nil
}

// fileKeychain resolves credentials from one config file.
type fileKeychain struct{ cf *configfile.ConfigFile }

func (k fileKeychain) Resolve(target authn.Resource) (authn.Authenticator, error) {
	key := target.RegistryStr()
	if key == name.DefaultRegistry {
		key = authn.DefaultAuthKey
	}
	cfg, err := k.cf.GetAuthConfig(key)
	if err != nil {
		return nil, err
	}
	if cfg.Username == "" && cfg.Password == "" && cfg.Auth == "" && cfg.IdentityToken == "" && cfg.RegistryToken == "" {
		return authn.Anonymous, nil
	}
	return authn.FromConfig(authn.AuthConfig{
		Username: cfg.Username, Password: cfg.Password, Auth: cfg.Auth,
		IdentityToken: cfg.IdentityToken, RegistryToken: cfg.RegistryToken,
	}), nil
}
