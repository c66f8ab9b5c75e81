package payload

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/openshift-recover/recover/internal/testing/shareddata"
)

// TestSplitYAMLIsTheCVOsReader: splitYAML hands the YAML parser the bytes
// apimachinery's YAMLReader hands it, which the CVO reads payloads with
// (library-go pkg/manifest ParseManifests, yaml.NewYAMLOrJSONDecoder): every
// non-empty document, byte for byte, on edge cases and on every YAML file of
// the real payloads. The 4.20 insights operator's kube-rbac-proxy ConfigMap
// ends in a |+ block scalar without a final newline: the CVO stores its value
// with one, and so must recover.
func TestSplitYAMLIsTheCVOsReader(t *testing.T) {
	check := func(name string, data []byte) {
		t.Helper()
		want, err := apimachineryDocuments(data)
		if err != nil {
			return // an invalid separator: the decoder reports it
		}
		var got []string
		for _, d := range splitYAML(data) {
			if len(d.data) > 0 {
				got = append(got, string(d.data))
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: splitYAML gives %d documents, apimachinery's YAMLReader %d:\n%q\n%q", name, len(got), len(want), got, want)
			return
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: document %d ends\n%q\napimachinery's YAMLReader\n%q", name, i, tail(got[i]), tail(want[i]))
			}
		}
	}
	for name, in := range map[string]string{
		"no final newline":       "a: 1\nb: |+\n  x\n  y",
		"final newline":          "a: 1\n",
		"separators":             "---\na: 1\n---\n---  # c\nb: 2\n--- \nc: 3",
		"crlf":                   "a: 1\r\nb: |+\r\n  x\r\n---\r\nc: 2\r\n",
		"lone cr at the end":     "a: 1\r",
		"empty":                  "",
		"only a separator":       "---\n",
		"blank lines":            "\n\n---\n\n",
		"separator at the end":   "a: 1\n---",
		"comment after document": "a: 1\n# end",
	} {
		check(name, []byte(in))
	}
	if testing.Short() {
		return
	}
	for _, name := range []string{"payload-release-4.3", "payload-release-4.4", "payload-release-4.18", "payload-release-4.19", "payload-release-4.20"} {
		root := shareddata.RealData(t, name)
		n := 0
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !hasManifestExtension(d.Name()) || strings.HasSuffix(d.Name(), ".json") {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			check(path, data)
			n++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n < 300 {
			t.Fatalf("only %d files in %s", n, root)
		}
	}
}

// apimachineryDocuments are the documents YAMLReader returns for data, without
// the separator lines it keeps at the start of one (after an empty document, or
// the file's first line): the parser reads them as the document start marker,
// as if they were not there. A document that is only such lines is none.
func apimachineryDocuments(data []byte) ([]string, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []string
	for {
		d, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		for bytes.HasPrefix(d, []byte("---")) {
			_, d, _ = bytes.Cut(d, []byte("\n"))
		}
		if len(d) > 0 {
			out = append(out, string(d))
		}
	}
}

func tail(s string) string {
	if len(s) > 80 {
		return "..." + s[len(s)-80:]
	}
	return s
}
