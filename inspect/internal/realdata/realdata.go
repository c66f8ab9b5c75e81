package realdata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// EnvVar overrides where the real data lives.
const EnvVar = "RECOVER_REALDATA"

// Dir returns the real-data directory, or skips t when there is none.
func Dir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv(EnvVar); d != "" {
		if _, err := os.Stat(d); err == nil {
			return d
		}
		t.Skipf("real data: $%s=%s does not exist", EnvVar, d)
	}
	root, err := repoRoot()
	if err == nil {
		d := filepath.Join(root, "..", "shared", "realdata")
		if _, err := os.Stat(d); err == nil {
			return d
		}
	}
	t.Skipf("real data not found: set $%s or provide ../shared/realdata beside the repository", EnvVar)
	return ""
}

func repoRoot() (string, error) {
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
			return "", os.ErrNotExist
		}
		dir = parent
	}
}
