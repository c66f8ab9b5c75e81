package recoverbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

var (
	once sync.Once
	path string
	err  error
)

// Path builds cmd/recover on its first call and returns the binary's path; a
// build failure fails t (and every later caller) with go build's output. The
// binary lives in a temporary directory that kubetest.Main removes after the
// package's tests ran.
func Path(t testing.TB) string {
	t.Helper()
	once.Do(func() { path, err = build() })
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func build() (string, error) {
	root, err := kubetest.RepoRoot()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "recover-bin-")
	if err != nil {
		return "", err
	}
	kubetest.AtExit(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "recover")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/recover")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building cmd/recover: %v\n%s", err, out)
	}
	return bin, nil
}
