package plan_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/internal/testing/shareddata"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/payload"
	"github.com/openshift-recover/recover/plan/planfile"
)

// compactDigest is the digest rule spelled the long way, as the oracle of the
// fast path: json.Compact, then sha256.
func compactDigest(object []byte) (string, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, object); err != nil {
		return "", fmt.Errorf("manifest object is not valid JSON: %w", err)
	}
	sum := sha256.Sum256(buf.Bytes())
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// compareManifestDigest fails when plan.ManifestDigest and the rule spelled the
// long way (compactDigest: json.Compact, then sha256) disagree on the digest or
// on whether, and in which words, the object is refused. An object the
// fast path took while json.Compact would change or refuse it gives another
// digest or no error, so this covers the fast path's soundness too.
func compareManifestDigest(t *testing.T, name string, object []byte) {
	t.Helper()
	got, gotErr := planfile.ManifestDigest(object)
	want, wantErr := compactDigest(object)
	if got != want || (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
		t.Fatalf("%s: fast path %s %v, json.Compact %s %v", name, got, gotErr, want, wantErr)
	}
}

var compactJSONCases = []string{
	``, ` `, `{}`, `[]`, `""`, `0`, `-0`, `1`, `-1.5e+10`, `1E-2`, `true`, `false`, `null`,
	`{"a":1}`, `{"a":1,"b":[1,2,{"c":null}],"d":"x"}`, `[[[[]]]]`, `{"":{}}`,
	`{"a":1} `, ` {"a":1}`, `{"a": 1}`, "{\"a\":1}\n", `{"a":1}{}`, `{"a":1},`, `[1,]`, `{"a":1,}`, `{,}`, `[,1]`,
	`{"a"}`, `{"a":}`, `{a:1}`, `{'a':1}`, `{"a":1`, `[1`, `"abc`, `"a\"`, `{"a":1]`, `[1}`,
	`01`, `-`, `-01`, `1.`, `.5`, `1e`, `1e+`, `+1`, `0x1`, `1.5.5`, `--1`, `1-`, `Infinity`, `NaN`,
	`tru`, `truee`, `nul`, `nulll`, `True`, `[true,false,null]`, `[truefalse]`,
	`"\u00e9\u2028\ud83d\ude00"`, `"\u00G0"`, `"\u12"`, `"\x41"`, `"\'"`, `"\/\b\f\n\r\t\\\""`, "\"tab\there\"", "\"nl\nhere\"",
	"\"\x7f \xff\xfe invalid utf-8 \xc3\"", "\"\x00\"", "\"\x1f\"", `"<>&"`, "\"\u2028\u2029\"",
	strings.Repeat("[", 1000) + strings.Repeat("]", 1000),
	strings.Repeat("[", 1001) + strings.Repeat("]", 1001),
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat(`{"a":`, 1001) + "1" + strings.Repeat("}", 1001),
}

// TestManifestDigestMatchesApply is the differential test of ManifestDigest's
// fast path against apply's rule: a table of valid, invalid and non-compact JSON,
// every manifest of the example payloads and the real ones, and each of those
// indented. Every payload manifest takes the fast path.
func TestManifestDigestMatchesApply(t *testing.T) {
	for _, c := range compactJSONCases {
		compareManifestDigest(t, "case "+c, []byte(c))
	}
	dirs, err := filepath.Glob(filepath.Join("..", "examples", "*", "releases", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("example releases: %v %v", dirs, err)
	}
	type source struct{ dir, version string }
	var sources []source
	for _, d := range dirs {
		sources = append(sources, source{d, ""})
	}
	if root := shareddata.RealDataRoot("payload-release-4.4"); !testing.Short() && root != "" {
		sources = append(sources, source{filepath.Join(root, "payload-release-4.4"), "4.4.4"}, source{filepath.Join(root, "payload-release-4.3"), "4.3.0"})
	}
	n, fast := 0, 0
	for _, s := range sources {
		p, err := payload.LoadDir(s.dir, payload.Options{Version: s.version})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range p.Manifests {
			compareManifestDigest(t, m.Dir+"/"+m.File, m.JSON)
			var indented bytes.Buffer
			if err := json.Indent(&indented, m.JSON, "", "  "); err != nil {
				t.Fatal(err)
			}
			compareManifestDigest(t, m.Dir+"/"+m.File+" indented", indented.Bytes())
			n++
			if plan.IsCompactJSON(m.JSON) {
				fast++
			}
		}
	}
	if fast != n || n < 100 {
		t.Fatalf("%d of %d manifests take the fast path", fast, n)
	}
}

// FuzzManifestDigest: whatever the bytes, ManifestDigest agrees with apply's
// rule.
func FuzzManifestDigest(f *testing.F) {
	for _, c := range compactJSONCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		compareManifestDigest(t, "input", data)
	})
}
