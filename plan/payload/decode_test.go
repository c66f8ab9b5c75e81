package payload

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/internal/testing/shareddata"
)

// TestDecoderMatchesSigsYAML is the differential test of the fast YAML path: for
// every document of every real payload manifest, every fuzz corpus input and a
// table of YAML 1.1 corner cases, decodeYAMLDocument must give the same JSON bytes,
// the same object and the same error (text included) as sigs.k8s.io/yaml's
// YAMLToJSON followed by encoding/json.
func TestDecoderMatchesSigsYAML(t *testing.T) {
	n := 0
	forEachYAMLDocument(t, func(name string, data []byte) {
		if d := decoderMismatch(decodeYAMLDocument, data); d != "" {
			t.Errorf("%s: %s", name, d)
		}
		n++
	})
	if n < 600 && !testing.Short() {
		t.Fatalf("only %d documents compared", n)
	}
}

// yamlCornerCases are YAML 1.1 and 1.2 corner cases for the differential tests.
var yamlCornerCases = []string{
	"", "null", "~", "# only a comment\n", "- a\n- b\n", "a scalar", "42", "{}",
	"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {x: '1'}\n",
	"i: 1\nneg: -7\nhex: 0x1F\noct: 0o17\nold_oct: 017\nbig: 9007199254740993\nhuge: 123456789012345678901234567890\nmax: 9007199254740992\nu: 18446744073709551615\n",
	"f: 1.5\ne: 1e3\nexp: 6.02e+23\nz: -0.0\nnan: .nan\ninf: .inf\nninf: -.inf\nsci: 1e21\n",
	"b1: yes\nb2: no\nb3: on\nb4: off\nb5: True\nb6: y\nb7: n\n",
	"t1: 2001-12-14t21:59:43.10-05:00\nt2: 2002-12-14\nt3: !!timestamp 2002-12-14\n",
	"bin: !!binary aGVsbG8=\nbad: !!binary //79\n",
	"1: a\n2.5: b\ntrue: c\n~: d\n",
	// Not here: "1: a\n'1': b\n", two keys sigs stringifies alike; which one
	// wins depends on Go's map order, in sigs as in the fallback to it.
	"[a, b]: c\n",
	"{a: 1}: c\n",
	"a: &x {b: [1, 2]}\nc: *x\nd: *x\n",
	"a: 1\na: 2\n",
	"merge: &m {a: 1}\nm2:\n  <<: *m\n  b: 2\n",
	"s: \"\\xff\"\n",
	"s: \"<tag> & 'quote' \\u2028\"\n",
	"key: [unclosed\n",
	"a:\n\t- b\n",
	"a: b: c\n",
	"*unknown\n",
	"!!int x: y\n",
	"k: !!float 1\n",
	"k: !!str 12\n",
	"k: !custom v\n",
	"x: [1, 2.0, -3, 4e2, '5', null, ~, yes]\n",
	"x:\n  - {a: 1, 2: 3}\n  - [[], {}]\n",
	"a: 1\n--- \nb: 2\n",
	"\ufeffa: 1\n",
	"a: 0.1\nb: 0.30000000000000004\nc: 1e-7\nd: 123456789.123456789\n",
	"a: -9007199254740993\nb: -9007199254740992\n",
	"a: 0b1010\nb: +12\nc: 1_000\n",
	"sexagesimal: 1:20\n",
}

// forEachYAMLDocument calls f with every document of the differential corpus: the
// corner cases, the fuzz corpus, and every YAML manifest of the real 4.3 and 4.4
// payloads (when present).
func forEachYAMLDocument(t *testing.T, f func(name string, data []byte)) {
	t.Helper()
	for _, in := range yamlCornerCases {
		f("corner case "+strconv.Quote(in), []byte(in))
	}
	for _, target := range []string{"FuzzDecodeFile", "FuzzLoadDir"} {
		dir := filepath.Join("testdata", "fuzz", target)
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			for i, in := range corpusBytes(t, data) {
				for j, d := range splitYAML(in) {
					f(e.Name()+"#"+strconv.Itoa(i)+"/"+strconv.Itoa(j), d.data)
					n++
				}
			}
		}
		if n == 0 {
			t.Fatalf("no documents in %s", dir)
		}
	}
	if testing.Short() {
		return
	}
	for _, name := range []string{"payload-release-4.3", "payload-release-4.4"} {
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
			for i, doc := range splitYAML(data) {
				f(path+"#"+strconv.Itoa(i), doc.data)
				n++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n < 300 {
			t.Fatalf("only %d documents in %s", n, root)
		}
	}
}

// yamlDecoder is decodeYAMLDocument's signature: compact JSON, the map form, the
// error.
type yamlDecoder func(data []byte) ([]byte, map[string]any, error)

// decoderMismatch says how dec's result differs from sigs.k8s.io/yaml's on data
// (JSON bytes, object, error text), or "" when it does not.
func decoderMismatch(dec yamlDecoder, data []byte) string {
	gotJ, gotObj, gotErr := dec(data)
	wantJ, wantObj, wantErr := decodeYAMLDocumentSigs(data)
	switch {
	case (gotErr == nil) != (wantErr == nil):
		return fmt.Sprintf("error %v, sigs.k8s.io/yaml %v", gotErr, wantErr)
	case gotErr != nil && gotErr.Error() != wantErr.Error():
		return fmt.Sprintf("error text %q, sigs.k8s.io/yaml %q", gotErr, wantErr)
	case !bytes.Equal(gotJ, wantJ):
		return fmt.Sprintf("JSON\n%s\nsigs.k8s.io/yaml\n%s", gotJ, wantJ)
	case !reflect.DeepEqual(gotObj, wantObj):
		return fmt.Sprintf("object %#v, sigs.k8s.io/yaml %#v", gotObj, wantObj)
	}
	return ""
}

// corpusBytes returns the []byte arguments of a "go test fuzz v1" corpus file.
func corpusBytes(t *testing.T, data []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for _, line := range strings.Split(string(data), "\n") {
		inner, ok := strings.CutPrefix(line, "[]byte(")
		if !ok {
			continue
		}
		s, err := strconv.Unquote(strings.TrimSuffix(inner, ")"))
		if err != nil {
			t.Fatalf("corpus line %q: %v", line, err)
		}
		out = append(out, []byte(s))
	}
	return out
}
