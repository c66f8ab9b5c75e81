package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// build writes the release for cfg into cfg.Out, replacing what was there: the
// archives, SHA256SUMS and the krew manifest when cfg.Archives, the OCI image
// layout when cfg.Image (into cfg.Out/image beside the archives, or cfg.Out
// itself when it is alone).
func build(ctx context.Context, cfg config) error {
	logf := cfg.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if err := safeToReplace(cfg.Out, cfg.Repo); err != nil {
		return err
	}
	if err := os.RemoveAll(cfg.Out); err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "recover-release-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if cfg.Archives {
		if err := buildArchives(ctx, cfg, work, logf); err != nil {
			return err
		}
	}
	if cfg.Image {
		out := cfg
		if cfg.Archives {
			out.Out = filepath.Join(cfg.Out, imageDir)
		}
		digest, err := buildImage(ctx, out, work)
		if err != nil {
			return err
		}
		// The tag first: it is what the README's push and pull commands name
		// (issue 34: only the digest was printed).
		logf("wrote the image tagged %s (%s, digest %s) into %s: push it with skopeo copy --all oci:%s:%s docker://<registry>/recover:%s",
			cfg.Version, platformList(cfg.ImagePlatforms), digest, out.Out, out.Out, cfg.Version, cfg.Version)
	}
	return nil
}

// buildArchives writes the archives, SHA256SUMS and the krew manifest.
func buildArchives(ctx context.Context, cfg config, work string, logf func(string, ...any)) error {
	if err := os.MkdirAll(filepath.Join(cfg.Out, filepath.Dir(manifestFile)), 0o755); err != nil {
		return err
	}
	// The man pages and completions come from the command tree itself, through a
	// generator build of the same binary (-tags gendocs) for the host.
	gen := filepath.Join(work, "gendocs", binName)
	if err := goBuild(ctx, cfg, hostPlatform(), gen, "gendocs"); err != nil {
		return err
	}
	docs := filepath.Join(work, "docs")
	run := exec.CommandContext(ctx, gen, "gendocs", "--dir", docs)
	run.Env = append(environ(cfg), "SOURCE_DATE_EPOCH="+strconv.FormatInt(cfg.Epoch, 10))
	if out, err := run.CombinedOutput(); err != nil {
		return fmt.Errorf("generating man pages and completions: %w: %s", err, out)
	}
	shared, err := sharedEntries(cfg.Repo, docs)
	if err != nil {
		return err
	}

	var sums []archiveSum
	for _, p := range cfg.Platforms {
		bin := filepath.Join(work, p.OS+"_"+p.Arch, binName)
		if err := goBuild(ctx, cfg, p, bin, ""); err != nil {
			return err
		}
		exe, err := os.ReadFile(bin)
		if err != nil {
			return err
		}
		entries := append([]entry{{Name: binName, Mode: 0o755, Data: exe}}, shared...)
		arch, err := tarGz(entries, time.Unix(cfg.Epoch, 0))
		if err != nil {
			return err
		}
		name := archiveName(cfg.Version, p)
		if err := os.WriteFile(filepath.Join(cfg.Out, name), arch, 0o644); err != nil {
			return err
		}
		sum := sha256.Sum256(arch)
		sums = append(sums, archiveSum{Platform: p, Name: name, SHA256: hex.EncodeToString(sum[:]), Files: entryNames(entries)})
		logf("%s: binary %s, archive %s (%s)", p, mb(len(exe)), mb(len(arch)), name)
	}
	slices.SortFunc(sums, func(a, b archiveSum) int { return strings.Compare(a.Name, b.Name) })
	var list strings.Builder
	for _, s := range sums {
		fmt.Fprintf(&list, "%s  %s\n", s.SHA256, s.Name)
	}
	if err := os.WriteFile(filepath.Join(cfg.Out, sumsFile), []byte(list.String()), 0o644); err != nil {
		return err
	}
	m := krewManifest(cfg.Version, sums, shared)
	contents := map[string][]string{}
	for _, s := range sums {
		contents[s.SHA256] = s.Files
	}
	_, statErr := os.Stat(filepath.Join(cfg.Repo, "LICENSE"))
	if errs := validateKrewOpts(binName, m, contents, statErr == nil); len(errs) > 0 {
		return fmt.Errorf("the krew manifest breaks krew's rules: %v", errs)
	}
	y, err := marshalManifest(m)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(cfg.Out, manifestFile), y, 0o644); err != nil {
		return err
	}
	logf("wrote %d archives, %s and %s into %s", len(sums), sumsFile, manifestFile, cfg.Out)
	return nil
}

