package shareddata

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRealDataRootHonoursTheEnvironmentAndTheProbe(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "payload-release-4.4"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(RealDataEnvVar, dir)
	for _, tc := range []struct {
		probe, want string
	}{
		{"", dir},
		{"payload-release-4.4", dir},
		{"payload-release-9.9", ""},
	} {
		if got := RealDataRoot(tc.probe); got != tc.want {
			t.Errorf("RealDataRoot(%q) = %q, want %q", tc.probe, got, tc.want)
		}
	}
	if got := RealData(t, "payload-release-4.4"); got != filepath.Join(dir, "payload-release-4.4") {
		t.Errorf("RealData = %q", got)
	}
}

func TestFindSkipsNamingWhatIsMissing(t *testing.T) {
	t.Setenv("RECOVER_SHAREDDATA_TEST", filepath.Join(t.TempDir(), "absent"))
	var skipped bool
	t.Run("missing", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		Find(t, "the test data", "nothing-here", "RECOVER_SHAREDDATA_TEST", "x")
		t.Error("Find returned for a missing directory")
	})
	if !skipped {
		t.Error("Find did not skip")
	}
}
