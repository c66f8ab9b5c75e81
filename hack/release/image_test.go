package main

import (
	"archive/tar"
	"context"
	"errors"
	"io"
	"log"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

func imageConfig() config {
	return config{Version: "v0.3.0", Commit: "0123456789abcdef0123456789abcdef01234567", Epoch: 1700000000,
		ImagePlatforms: []platform{{"linux", "amd64"}, {"linux", "arm64"}}}
}

var fakeBinaries = map[platform][]byte{
	{"linux", "amd64"}: []byte("\x7fELF amd64 recover"),
	{"linux", "arm64"}: []byte("\x7fELF arm64 recover"),
}

// readLayout opens an OCI layout and returns the index index.json tags ref.
func readLayout(t *testing.T, dir, ref string) v1.ImageIndex {
	t.Helper()
	lp, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	top, err := lp.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	im, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 1 || im.Manifests[0].Annotations[refNameAnnotation] != ref || im.Manifests[0].MediaType != types.OCIImageIndex {
		t.Fatalf("index.json %+v: want one image index tagged %s", im.Manifests, ref)
	}
	idx, err := top.ImageIndex(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

func platformImage(t *testing.T, idx v1.ImageIndex, p platform) v1.Image {
	t.Helper()
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range im.Manifests {
		if d.Platform != nil && d.Platform.OS == p.OS && d.Platform.Architecture == p.Arch {
			img, err := idx.Image(d.Digest)
			if err != nil {
				t.Fatal(err)
			}
			return img
		}
	}
	t.Fatalf("the index has no image for %s: %+v", p, im.Manifests)
	return nil
}

// layerFiles reads the image's one layer: its files by name, after checking
// every header (owner 0:0, the epoch's time).
func layerFiles(t *testing.T, img v1.Image) map[string][]byte {
	t.Helper()
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("%d layers, %v: want one", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	files := map[string][]byte{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" {
			t.Errorf("%s: owner %d:%d %q", h.Name, h.Uid, h.Gid, h.Uname)
		}
		switch h.Name {
		case binName:
			if h.Mode != 0o755 {
				t.Errorf("%s mode %o, want 755", h.Name, h.Mode)
			}
		case "tmp/":
			if h.Mode != 0o1777 || h.Typeflag != tar.TypeDir {
				t.Errorf("tmp/ mode %o type %c, want a 1777 directory", h.Mode, h.Typeflag)
			}
		default:
			t.Errorf("unexpected entry %s", h.Name)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name] = b
	}
	return files
}

// TestImagePushedAndReadBack writes the image layout, pushes its index to a
// registry (go-containerregistry's in-memory one), and reads back from the
// registry each platform's config: non-root user, the binary as entrypoint, the
// OCI labels with version, commit and source, the commit time; and its one
// layer, the binary alone.
func TestImagePushedAndReadBack(t *testing.T) {
	cfg := imageConfig()
	idx, err := imageIndex(cfg, fakeBinaries)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "image")
	digest, err := writeLayout(dir, idx, cfg.Version)
	if err != nil {
		t.Fatal(err)
	}
	fromDisk := readLayout(t, dir, cfg.Version)
	if d, _ := fromDisk.Digest(); d != digest {
		t.Fatalf("the layout holds %s, the writer said %s", d, digest)
	}

	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	ref, err := name.ParseReference(u.Host + "/openshift-recover/recover:" + cfg.Version)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.WriteIndex(ref, fromDisk, remote.WithContext(context.Background())); err != nil {
		t.Fatal(err)
	}
	pulled, err := remote.Index(ref)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := pulled.Digest(); d != digest {
		t.Errorf("the registry serves %s, pushed %s", d, digest)
	}
	for p, bin := range fakeBinaries {
		img := platformImage(t, pulled, p)
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		c := cf.Config
		if c.User != imageUser || strings.HasPrefix(c.User, "0") || strings.HasPrefix(c.User, "root") {
			t.Errorf("%s: user %q, want %s (not root)", p, c.User, imageUser)
		}
		if len(c.Entrypoint) != 1 || c.Entrypoint[0] != "/recover" || len(c.Cmd) != 0 {
			t.Errorf("%s: entrypoint %v cmd %v", p, c.Entrypoint, c.Cmd)
		}
		for k, want := range map[string]string{"org.opencontainers.image.version": cfg.Version, "org.opencontainers.image.revision": cfg.Commit,
			"org.opencontainers.image.source": homepage, "org.opencontainers.image.created": "2023-11-14T22:13:20Z"} {
			if c.Labels[k] != want {
				t.Errorf("%s: label %s = %q, want %q", p, k, c.Labels[k], want)
			}
		}
		if cf.OS != p.OS || cf.Architecture != p.Arch || cf.Created.Unix() != cfg.Epoch {
			t.Errorf("%s: config os %s arch %s created %v", p, cf.OS, cf.Architecture, cf.Created)
		}
		if mt, _ := img.MediaType(); mt != types.OCIManifestSchema1 {
			t.Errorf("%s: manifest media type %s, want OCI", p, mt)
		}
		if got := layerFiles(t, img)[binName]; string(got) != string(bin) {
			t.Errorf("%s: /recover is %q", p, got)
		}
	}
}

// TestImageDigestIsReproducible: the same inputs give the same bytes on disk and
// the same digest; another commit, epoch or binary gives another digest.
func TestImageDigestIsReproducible(t *testing.T) {
	cfg := imageConfig()
	write := func(cfg config, bins map[platform][]byte) (v1.Hash, string) {
		t.Helper()
		idx, err := imageIndex(cfg, bins)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "image")
		d, err := writeLayout(dir, idx, cfg.Version)
		if err != nil {
			t.Fatal(err)
		}
		return d, dir
	}
	d1, dir1 := write(cfg, fakeBinaries)
	d2, dir2 := write(cfg, fakeBinaries)
	if d1 != d2 {
		t.Errorf("digests %s and %s", d1, d2)
	}
	diffs, err := compareTrees(dir1, dir2)
	if err != nil || len(diffs) > 0 {
		t.Errorf("two layouts differ: %v %v", diffs, err)
	}
	other := cfg
	other.Commit = strings.Repeat("f", 40)
	later := cfg
	later.Epoch++
	changed := map[platform][]byte{{"linux", "amd64"}: []byte("other"), {"linux", "arm64"}: fakeBinaries[platform{"linux", "arm64"}]}
	for what, d := range map[string]v1.Hash{
		"another commit": func() v1.Hash { d, _ := write(other, fakeBinaries); return d }(),
		"another epoch":  func() v1.Hash { d, _ := write(later, fakeBinaries); return d }(),
		"another binary": func() v1.Hash { d, _ := write(cfg, changed); return d }(),
	} {
		if d == d1 {
			t.Errorf("%s: same digest %s", what, d)
		}
	}
	if _, err := os.Stat(filepath.Join(dir1, "oci-layout")); err != nil {
		t.Errorf("not an OCI layout: %v", err)
	}
}
