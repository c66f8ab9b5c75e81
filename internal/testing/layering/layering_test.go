package layering

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/openshift-recover/recover/"

// The layers under internal/: product code shared inside the module
// (internal/<pkg>), and test and lab machinery (internal/testing/..., internal/lab/...).
const (
	layerShared  = "internal"
	layerTesting = "internal/testing"
	layerLab     = "internal/lab"
)

// forbidden lists, per layer, the layers its non-test code must never import.
// Product code never imports test or lab machinery; the shared product packages
// under internal/ sit below every layer and import none of them.
var forbidden = map[string][]string{
	"inspect":     {"plan", "apply", "tui", "cmd/recover", layerTesting, layerLab},
	"plan":        {"apply", "tui", "cmd/recover", layerTesting, layerLab},
	"apply":       {"tui", "cmd/recover", layerTesting, layerLab},
	"tui":         {"cmd/recover", layerTesting, layerLab},
	"cmd/recover": {layerTesting, layerLab},
	layerShared:   {"inspect", "plan", "apply", "tui", "cmd/recover", layerTesting, layerLab},
}

type pkg struct {
	ImportPath string
	Imports    []string
}

// layerOf returns the top-level layer of a package path inside the module.
func layerOf(path string) string {
	rel := strings.TrimPrefix(path, module)
	for _, l := range []string{"cmd/recover", layerTesting, layerLab} {
		if rel == l || strings.HasPrefix(rel, l+"/") {
			return l
		}
	}
	first, _, _ := strings.Cut(rel, "/")
	return first
}

func TestImportsFollowTheDataFlow(t *testing.T) {
	dec := goList(t, "ImportPath,Imports")
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
		module + "inspect/live":              "inspect",
		module + "plan":                      "plan",
		module + "cmd/recover":               "cmd/recover",
		module + "internal/testing/kubetest": layerTesting,
		module + "internal/lab/sim/e2e":      layerLab,
		module + "internal/openshift":        layerShared,
		module + "inspect/internal/x":        "inspect",
		// The fleet packages sit in the layer of what they are built from:
		// inspect/fleet collects snapshots, plan/verdict judges them with the
		// planner, apply/fleetexport emits the Jobs that run inspect and apply.
		module + "inspect/fleet":                 "inspect",
		module + "plan/verdict":                  "plan",
		module + "apply/fleetexport":             "apply",
		module + "internal/testing/fleetengines": layerTesting,
		module + "internal/testing/fleetgen":     layerTesting,
	} {
		if got := layerOf(path); got != want {
			t.Errorf("layerOf(%s) = %s, want %s", path, got, want)
		}
	}
}

// goList runs `go list -json=<fields>` over the module from its root and returns
// a decoder over the packages it prints.
func goList(t *testing.T, fields string) *json.Decoder {
	t.Helper()
	cmd := exec.Command("go", "list", "-json="+fields, module+"...")
	cmd.Dir = "../../.."
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("go list: %v\n%s", err, exit.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	return json.NewDecoder(bytes.NewReader(out))
}
