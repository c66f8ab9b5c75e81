package main

import (
	"bytes"
	"context"
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
