package kubetest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// BinDirEnv names the environment variable that points at a directory holding the
// control-plane binaries, overriding the cache lookup. make test sets it.
const BinDirEnv = "RECOVER_KUBE_BIN"

// BuildCommand is the command that builds the binaries into the cache.
const BuildCommand = "make kube-binaries"

// Binaries locates the cached control-plane binaries.
type Binaries struct {
	// Dir is the cache directory holding bin/ and kwok-stages/.
	Dir string
}

// Path returns the path of the named binary (etcd, kube-apiserver, ...).
func (b Binaries) Path(name string) string { return filepath.Join(b.Dir, "bin", name) }

// KwokStages returns the kwok stage files shipped next to the binaries.
func (b Binaries) KwokStages() ([]string, error) {
	return filepath.Glob(filepath.Join(b.Dir, "kwok-stages", "*.yaml"))
}

// ErrBinariesMissing is returned when the binaries have not been built yet.
var ErrBinariesMissing = errors.New("kube control-plane binaries are not built")

// FindBinaries returns the binaries from $RECOVER_KUBE_BIN, or else from the cache
// directory hack/kube-binaries.sh --print names. It checks that every binary exists.
func FindBinaries() (Binaries, error) {
	dir := os.Getenv(BinDirEnv)
	if dir == "" {
		root, err := RepoRoot()
		if err != nil {
			return Binaries{}, err
		}
		out, err := exec.Command("bash", filepath.Join(root, "hack", "kube-binaries.sh"), "--print").Output()
		if err != nil {
			return Binaries{}, fmt.Errorf("locating kube binaries with hack/kube-binaries.sh --print: %w", err)
		}
		dir = strings.TrimSpace(string(out))
	}
	b := Binaries{Dir: dir}
	for _, name := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"} {
		if _, err := os.Stat(b.Path(name)); err != nil {
			return Binaries{}, fmt.Errorf("%w: %s not found in %s; build them with '%s' (about 8 minutes the first time)",
				ErrBinariesMissing, name, filepath.Join(dir, "bin"), BuildCommand)
		}
	}
	return b, nil
}

// RepoRoot walks up from the working directory to the directory holding recover's go.mod.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.Contains(string(data), "module github.com/openshift-recover/recover\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("kubetest: the recover repository root (go.mod) was not found above the working directory")
		}
		dir = parent
	}
}
