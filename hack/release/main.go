package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// The files a release writes into its output directory, as the README names them.
const (
	sumsFile     = "SHA256SUMS"
	manifestFile = "plugins/recover.yaml"
	binName      = "recover"
	mainPkg      = "./cmd/recover"
	modulePath   = "github.com/openshift-recover/recover"
	homepage     = "https://github.com/openshift-recover/recover"
)

// defaultPlatforms are the release's GOOS/GOARCH pairs.
var defaultPlatforms = []platform{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"}}

type platform struct{ OS, Arch string }

func (p platform) String() string { return p.OS + "/" + p.Arch }

// archiveName is the file name of the release archive for version and p.
func archiveName(version string, p platform) string {
	return fmt.Sprintf("%s_%s_%s_%s.tar.gz", binName, version, p.OS, p.Arch)
}

func parsePlatforms(s string) ([]platform, error) {
	var ps []platform
	for _, f := range strings.Split(s, ",") {
		os, arch, ok := strings.Cut(strings.TrimSpace(f), "/")
		if !ok || os == "" || arch == "" {
			return nil, fmt.Errorf("platform %q: want GOOS/GOARCH", f)
		}
		ps = append(ps, platform{os, arch})
	}
	return ps, nil
}

// config is one release build.
type config struct {
	Repo      string     // the module root
	Out       string     // output directory
	Platforms []platform // what to build
	// Archives writes the archives, SHA256SUMS and the krew manifest; Image the
	// OCI image layout of ImagePlatforms.
	Archives       bool
	Image          bool
	ImagePlatforms []platform
	Version        string   // spec.version, archive names, main.version
	Commit         string   // main.commit
	Epoch          int64    // SOURCE_DATE_EPOCH
	Go             string   // the go command
	Env            []string // environment of every go and generator run; nil: os.Environ()
	Log            func(format string, args ...any)
}

func main() {
	out := flag.String("out", "dist", "output directory (replaced)")
	plats := flag.String("platforms", "", "comma-separated GOOS/GOARCH list (default: linux and darwin, amd64 and arm64)")
	verify := flag.Bool("verify", false, "build twice into temporary directories and fail unless the outputs are byte-identical (the archives and the image)")
	img := flag.Bool("image", false, "write only the OCI image layout of the static binary into -out (for linux/amd64 and linux/arm64, or the -platforms given)")
	flag.Parse()
	if err := mainErr(*out, *plats, *verify, *img); err != nil {
		fmt.Fprintln(os.Stderr, "release: "+err.Error())
		os.Exit(1)
	}
}

func mainErr(out, plats string, verify, img bool) error {
	repo, err := moduleRoot()
	if err != nil {
		return err
	}
	cfg, err := configFromGit(repo)
	if err != nil {
		return err
	}
	if plats != "" {
		if cfg.Platforms, err = parsePlatforms(plats); err != nil {
			return err
		}
		cfg.ImagePlatforms = nil
		for _, p := range cfg.Platforms {
			if p.OS == "linux" {
				cfg.ImagePlatforms = append(cfg.ImagePlatforms, p)
			}
		}
	}
	switch {
	case verify:
		cfg.Image = len(cfg.ImagePlatforms) > 0
	case img:
		if len(cfg.ImagePlatforms) == 0 {
			return errors.New("-image: no linux platform among -platforms")
		}
		cfg.Archives, cfg.Image = false, true
	}
	cfg.Log = func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	ctx := context.Background()
	if verify {
		diffs, err := buildTwice(ctx, cfg)
		if err != nil {
			return err
		}
		if len(diffs) > 0 {
			return fmt.Errorf("two builds of %s differ: %s", cfg.Version, strings.Join(diffs, "; "))
		}
		cfg.Log("two builds of %s are byte-identical", cfg.Version)
		return nil
	}
	if !filepath.IsAbs(out) {
		out = filepath.Join(repo, out)
	}
	cfg.Out = out
	return build(ctx, cfg)
}

// moduleRoot is the directory of the main module's go.mod.
func moduleRoot() (string, error) {
	b, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(b))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside a Go module; run from the recover checkout")
	}
	return filepath.Dir(mod), nil
}

