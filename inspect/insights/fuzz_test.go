package insights

import (
	"archive/tar"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/openshift-recover/recover/inspect/internal/archive"
	"github.com/openshift-recover/recover/internal/testing/inputcheck"
)

// FuzzArchive feeds arbitrary bytes to the Insights reader as a .tar archive: a
// failure must be a one-line bad-input error, and a snapshot must render and
// round-trip through JSON.
func FuzzArchive(f *testing.F) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	root := filepath.Join("testdata", "archive")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if err := tw.WriteHeader(&tar.Header{Name: "insights-2020-05-24/" + filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	if err != nil || tw.Close() != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	for _, files := range []map[string]string{
		{"config/version": `{"metadata":{"name":"version"},"status":{"desired":{"version":"4.4.3"}}}`, "config/node/n.json": `{"metadata":{"name":"n"}}`},
		{"config/version.json": `[]`},
		{"config/version": `{"kind":"Node"}`},
		{"config/version": "{}", "config/clusteroperator/operator.openshift.io/kubeapiserver/cluster.json": `{"status":{"nodeStatuses":[{"nodeName":""}]}}`},
		{"config/version": "{}", "config/pod/openshift-kube-apiserver/p.json": `{"metadata":{"name":"p","labels":{"revision":"-1"}}}`},
	} {
		var b bytes.Buffer
		w := tar.NewWriter(&b)
		for name, data := range files {
			_ = w.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg})
			_, _ = w.Write([]byte(data))
		}
		_ = w.Close()
		f.Add(b.Bytes())
	}
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "insights.tar")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		src := &Source{Path: path, Limits: archive.Limits{MaxFileBytes: 1 << 20, MaxKeptBytes: 8 << 20, MaxArchiveBytes: 64 << 20, MaxEntries: 10000}}
		inputcheck.CheckSource(t, src)
	})
}
