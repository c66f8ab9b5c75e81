package payload

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestDecoderMatchesSigsYAML is the differential test of the fast YAML path: for
// every document of every real payload manifest, every fuzz corpus input and a
// table of YAML 1.1 corner cases, decodeYAMLDocument must give the same JSON bytes,
// the same object and the same error (text included) as sigs.k8s.io/yaml's
// YAMLToJSON followed by encoding/json.
func TestDecoderMatchesSigsYAML(t *testing.T) {
	t.Run("corner cases", func(t *testing.T) {
		for _, in := range []string{
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
		} {
			compareDecoders(t, "corner case "+strconv.Quote(in), []byte(in))
		}
	})
	t.Run("fuzz corpus", func(t *testing.T) {
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
						compareDecoders(t, e.Name()+"#"+strconv.Itoa(i)+"/"+strconv.Itoa(j), d.data)
						n++
					}
				}
			}
			if n == 0 {
				t.Fatalf("no documents in %s", dir)
			}
		}
	})
	for _, name := range []string{"payload-release-4.3", "payload-release-4.4"} {
		t.Run(name, func(t *testing.T) {
			root := realPayload(t, name)
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
					compareDecoders(t, path+"#"+strconv.Itoa(i), doc.data)
					n++
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if n < 300 {
				t.Fatalf("only %d documents compared in %s", n, root)
			}
		})
	}
}

// compareDecoders fails the test when the fast and the reference decoder disagree.
func compareDecoders(t *testing.T, name string, data []byte) {
	t.Helper()
	gotJ, gotObj, gotErr := decodeYAMLDocument(data)
	wantJ, wantObj, wantErr := decodeYAMLDocumentSigs(data)
	if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
		t.Errorf("%s: error %v, sigs.k8s.io/yaml %v", name, gotErr, wantErr)
		return
	}
	if !bytes.Equal(gotJ, wantJ) {
		t.Errorf("%s: JSON\n%s\nsigs.k8s.io/yaml\n%s", name, gotJ, wantJ)
	}
	if !reflect.DeepEqual(gotObj, wantObj) {
		t.Errorf("%s: object %#v, sigs.k8s.io/yaml %#v", name, gotObj, wantObj)
	}
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
