package payload

import (
	"testing"

	"github.com/openshift-recover/recover/internal/dirdigest"
)

// TestLoadDirDigestIsTheDirectorysDigest: the digest a load computes from its own reads is
// dirdigest.Sum's, with and without the decoded-payload cache, cold and warm.
func TestLoadDirDigestIsTheDirectorysDigest(t *testing.T) {
	for _, c := range payloadCases(t) {
		want, err := dirdigest.Sum(c.dir)
		if err != nil {
			t.Fatal(err)
		}
		if p, err := LoadDir(c.dir, c.o); err != nil || p.DirDigest != "" {
			t.Fatalf("%s: DirDigest %q without asking (%v)", c.dir, p.DirDigest, err)
		}
		cache := t.TempDir()
		for _, o := range []Options{{DirDigest: true}, {CacheDir: cache}, {CacheDir: cache, DirDigest: true}} {
			o.Inclusion, o.ReleaseImage, o.Version = c.o.Inclusion, c.o.ReleaseImage, c.o.Version
			p, err := LoadDir(c.dir, o)
			if err != nil {
				t.Fatal(err)
			}
			if p.DirDigest != want {
				t.Fatalf("%s with %+v: DirDigest %s, dirdigest.Sum %s", c.dir, o, p.DirDigest, want)
			}
		}
	}
}
