package fleetgen

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Cluster is one generated cluster.
type Cluster struct {
	// Name is its entry's name in the fleet directory (without .tar.gz).
	Name string
	// Group names the clusters that must share a wedge signature: the example,
	// with the variation that changes the wedge ("pdb-blocks-drain/deck-b").
	Group string
	// Broken clusters cannot be inspected.
	Broken bool
	// Archive is true when it was written as a .tar.gz.
	Archive bool
}

// Fleet is what Generate wrote.
type Fleet struct {
	Dir      string
	Clusters []Cluster
}

// Examples are the example names Generate copies: every examples/<name>/ with a
// must-gather.
func Examples(repo string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(repo, "examples"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if fi, err := os.Stat(filepath.Join(repo, "examples", e.Name(), "must-gather")); err == nil && fi.IsDir() {
			out = append(out, e.Name())
		}
	}
	if len(out) == 0 {
		return nil, errors.New("fleetgen: no examples/*/must-gather found")
	}
	return out, nil
}

// Generate writes at least n clusters into dir (which must exist and be
// empty) from the examples of the repository at repo.
func Generate(repo, dir string, n int) (*Fleet, error) {
	examples, err := Examples(repo)
	if err != nil {
		return nil, err
	}
	f := &Fleet{Dir: dir}
	g := &gen{repo: repo, dir: dir}
	// Fixed shares of the fleet go to the variations; the rest are plain copies.
	pdbNames := []string{"deck-a", "deck-b"}
	perVariation := max(2, n/25)
	healthy := max(2, n/20)
	broken := 2
	renamed := max(2, n/25)
	plain := n - perVariation*len(pdbNames) - healthy - broken - renamed
	// Every example at least once, then round after round until the share is full.
	for i := 0; len(f.Clusters) < max(plain, len(examples)); i++ {
		for _, ex := range examples {
			if i > 0 && len(f.Clusters) >= plain {
				break
			}
			c := Cluster{Name: fmt.Sprintf("%s-%03d", ex, i), Group: ex, Archive: i%7 == 3}
			if err := g.write(c, ex, nil); err != nil {
				return nil, err
			}
			f.Clusters = append(f.Clusters, c)
		}
	}
	for _, name := range pdbNames {
		for i := range perVariation {
			c := Cluster{Name: fmt.Sprintf("pdb-blocks-drain-%s-%03d", name, i), Group: "pdb-blocks-drain/" + name}
			if err := g.write(c, "pdb-blocks-drain", renamePDB("deck", name)); err != nil {
				return nil, err
			}
			f.Clusters = append(f.Clusters, c)
		}
	}
	for i := range renamed {
		c := Cluster{Name: fmt.Sprintf("static-pod-stuck-renamed-%03d", i), Group: "static-pod-stuck"}
		if err := g.write(c, "static-pod-stuck", renameNode("master-1", fmt.Sprintf("ctrl-%d", i))); err != nil {
			return nil, err
		}
		f.Clusters = append(f.Clusters, c)
	}
	for i := range healthy {
		c := Cluster{Name: fmt.Sprintf("healthy-%03d", i), Group: "healthy"}
		if err := g.write(c, "release-not-accepted", heal); err != nil {
			return nil, err
		}
		f.Clusters = append(f.Clusters, c)
	}
	for i := range broken {
		c := Cluster{Name: fmt.Sprintf("broken-%03d", i), Broken: true}
		if err := g.write(c, "paused-pool", breakClusterVersion); err != nil {
			return nil, err
		}
		f.Clusters = append(f.Clusters, c)
	}
	sort.Slice(f.Clusters, func(i, j int) bool { return f.Clusters[i].Name < f.Clusters[j].Name })
	return f, nil
}

type gen struct{ repo, dir string }

// edit rewrites one file of a copy: it returns the file's new relative path
// and content, or keep=false to leave it as it is.
type edit func(rel string, data []byte) (newRel string, out []byte, keep bool)

// write copies the example's must-gather as cluster c, applying ed.
func (g *gen) write(c Cluster, example string, ed edit) error {
	src := filepath.Join(g.repo, "examples", example, "must-gather")
	dst := filepath.Join(g.dir, c.Name)
	if c.Archive {
		dst = filepath.Join(g.dir, ".tmp-"+c.Name)
	}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if ed != nil {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if newRel, out, changed := ed(rel, data); changed {
				target := filepath.Join(dst, newRel)
				if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
					return err
				}
				// A new file, never a write through a hard link into the example.
				return os.WriteFile(target, out, 0o644)
			}
		}
		return linkOrCopy(p, filepath.Join(dst, rel))
	})
	if err != nil || !c.Archive {
		return err
	}
	defer os.RemoveAll(dst)
	return tarGz(dst, filepath.Join(g.dir, c.Name+".tar.gz"))
}

func linkOrCopy(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}

// renamePDB renames the budget from to to in the budgets' file only: the same
// pods, another PodDisruptionBudget.
func renamePDB(from, to string) edit {
	re := regexp.MustCompile(`(?m)^(\s+name: )` + regexp.QuoteMeta(from) + `$`)
	return func(rel string, data []byte) (string, []byte, bool) {
		if !strings.HasSuffix(rel, filepath.Join("policy", "poddisruptionbudgets.yaml")) || !re.Match(data) {
			return rel, nil, false
		}
		return rel, re.ReplaceAll(data, []byte("${1}"+to)), true
	}
}

// renameNode renames a node everywhere: in every file and file name.
func renameNode(from, to string) edit {
	re := regexp.MustCompile(`\b` + regexp.QuoteMeta(from) + `\b`)
	return func(rel string, data []byte) (string, []byte, bool) {
		newRel := re.ReplaceAllString(rel, to)
		if newRel == rel && !re.Match(data) {
			return rel, nil, false
		}
		return newRel, re.ReplaceAll(data, []byte(to)), true
	}
}

var (
	desiredUpdate   = regexp.MustCompile(`(?m)^  desiredUpdate:\n(    .*\n)+`)
	releaseAccepted = regexp.MustCompile(`(?m)(- type: ReleaseAccepted\n\s+status: )'False'`)
)

// heal withdraws the release-not-accepted example's target and accepts the
// release: a cluster nothing holds.
func heal(rel string, data []byte) (string, []byte, bool) {
	if !strings.HasSuffix(rel, filepath.Join("clusterversions", "version.yaml")) {
		return rel, nil, false
	}
	out := desiredUpdate.ReplaceAll(data, nil)
	out = releaseAccepted.ReplaceAll(out, []byte("${1}'True'"))
	return rel, out, true
}

// breakClusterVersion makes ClusterVersion unreadable.
func breakClusterVersion(rel string, data []byte) (string, []byte, bool) {
	if !strings.HasSuffix(rel, filepath.Join("clusterversions", "version.yaml")) {
		return rel, nil, false
	}
	return rel, append([]byte("spec: [unterminated\n"), data...), true
}

// tarGz writes the directory dir as a .tar.gz at out, entries relative to dir.
func tarGz(dir, out string) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		h, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		h.Name = filepath.ToSlash(rel)
		if d.IsDir() {
			h.Name += "/"
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		src, err := os.Open(p)
		if err != nil {
			return err
		}
		defer src.Close()
		_, err = io.Copy(tw, src)
		return err
	})
	if err == nil {
		err = tw.Close()
	}
	if err == nil {
		err = zw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
