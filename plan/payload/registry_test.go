package payload

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"io/fs"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/internal/testing/imagetest"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// tarLayer builds a layer from path -> content, in path order.
func tarLayer(t *testing.T, files map[string][]byte) v1.Layer {
	t.Helper()
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	out := make([]imagetest.File, 0, len(paths))
	for _, p := range paths {
		out = append(out, imagetest.File{Path: p, Content: string(files[p])})
	}
	return imagetest.Layer(t, out...)
}

// releaseImage builds a release image whose last layer carries the example 4.4.4
// payload, on top of a base layer of unrelated files.
func releaseImage(t *testing.T, payloadDir string) v1.Image {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(payloadDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(payloadDir, path)
		data, err := os.ReadFile(path)
		files[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	base := tarLayer(t, map[string][]byte{"usr/bin/cluster-version-operator": []byte("binary"), "etc/os-release": []byte("ID=rhel\n"), "manifests/nested/ignored.yaml": []byte("x")})
	img, err := mutate.AppendLayers(empty.Image, base, tarLayer(t, files))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// push serves a registry (optionally behind handler middleware) and pushes img.
func push(t *testing.T, img v1.Image, wrap func(http.Handler) http.Handler) (*httptest.Server, string) {
	t.Helper()
	var h http.Handler = registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	ref, err := name.ParseReference(host+"/openshift-release-dev/ocp-release:4.4.4", name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(ref, img, remote.WithAuth(basicAuth)); err != nil {
		t.Fatal(err)
	}
	d, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return srv, host + "/openshift-release-dev/ocp-release@" + d.String()
}

var basicAuth = authn.FromConfig(authn.AuthConfig{Username: "puller", Password: "s3cret"})

func TestPullExtractsVerifiesAndCaches(t *testing.T) {
	img := releaseImage(t, filepath.Join(exampleReleases, "4.4.4"))
	srv, pullSpec := push(t, img, nil)
	cache := filepath.Join(t.TempDir(), "cache")
	po := PullOptions{CacheDir: cache, Insecure: true}
	p, err := Load(context.Background(), pullSpec, Options{}, po)
	if err != nil {
		t.Fatal(err)
	}
	if p.Release.Version != "4.4.4" || p.ReleaseImage != pullSpec || p.Source != pullSpec || !strings.HasPrefix(p.Digest, "sha256:") || len(p.Included()) != 91 {
		t.Fatalf("pulled payload: version %s image %s digest %s, %d included", p.Release.Version, p.ReleaseImage, p.Digest, len(p.Included()))
	}
	cvo := p.Find("apps", "Deployment", "openshift-cluster-version", "cluster-version-operator")
	if !strings.Contains(string(cvo.JSON), pullSpec) {
		t.Fatal("the CVO Deployment must be rendered with the pulled pull spec")
	}
	// Private cache: directories 0700, files 0600; nested and foreign files are not extracted.
	err = filepath.WalkDir(cache, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, _ := d.Info()
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", path, info.Mode().Perm(), want)
		}
		if strings.Contains(path, "nested") || strings.Contains(path, "os-release") {
			t.Errorf("%s should not be extracted", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The cache is reused by digest: no registry needed the second time.
	srv.Close()
	p2, err := Load(context.Background(), pullSpec, Options{}, po)
	if err != nil || p2.Dir != p.Dir || p2.Release.Version != "4.4.4" {
		t.Fatalf("cached load: %v (dir %s vs %s)", err, p2.Dir, p.Dir)
	}
}

func TestPullRefusesDigestMismatch(t *testing.T) {
	want := releaseImage(t, filepath.Join(exampleReleases, "4.4.4"))
	other := releaseImage(t, filepath.Join(exampleReleases, "4.4.3"))
	wantDigest, _ := want.Digest()
	otherManifest, _ := other.RawManifest()
	otherDigest, _ := other.Digest()
	// A mirror that answers the 4.4.4 digest with the 4.4.3 manifest.
	tamper := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/manifests/"+wantDigest.String()) {
				mt, _ := other.MediaType()
				w.Header().Set("Content-Type", string(mt))
				w.Header().Set("Docker-Content-Digest", otherDigest.String())
				_, _ = w.Write(otherManifest)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	_, pullSpec := push(t, want, tamper)
	_, _, err := Pull(context.Background(), pullSpec, PullOptions{CacheDir: t.TempDir(), Insecure: true})
	var pe *PullError
	if !errors.As(err, &pe) || !pe.BadInput() || !strings.Contains(err.Error(), "digest") || !strings.Contains(err.Error(), "refus") {
		t.Fatalf("want a refused digest mismatch, got %v", err)
	}
}

func TestPullErrors(t *testing.T) {
	img := releaseImage(t, filepath.Join(exampleReleases, "4.4.4"))
	needAuth := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if u, p, ok := r.BasicAuth(); !ok || u != "puller" || p != "s3cret" {
				w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	_, pullSpec := push(t, img, needAuth)
	t.Setenv("DOCKER_CONFIG", t.TempDir()) // no ambient credentials
	t.Setenv("REGISTRY_AUTH_FILE", filepath.Join(t.TempDir(), "none.json"))
	_, _, err := Pull(context.Background(), pullSpec, PullOptions{CacheDir: t.TempDir(), Insecure: true})
	var pe *PullError
	if !errors.As(err, &pe) || !pe.BadInput() || !strings.Contains(err.Error(), "refused access (HTTP 401)") || !strings.Contains(err.Error(), "--registry-config") {
		t.Fatalf("unauthenticated: %v", err)
	}
	// With a pull secret naming the registry, the pull works.
	host := strings.Split(pullSpec, "/")[0]
	secret := filepath.Join(t.TempDir(), "pull-secret.json")
	auth := base64.StdEncoding.EncodeToString([]byte("puller:s3cret"))
	if err := os.WriteFile(secret, []byte(`{"auths": {"`+host+`": {"auth": "`+auth+`"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Pull(context.Background(), pullSpec, PullOptions{CacheDir: t.TempDir(), Insecure: true, RegistryConfig: secret}); err != nil {
		t.Fatalf("with pull secret: %v", err)
	}
	// By tag: refused before any network access.
	if _, _, err := Pull(context.Background(), host+"/openshift-release-dev/ocp-release:4.4.4", PullOptions{Insecure: true}); !errors.As(err, &pe) || !strings.Contains(err.Error(), "by tag") {
		t.Fatalf("by tag: %v", err)
	}
	// Unknown digest: not found.
	missing := host + "/openshift-release-dev/ocp-release@sha256:" + strings.Repeat("0", 64)
	if _, _, err := Pull(context.Background(), missing, PullOptions{CacheDir: t.TempDir(), Insecure: true, RegistryConfig: secret}); !errors.As(err, &pe) || !pe.BadInput() {
		t.Fatalf("unknown digest: %v", err)
	}
	// A malformed registry config is bad input naming the file.
	bad := filepath.Join(t.TempDir(), "bad.json")
	_ = os.WriteFile(bad, []byte("{not json"), 0o600)
	var ie *InputError
	if _, _, err := Pull(context.Background(), pullSpec, PullOptions{CacheDir: t.TempDir(), Insecure: true, RegistryConfig: bad}); !errors.As(err, &ie) || !strings.Contains(err.Error(), "bad.json") {
		t.Fatalf("bad registry config: %v", err)
	}
	// An image without payload directories is not a release image.
	plain, _ := mutate.AppendLayers(empty.Image, tarLayer(t, map[string][]byte{"etc/hosts": []byte("x")}))
	_, plainSpec := push(t, plain, nil)
	if _, _, err := Pull(context.Background(), plainSpec, PullOptions{CacheDir: t.TempDir(), Insecure: true}); !errors.As(err, &pe) || !strings.Contains(err.Error(), "not a release image") {
		t.Fatalf("plain image: %v", err)
	}
}
