package shareddata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// RealDataEnvVar overrides where the real public data lives.
const RealDataEnvVar = "RECOVER_REALDATA"

// RealData returns rel under the real public data directory (rel "" is the
// directory itself), or skips tb saying what is missing.
func RealData(tb testing.TB, rel string) string {
	tb.Helper()
	what := "the real public data"
	if rel != "" {
		what = "real data " + rel
	}
	root := Find(tb, what, "realdata", RealDataEnvVar, rel)
	return filepath.Join(root, rel)
}

// RealDataRoot returns the real public data directory when it holds probe, or
// "" (for a fuzz target that adds real seeds when there are some).
func RealDataRoot(probe string) string {
	return locate("realdata", RealDataEnvVar, probe)
}

// Find returns the directory $envVar names, else ../shared/<name> beside the
// repository, when it holds probe (a path under it; "" for the directory
// itself); otherwise it skips tb, naming what is missing.
func Find(tb testing.TB, what, name, envVar, probe string) string {
	tb.Helper()
	if d := locate(name, envVar, probe); d != "" {
		return d
	}
	if d := os.Getenv(envVar); d != "" && probe == "" {
		tb.Skipf("%s: $%s=%s does not exist", what, envVar, d)
	} else if d != "" {
		tb.Skipf("%s: $%s=%s does not hold %s", what, envVar, d, probe)
	}
	tb.Skipf("%s not found: set $%s or provide ../shared/%s beside the repository", what, envVar, name)
	return ""
}

func locate(name, envVar, probe string) string {
	d := os.Getenv(envVar)
	if d == "" {
		root, err := repoRoot()
		if err != nil {
			return ""
		}
		d = filepath.Join(root, "..", "shared", name)
	}
	if _, err := os.Stat(filepath.Join(d, probe)); err != nil {
		return ""
	}
	return d
}

// repoRoot is the nearest directory above the working directory whose go.mod
// declares this module.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(data), "module github.com/openshift-recover/recover\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}
