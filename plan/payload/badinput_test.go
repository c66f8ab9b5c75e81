package payload

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openshift-recover/recover/internal/inputcheck"
)

// TestTemplateBombsAreRefused loads payloads whose CVO templates loop or print
// without end: each must fail within the render bounds with a one-line bad-input
// error, instead of hanging recover or filling its memory.
func TestTemplateBombsAreRefused(t *testing.T) {
	for name, tmpl := range map[string]string{
		"nested ranges without output": strings.Repeat("{{range $.Images}}", 6) + strings.Repeat("{{end}}", 6),
		"nested ranges with output":    strings.Repeat("{{range $.Images}}", 6) + "x" + strings.Repeat("{{end}}", 6),
		"range over a huge integer":    "{{range 100000000000}}{{end}}",
		"wide printf in a loop":        `{{range 100000}}{{printf "%0999999d" 1}}{{end}}`,
		"recursive template":           `{{define "a"}}{{template "a"}}{{template "a"}}{{end}}{{template "a"}}`,
		"fan-out of templates":         `{{define "b"}}{{end}}{{define "a"}}{{template "b"}}{{template "b"}}{{end}}{{template "a"}}`,
		"range over a variable":        `{{$n := 100000000000}}{{range $n}}{{end}}`,
		"range over a function":        `{{range len (printf "%0999999d" 1)}}{{end}}`,
		"printing without end":         `{{range .Images}}{{range $.Images}}{{printf "%0999999d" 1}}{{end}}{{end}}`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for _, rel := range []string{"release-manifests/release-metadata", "release-manifests/image-references"} {
				data, err := os.ReadFile(filepath.Join(examplePayload, rel))
				if err != nil {
					t.Fatal(err)
				}
				writeFile(t, filepath.Join(dir, rel), data)
			}
			writeFile(t, filepath.Join(dir, "manifests", "0000_00_cluster-version-operator_03_deployment.yaml"), []byte(tmpl))
			start := time.Now()
			var err error
			inputcheck.Within(t, 30*time.Second, "LoadDir", func() { _, err = LoadDir(dir, Options{}) })
			if p := inputcheck.Problem(err); p != "" {
				t.Fatal(p)
			}
			if !strings.Contains(err.Error(), "0000_00_cluster-version-operator_03_deployment.yaml") {
				t.Errorf("the error does not name the template: %v", err)
			}
			t.Logf("refused after %s: %v", time.Since(start).Round(time.Millisecond), err)
		})
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
