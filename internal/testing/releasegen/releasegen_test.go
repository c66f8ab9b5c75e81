package releasegen

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/openshift-recover/recover/internal/testing/golden"
)

// exampleDir is where the example payloads live, relative to this package.
const exampleDir = "../../../examples/reconciled-4.3-to-4.4/releases"

// TestCheckedIn proves the checked-in payload trees are exactly what the generator
// writes, so 4.4.3 and 4.4.4 stay consistent; -update rewrites them (Write, which
// also drops files the generator no longer writes).
func TestCheckedIn(t *testing.T) {
	for _, v := range []string{"4.4.3", "4.4.4"} {
		dir := filepath.Join(exampleDir, v)
		if golden.Update() {
			if err := Write(dir, Releases[v]); err != nil {
				t.Fatal(err)
			}
		}
		want, err := Files(Releases[v])
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]byte{}
		err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(dir, path)
			data, err := os.ReadFile(path)
			got[filepath.ToSlash(rel)] = data
			return err
		})
		if err != nil {
			t.Fatalf("%s: %v (%s rewrites the payloads)", dir, err, golden.RerunHint(t))
		}
		for _, name := range sortedKeys(want) {
			if _, ok := got[name]; !ok {
				t.Errorf("%s/%s is missing; %s writes it", dir, name, golden.RerunHint(t))
				continue
			}
			t.Run(v+"/"+name, func(t *testing.T) {
				golden.Assert(t, filepath.Join(dir, name), want[name])
			})
		}
		var extra []string
		for name := range got {
			if _, ok := want[name]; !ok {
				extra = append(extra, name)
			}
		}
		sort.Strings(extra)
		for _, name := range extra {
			t.Errorf("%s/%s is not generated; remove it or run %s", dir, name, golden.RerunHint(t))
		}
	}
}

// TestReleasesDiffer proves the two releases are distinct where it matters: every
// component image and the version strings differ, the layout does not.
func TestReleasesDiffer(t *testing.T) {
	a, err := Files(Releases["4.4.3"])
	if err != nil {
		t.Fatal(err)
	}
	b, err := Files(Releases["4.4.4"])
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) {
		t.Fatalf("4.4.3 has %d files, 4.4.4 %d", len(a), len(b))
	}
	for name := range a {
		if _, ok := b[name]; !ok {
			t.Errorf("%s only in 4.4.3", name)
		}
	}
	for _, n := range imageNames {
		if Releases["4.4.3"].ImageOf(n) == Releases["4.4.4"].ImageOf(n) {
			t.Errorf("image %s is the same in both releases", n)
		}
	}
	if !bytes.Contains(b["release-manifests/0000_20_kube-apiserver-operator_06_deployment.yaml"], []byte("value: 4.4.4")) {
		t.Error("4.4.4 kube-apiserver-operator Deployment lacks RELEASE_VERSION 4.4.4")
	}
}
