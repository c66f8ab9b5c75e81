package kubetest

import (
	"flag"
	"fmt"
	"os"
	"sync"
	"testing"
)

// Main starts one control plane for a test package, stores it in *env, runs the
// tests and stops it. With -short it starts nothing and leaves *env nil, so a quick
// unit run needs no binaries; integration tests then skip through Require.
// When the binaries are missing or the control plane fails to start, every test of
// the package fails at once with the reason, naming the command that builds them.
func Main(m *testing.M, opts Options, env **Env) {
	flag.Parse()
	if testing.Short() {
		code := m.Run()
		RunAtExit()
		os.Exit(code)
	}
	e, err := Start(opts)
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: kubetest: cannot start the real control plane: %v\n", err)
		os.Exit(1)
	}
	*env = e
	code := m.Run()
	e.Stop()
	RunAtExit()
	os.Exit(code)
}

var (
	atExitMu sync.Mutex
	atExit   []func()
)

// AtExit registers f to run when Main returns from the package's tests (after
// the control plane stopped), for what tests leave behind beyond a t.TempDir:
// a binary built once for every test of the package, say.
func AtExit(f func()) {
	atExitMu.Lock()
	defer atExitMu.Unlock()
	atExit = append(atExit, f)
}

// RunAtExit runs, last registered first, what AtExit registered: Main calls
// it; a package whose TestMain does not use Main calls it after m.Run.
func RunAtExit() {
	atExitMu.Lock()
	defer atExitMu.Unlock()
	for i := len(atExit) - 1; i >= 0; i-- {
		atExit[i]()
	}
	atExit = nil
}

// Require skips t when the package runs with -short (no control plane started) and
// fails it when the control plane is missing for any other reason.
func Require(t testing.TB, env *Env) {
	t.Helper()
	if env != nil {
		return
	}
	if testing.Short() {
		t.Skip("integration test: needs the real kube-apiserver, which -short does not start")
	}
	t.Fatalf("integration test without a control plane: call kubetest.Main from TestMain")
}