// configFromGit fills a config for the checkout at repo: the version from git
// describe, the commit, and SOURCE_DATE_EPOCH (from the environment when set, else
// the commit time).
func configFromGit(repo string) (config, error) {
	git := func(args ...string) (string, error) {
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		b, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	describe, err := git("describe", "--tags", "--always", "--dirty")
	if err != nil {
		return config{}, err
	}
	commit, err := git("rev-parse", "HEAD")
	if err != nil {
		return config{}, err
	}
	epochText := os.Getenv("SOURCE_DATE_EPOCH")
	if epochText == "" {
		if epochText, err = git("log", "-1", "--format=%ct"); err != nil {
			return config{}, err
		}
	}
	epoch, err := strconv.ParseInt(epochText, 10, 64)
	if err != nil || epoch < 0 {
		return config{}, fmt.Errorf("SOURCE_DATE_EPOCH %q: want seconds since 1970", epochText)
	}
	return config{Repo: repo, Platforms: defaultPlatforms, Archives: true, ImagePlatforms: defaultImagePlatforms,
		Version: releaseVersion(describe), Commit: commit, Epoch: epoch, Go: "go"}, nil
}

// releaseVersion turns git describe output into the version recover ships as: a
// tag such as v0.3.0 or v0.3.0-2-gabc1234-dirty is kept (krew wants semver with a
// leading v, and those are); output without a usable tag (abc1234, abc1234-dirty)
// becomes v0.0.0-gabc1234[-dirty], so that the binary, the archive names and the
// krew manifest always carry the same valid version.
func releaseVersion(describe string) string {
	if validKrewVersion(describe) == nil {
		return describe
	}
	return "v0.0.0-g" + describe
}

// buildTwice runs the release into two fresh directories, the second with another
// HOME (the Go caches stay where they are), and lists the differences.
func buildTwice(ctx context.Context, cfg config) ([]string, error) {
	tmp, err := os.MkdirTemp("", "recover-release-check-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	env := cfg.Env
	if env == nil {
		env = os.Environ()
	}
	pinned, err := goEnv(ctx, cfg.Go, env, "GOCACHE", "GOMODCACHE", "GOPATH")
	if err != nil {
		return nil, err
	}
	dirs := [2]string{filepath.Join(tmp, "a"), filepath.Join(tmp, "b")}
	otherHome := filepath.Join(tmp, "home")
	if err := os.Mkdir(otherHome, 0o755); err != nil {
		return nil, err
	}
	for i, dir := range dirs {
		c := cfg
		c.Out = dir
		c.Env = append(append([]string(nil), env...), pinned...)
		if i == 1 {
			c.Env = append(c.Env, "HOME="+otherHome)
		}
		if err := build(ctx, c); err != nil {
			return nil, fmt.Errorf("build %d: %w", i+1, err)
		}
	}
	return compareTrees(dirs[0], dirs[1])
}

// goEnv returns NAME=value for each named go env variable.
func goEnv(ctx context.Context, goCmd string, env []string, names ...string) ([]string, error) {
	cmd := exec.CommandContext(ctx, goCmd, append([]string{"env"}, names...)...)
	cmd.Env = env
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go env: %w", err)
	}
	vals := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(vals) != len(names) {
		return nil, fmt.Errorf("go env %s: got %d lines", strings.Join(names, " "), len(vals))
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n + "=" + vals[i]
	}
	return out, nil
}

// compareTrees lists the files that are in one tree and not the other, or differ.
func compareTrees(a, b string) ([]string, error) {
	fa, err := readTree(a)
	if err != nil {
		return nil, err
	}
	fb, err := readTree(b)
	if err != nil {
		return nil, err
	}
	var diffs []string
	for name, da := range fa {
		db, ok := fb[name]
		switch {
		case !ok:
			diffs = append(diffs, name+" only in the first build")
		case !bytes.Equal(da, db):
			diffs = append(diffs, name+" differs")
		}
	}
	for name := range fb {
		if _, ok := fa[name]; !ok {
			diffs = append(diffs, name+" only in the second build")
		}
	}
	sortStrings(diffs)
	return diffs, nil
}

func readTree(root string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		files[filepath.ToSlash(rel)] = b
		return nil
	})
	return files, err
}

// hostPlatform is the platform the generator binary runs on.
func hostPlatform() platform { return platform{runtime.GOOS, runtime.GOARCH} }
