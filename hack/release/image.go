package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image make image writes: an OCI image layout under imageDir, holding one
// image index (tagged with the version) of one image per Linux platform, each a
// single layer with the static binary and nothing else: no base image, no
// shell. It runs as imageUser, a user that exists nowhere, so it is never root.
const (
	imageDir   = "image"
	imageUser  = "65532:65532"
	imageEntry = "/" + binName
	// refNameAnnotation tags the index in index.json, so that oci:dist/image:<version>
	// names it (skopeo, podman).
	refNameAnnotation = "org.opencontainers.image.ref.name"
)

// defaultImagePlatforms are the image's platforms: the Linux ones of the release.
var defaultImagePlatforms = []platform{{"linux", "amd64"}, {"linux", "arm64"}}

// imageLabels are the OCI annotations the image's config carries as labels.
func imageLabels(cfg config) map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":       binName,
		"org.opencontainers.image.description": "Get a wedged OpenShift cluster update back onto a safe, ordered path",
		"org.opencontainers.image.version":     cfg.Version,
		"org.opencontainers.image.revision":    cfg.Commit,
		"org.opencontainers.image.source":      homepage,
		"org.opencontainers.image.created":     time.Unix(cfg.Epoch, 0).UTC().Format(time.RFC3339),
	}
}

// buildImage builds the binary for each image platform and writes the OCI
// layout into cfg.Out. Its digest depends on the binaries, the version,
// the commit and SOURCE_DATE_EPOCH alone.
func buildImage(ctx context.Context, cfg config, work string) (v1.Hash, error) {
	bins := map[platform][]byte{}
	for _, p := range cfg.ImagePlatforms {
		if p.OS != "linux" {
			return v1.Hash{}, fmt.Errorf("image platform %s: the image is for Linux only", p)
		}
		// The archive's binary for the platform when the archives were built.
		bin := filepath.Join(work, p.OS+"_"+p.Arch, binName)
		if _, err := os.Stat(bin); err != nil {
			if err := goBuild(ctx, cfg, p, bin, ""); err != nil {
				return v1.Hash{}, err
			}
		}
		b, err := os.ReadFile(bin)
		if err != nil {
			return v1.Hash{}, err
		}
		bins[p] = b
	}
	idx, err := imageIndex(cfg, bins)
	if err != nil {
		return v1.Hash{}, err
	}
	return writeLayout(cfg.Out, idx, cfg.Version)
}

// imageIndex is the image index of one image per platform, in the platforms'
// order.
func imageIndex(cfg config, bins map[platform][]byte) (v1.ImageIndex, error) {
	plats := make([]platform, 0, len(bins))
	for p := range bins {
		plats = append(plats, p)
	}
	slices.SortFunc(plats, func(a, b platform) int { return strings.Compare(a.String(), b.String()) })
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range plats {
		img, err := image(cfg, p, bins[p])
		if err != nil {
			return nil, fmt.Errorf("image for %s: %w", p, err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: p.OS, Architecture: p.Arch}}})
	}
	return idx, nil
}

// image is the single-layer image of binary for p.
func image(cfg config, p platform, binary []byte) (v1.Image, error) {
	epoch := time.Unix(cfg.Epoch, 0).UTC()
	// /recover, and a /tmp for HOME (a read-only root elsewhere is the runtime's
	// choice; Kubernetes mounts an emptyDir there).
	tarBytes, err := tarEntries([]entry{{Name: "tmp/", Mode: 0o1777}, {Name: binName, Mode: 0o755, Data: binary}}, epoch)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(tarBytes)), nil },
		tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	base := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{Layer: layer, MediaType: types.OCILayer,
		History: v1.History{Created: v1.Time{Time: epoch}, CreatedBy: "hack/release: the static recover binary", Comment: cfg.Version}})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = p.OS, p.Arch
	cf.Created = v1.Time{Time: epoch}
	cf.Config = v1.Config{
		User:       imageUser,
		Entrypoint: []string{imageEntry},
		Env:        []string{"HOME=/tmp"},
		WorkingDir: "/tmp",
		Labels:     imageLabels(cfg),
	}
	return mutate.ConfigFile(img, cf)
}

// writeLayout writes idx as an OCI image layout at dir (replaced), tagged ref
// in index.json, and returns the index's digest.
func writeLayout(dir string, idx v1.ImageIndex, ref string) (v1.Hash, error) {
	if err := os.RemoveAll(dir); err != nil {
		return v1.Hash{}, err
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return v1.Hash{}, err
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{refNameAnnotation: ref})); err != nil {
		return v1.Hash{}, err
	}
	return idx.Digest()
}
