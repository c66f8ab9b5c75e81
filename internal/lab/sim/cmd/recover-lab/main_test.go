package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunRefusesABadScenarioBeforeStartingAnything(t *testing.T) {
	for _, tc := range []struct{ dir, want string }{
		{t.TempDir(), "no scenario.yaml here"},
		{"does/not/exist", "no scenario.yaml here"},
	} {
		var out, errOut bytes.Buffer
		o := &options{scenario: tc.dir, out: &out, errOut: &errOut}
		if code := o.run(context.Background()); code != exitBadInput {
			t.Errorf("%s: exit %d, want %d (bad input)", tc.dir, code, exitBadInput)
		}
		if !strings.Contains(errOut.String(), tc.want) || strings.Count(strings.TrimSpace(errOut.String()), "\n") != 0 {
			t.Errorf("%s: want one line naming the problem, got %q", tc.dir, errOut.String())
		}
		if strings.Contains(out.String(), "starting") {
			t.Errorf("%s: the control plane was started for a bad scenario: %q", tc.dir, out.String())
		}
	}
}

func TestMustGatherOutReplacesOnlyItsOwnDirectories(t *testing.T) {
	empty := t.TempDir()
	own := t.TempDir()
	for _, p := range []string{"timestamp", "cluster-scoped-resources/"} {
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(filepath.Join(own, p), 0o755); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(filepath.Join(own, p), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dir string
		ok  bool
	}{{empty, true}, {own, true}, {filepath.Join(empty, "new"), true}, {other, false}} {
		if err := replaceable(tc.dir); (err == nil) != tc.ok {
			t.Errorf("replaceable(%s) = %v, want ok %v", tc.dir, err, tc.ok)
		}
	}
}