// safeToReplace refuses an output directory whose removal would take source with
// it: the checkout, a directory above it, or one holding a go.mod or .git.
func safeToReplace(out, repo string) error {
	o, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	r, err := filepath.Abs(repo)
	if err != nil {
		return err
	}
	if rel, err := filepath.Rel(o, r); err == nil && (rel == "." || !strings.HasPrefix(rel, "..")) {
		return fmt.Errorf("output directory %s holds the checkout %s; name a directory of its own", out, repo)
	}
	for _, marker := range []string{"go.mod", ".git"} {
		if _, err := os.Stat(filepath.Join(o, marker)); err == nil {
			return fmt.Errorf("output directory %s has a %s; name a directory of its own", out, marker)
		}
	}
	return nil
}

// archiveSum is one archive the release wrote.
type archiveSum struct {
	Platform platform
	Name     string
	SHA256   string
	Files    []string // top-level and nested entry names, directories with a trailing /
}

func mb(n int) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

func environ(cfg config) []string {
	if cfg.Env != nil {
		return append([]string(nil), cfg.Env...)
	}
	return os.Environ()
}

// ldflags strips the symbol table and DWARF and stamps cmd/recover's version
// variables (cmd/recover/version.go).
func ldflags(cfg config) string {
	return fmt.Sprintf("-s -w -X main.version=%s -X main.commit=%s", cfg.Version, cfg.Commit)
}

// goBuild builds cmd/recover for p into out, with the release flags.
func goBuild(ctx context.Context, cfg config, p platform, out, tags string) error {
	args := []string{"build", "-trimpath", "-buildvcs=false", "-ldflags=" + ldflags(cfg), "-o", out}
	if tags != "" {
		args = append(args, "-tags="+tags)
	}
	args = append(args, mainPkg)
	cmd := exec.CommandContext(ctx, cfg.Go, args...)
	cmd.Dir = cfg.Repo
	// GOFLAGS is cleared so a developer's -race or -tags can't leak into a release;
	// GOAMD64/GOARM64 are pinned to the toolchain's defaults for the same reason.
	cmd.Env = append(environ(cfg), "CGO_ENABLED=0", "GOOS="+p.OS, "GOARCH="+p.Arch, "GOFLAGS=", "GOAMD64=v1", "GOARM64=v8.0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build for %s: %w: %s", p, err, b)
	}
	return nil
}

// entry is one file or directory of an archive.
type entry struct {
	Name string // slash-separated; a directory ends in /
	Mode int64
	Data []byte
}

// sharedEntries are the archive's entries besides the binary: README.md and LICENSE
// from the repository when present, and the generated man/ and completions/.
func sharedEntries(repo, docs string) ([]entry, error) {
	var es []entry
	for _, name := range []string{"README.md", "LICENSE"} {
		b, err := os.ReadFile(filepath.Join(repo, name))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		es = append(es, entry{Name: name, Mode: 0o644, Data: b})
	}
	err := filepath.WalkDir(docs, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == docs {
			return err
		}
		rel, _ := filepath.Rel(docs, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			es = append(es, entry{Name: rel + "/", Mode: 0o755})
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		es = append(es, entry{Name: rel, Mode: 0o644, Data: b})
		return nil
	})
	return es, err
}

func entryNames(es []entry) []string {
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = e.Name
	}
	slices.Sort(names)
	return names
}

// tarGz writes entries as a gzip-compressed tar whose bytes depend on the entries
// alone (tarEntries), with a gzip header with no file name or time.
func tarGz(entries []entry, mtime time.Time) ([]byte, error) {
	t, err := tarEntries(entries, mtime)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(t); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// tarEntries writes entries as a tar whose bytes depend on the entries alone:
// sorted by name, every timestamp mtime, owner and group 0 without names, USTAR
// headers (no PAX records with access times). Only directories and regular
// files, the two types krew unpacks.
func tarEntries(entries []entry, mtime time.Time) ([]byte, error) {
	sorted := slices.Clone(entries)
	slices.SortFunc(sorted, func(a, b entry) int { return strings.Compare(a.Name, b.Name) })
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for i, e := range sorted {
		if i > 0 && sorted[i-1].Name == e.Name {
			return nil, fmt.Errorf("archive entry %s twice", e.Name)
		}
		h := &tar.Header{Name: e.Name, Mode: e.Mode, ModTime: mtime, Format: tar.FormatUSTAR}
		if strings.HasSuffix(e.Name, "/") {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag = tar.TypeReg
			h.Size = int64(len(e.Data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("archive entry %s: %w", e.Name, err)
		}
		if _, err := tw.Write(e.Data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func platformList(ps []platform) string {
	var s []string
	for _, p := range ps {
		s = append(s, p.String())
	}
	return strings.Join(s, ", ")
}

func sortStrings(s []string) { slices.Sort(s) }
