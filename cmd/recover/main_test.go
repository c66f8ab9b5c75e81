package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

// apiServer starts a real kube-apiserver for one test (skipped with -short) and
// stops it when the test ends.
func apiServer(t *testing.T, opts kubetest.Options) *kubetest.Env {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: starts a real kube-apiserver")
	}
	env, err := kubetest.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(env.Stop)
	return env
}

// runRecover runs the CLI in-process and returns its exit code, stdout and stderr.
func runRecover(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	code := run(context.Background(), args, streams)
	return code, out.String(), errOut.String()
}

func TestVersionOutputs(t *testing.T) {
	code, out, _ := runRecover(t, "version")
	if code != ExitOK || !strings.HasPrefix(out, "recover ") {
		t.Fatalf("version: code %d, output %q", code, out)
	}
	code, out, _ = runRecover(t, "version", "-o", "json")
	var v VersionInfo
	if code != ExitOK || json.Unmarshal([]byte(out), &v) != nil || v.GoVersion == "" {
		t.Fatalf("version -o json: code %d, output %q", code, out)
	}
}

func TestUsageErrorsAreOneLineWithExitUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--no-such-flag"},
		{"version", "-o", "xml"},
		{"version", "extra-arg"},
	} {
		code, _, errOut := runRecover(t, args...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", args, code, ExitUsage, errOut)
		}
		if strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.HasPrefix(errOut, "error: ") {
			t.Errorf("%v: want one 'error: ' line, got %q", args, errOut)
		}
	}
}

type inputErr struct{}

func (inputErr) Error() string  { return "graph.json: line 3: unexpected EOF" }
func (inputErr) BadInput() bool { return true }

func TestExitCodeFor(t *testing.T) {
	gr := schema.GroupResource{Group: "config.openshift.io", Resource: "clusterversions"}
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, ExitOK},
		{"plain", errors.New("boom"), ExitError},
		{"usage", usageError{msg: "bad flag"}, ExitUsage},
		{"bad input, wrapped", fmt.Errorf("loading graph: %w", inputErr{}), ExitBadInput},
		{"missing file", fmt.Errorf("reading plan: %w", fs.ErrNotExist), ExitBadInput},
		{"forbidden", apierrors.NewForbidden(gr, "version", errors.New("no")), ExitCluster},
		{"coded", withExitCode(errors.New("lease held by someone"), ExitLocked), ExitLocked},
		{"canceled", fmt.Errorf("waiting: %w", context.Canceled), ExitAborted},
	} {
		if got := exitCodeFor(tc.err); got != tc.want {
			t.Errorf("%s: exit code %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestWriteYAML(t *testing.T) {
	var buf bytes.Buffer
	if err := writeYAML(&buf, map[string]int{"a": 1}); err != nil || buf.String() != "a: 1\n" {
		t.Fatalf("writeYAML: %q %v", buf.String(), err)
	}
}
