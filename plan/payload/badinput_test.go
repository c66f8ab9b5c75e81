package payload

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"

	"github.com/openshift-recover/recover/internal/testing/inputcheck"
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

// TestRegistryFailureMidPullIsNotAPartialPayload pulls a two-layer release image
// whose lower layer the registry fails to serve. go-containerregistry's Extract
// ends its tar stream before it reports the failure, so the failure must still
// come out as an error, and nothing may be cached as a complete payload.
func TestRegistryFailureMidPullIsNotAPartialPayload(t *testing.T) {
	top := tarLayer(t, map[string][]byte{"release-manifests/release-metadata": []byte(`{"kind":"cincinnati-metadata-v0","version":"4.4.4"}`)})
	bottom := tarLayer(t, map[string][]byte{"release-manifests/0000_50_a_00_ns.yaml": []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n")})
	img, err := mutate.AppendLayers(empty.Image, bottom, top)
	if err != nil {
		t.Fatal(err)
	}
	bad, err := bottom.Digest()
	if err != nil {
		t.Fatal(err)
	}
	_, pullSpec := push(t, img, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, bad.String()) {
				http.Error(w, "disk on fire", http.StatusInternalServerError)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	cache := t.TempDir()
	_, _, err = Pull(context.Background(), pullSpec, PullOptions{CacheDir: cache, Insecure: true, Transport: http.DefaultTransport})
	var pe *PullError
	if !errors.As(err, &pe) || pe.Input || inputcheck.LineProblem(err.Error()) != "" {
		t.Fatalf("a registry failure midway must be a one-line network error (exit 1), got %T %v", err, err)
	}
	entries, _ := os.ReadDir(cache)
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(cache, e.Name(), completeMarker)); err == nil {
			t.Fatalf("a partial payload was cached as complete: %s", e.Name())
		}
	}
}
