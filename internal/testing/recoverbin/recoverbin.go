package recoverbin

import (
	"bytes"
	"errors"
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

// Run runs the recover binary with args (and env added to the test's
// environment) and returns its exit code, stdout and stderr; a binary that
// could not be started fails t.
func Run(t testing.TB, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(Path(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return ExitCode(err), out.String(), errOut.String()
}

// ExitCode is the exit code of a command that ran (0 for a nil error), or -1
// when err says it did not start or did not exit (killed by a signal).
func ExitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
