package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

// TestMain points the user cache directory (os.UserCacheDir) at a temporary
// directory, so that commands run by tests with the default payload cache (the
// decoded-payload cache is on by default) never write into the user's cache. The
// kube binaries, which live in the user cache, are located first, and the go
// command's build cache is pinned where it was: the tests that run go build
// would otherwise compile every dependency afresh (minutes on 2 cores).
func TestMain(m *testing.M) {
	if os.Getenv(kubetest.BinDirEnv) == "" {
		if b, err := kubetest.FindBinaries(); err == nil {
			os.Setenv(kubetest.BinDirEnv, b.Dir)
		}
	}
	if os.Getenv("GOCACHE") == "" {
		if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
			os.Setenv("GOCACHE", strings.TrimSpace(string(out)))
		}
	}
	dir, err := os.MkdirTemp("", "recover-cmd-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	// What tests left for the package's end: the binary recoverbin built.
	kubetest.RunAtExit()
	os.RemoveAll(dir)
	os.Exit(code)
}
