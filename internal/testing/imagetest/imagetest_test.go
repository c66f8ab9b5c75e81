package imagetest

import (
	"archive/tar"
	"io"
	"os"
	"testing"
)

// TestLayerHoldsTheFilesAndLeavesNoTemporaryFile: the layer reads back the
// files in order, twice (a push reads it for its digest and its upload), and
// building it writes nothing to the temporary directory.
func TestLayerHoldsTheFilesAndLeavesNoTemporaryFile(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	files := []File{{"release-manifests/release-metadata", "{}"}, {"manifests/a.yaml", "kind: Namespace\n"}}
	layer := Layer(t, files...)
	for round := 0; round < 2; round++ {
		rc, err := layer.Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(rc)
		for i := 0; ; i++ {
			h, err := tr.Next()
			if err == io.EOF {
				if i != len(files) {
					t.Errorf("round %d: %d files, want %d", round, i, len(files))
				}
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			data, _ := io.ReadAll(tr)
			if i >= len(files) || h.Name != files[i].Path || string(data) != files[i].Content {
				t.Errorf("round %d: file %d is %s %q", round, i, h.Name, data)
			}
		}
		rc.Close()
	}
	if _, err := layer.Digest(); err != nil {
		t.Fatal(err)
	}
	if _, err := Image(t, layer).Manifest(); err != nil {
		t.Fatal(err)
	}
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("building the layer left %d files in the temporary directory: %v", len(left), left)
	}
}
