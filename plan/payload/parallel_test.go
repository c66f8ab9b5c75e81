package payload

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/internal/testing/shareddata"
)

// TestParallelLoadMatchesSequential loads every example payload and the real ones
// with one worker and with several, and requires the same payload: the same
// manifests in the same order (objects and JSON included), decisions and order.
func TestParallelLoadMatchesSequential(t *testing.T) {
	cases := payloadCases(t)
	for _, c := range cases {
		want, err := loadDir(c.dir, c.o, 1)
		if err != nil {
			t.Fatalf("%s: %v", c.dir, err)
		}
		for _, workers := range []int{2, 3, 8, 64} {
			got, err := loadDir(c.dir, c.o, workers)
			if err != nil {
				t.Fatalf("%s with %d workers: %v", c.dir, workers, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: %d workers give another payload than one", c.dir, workers)
			}
		}
	}
}

// TestParallelLoadReportsFirstBadFile: with several bad files, the error is the
// one of the first bad file in payload order (manifests/ before
// release-manifests/, then by name), word for word as one worker reports it,
// however the workers are scheduled.
func TestParallelLoadReportsFirstBadFile(t *testing.T) {
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("release-manifests/0000_50_a_%02d_cm.yaml", i)] = fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%d\n  namespace: ns\n%s", i, annotated)
	}
	// A later bad file that fails fast, an earlier one that fails after
	// decoding a large valid document first.
	files["release-manifests/0000_50_a_30_bad.yaml"] = "key: [unclosed\n"
	files["release-manifests/0000_50_a_31_bad.yaml"] = "apiVersion: v1\nmetadata:\n  name: x\n"
	files["release-manifests/0000_50_a_05_bad.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big, namespace: ns}\ndata:\n" + strings.Repeat("  # pad\n", 20000) + "  k: v\n---\n- not an object\n"
	for name, wantPart := range map[string]string{
		"with a bad manifests/ file":   "manifests/0000_00_cvo_x.yaml",
		"release-manifests/ bad files": "0000_50_a_05_bad.yaml",
	} {
		t.Run(name, func(t *testing.T) {
			fs := map[string]string{}
			for k, v := range files {
				fs[k] = v
			}
			if strings.HasPrefix(wantPart, "manifests/") {
				fs["manifests/0000_00_cvo_x.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: '{{.Nope}}'}\n"
			}
			dir := writePayload(t, fs)
			_, err := loadDir(dir, Options{}, 1)
			if err == nil || !strings.Contains(err.Error(), wantPart) {
				t.Fatalf("one worker: %v, want an error naming %s", err, wantPart)
			}
			for range 20 {
				for _, workers := range []int{2, 4, 16} {
					_, perr := loadDir(dir, Options{}, workers)
					if perr == nil || perr.Error() != err.Error() {
						t.Fatalf("%d workers: %v\none worker: %v", workers, perr, err)
					}
				}
			}
		})
	}
}

// payloadCase is a payload directory and the options it loads with.
type payloadCase struct {
	dir string
	o   Options
}

// payloadCases are every example release (rendered for a digest pull spec) and,
// when RECOVER_REALDATA holds them, the real 4.3 and 4.4 payloads (a subtest
// that skips, saying why, when they are absent).
func payloadCases(t *testing.T) []payloadCase {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("..", "..", "examples", "*", "releases", "*"))
	if err != nil || len(dirs) < 5 {
		t.Fatalf("example releases: %v %v", dirs, err)
	}
	var cases []payloadCase
	for _, d := range dirs {
		cases = append(cases, payloadCase{d, Options{ReleaseImage: "quay.io/x/release@sha256:" + strings.Repeat("a", 64)}})
	}
	for _, r := range []struct{ name, version string }{{"payload-release-4.3", "4.3.0"}, {"payload-release-4.4", "4.4.0"}} {
		t.Run(r.name, func(t *testing.T) {
			cases = append(cases, payloadCase{shareddata.RealData(t, r.name), Options{Version: r.version}})
		})
	}
	return cases
}
