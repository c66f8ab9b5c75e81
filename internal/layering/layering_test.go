package layering

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/openshift-recover/recover/"

// forbidden lists, per layer, the layers its non-test code must never import.
// internal/ is test and lab machinery: only tests and internal/ itself may use it.
var forbidden = map[string][]string{
	"inspect":     {"plan", "apply", "tui", "cmd/recover", "internal"},
	"plan":        {"apply", "tui", "cmd/recover", "internal"},
	"apply":       {"tui", "cmd/recover", "internal"},
	"tui":         {"cmd/recover", "internal"},
	"cmd/recover": {"internal"},
}

type pkg struct {
	ImportPath string
	Imports    []string
}

// layerOf returns the top-level layer of a package path inside the module.
func layerOf(path string) string {
	rel := strings.TrimPrefix(path, module)
	if strings.HasPrefix(rel, "cmd/recover") {
		return "cmd/recover"
	}
	first, _, _ := strings.Cut(rel, "/")
	return first
}

func TestImportsFollowTheDataFlow(t *testing.T) {
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports", module+"...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("go list: %v\n%s", err, exit.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	checked := 0
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		from := layerOf(p.ImportPath)
		bans := forbidden[from]
		checked++
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			to := layerOf(imp)
			// A sub-package importing an internal/ package of its own layer
			// (inspect/internal/...) is fine: Go's internal rule already scopes it.
			if strings.Contains(strings.TrimPrefix(imp, module), "/internal/") && to == from {
				continue
			}
			for _, ban := range bans {
				if to == ban && to != from {
					t.Errorf("%s imports %s: %s must not depend on %s", p.ImportPath, imp, from, ban)
				}
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d packages listed; go list did not see the module", checked)
	}
}

func TestLayerOf(t *testing.T) {
	for path, want := range map[string]string{
		module + "inspect/live":       "inspect",
		module + "plan":               "plan",
		module + "cmd/recover":        "cmd/recover",
		module + "internal/kubetest":  "internal",
		module + "inspect/internal/x": "inspect",
	} {
		if got := layerOf(path); got != want {
			t.Errorf("layerOf(%s) = %s, want %s", path, got, want)
		}
	}
}
