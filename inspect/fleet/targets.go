package fleet

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/insights"
	"github.com/openshift-recover/recover/inspect/mustgather"
)

// Target is one cluster to inspect.
type Target struct {
	// Name is how reports name the cluster: the entry's name in the directory,
	// or the kubeconfig context.
	Name string `json:"name"`
	// Kind is the source kind: must-gather, insights, or live (a context).
	Kind inspect.SourceKind `json:"kind"`
	// Path is the must-gather or archive (a directory, or a .tar/.tar.gz file).
	Path string `json:"path,omitempty"`
	// Context is the kubeconfig context of a live target.
	Context string `json:"context,omitempty"`
}

// MaxTargets bounds how many targets one run takes, so that a directory of
// millions of entries is refused with a message rather than listed into
// memory.
const MaxTargets = 100_000

// Discover lists the clusters in dir: each directory that holds a must-gather
// (cluster-scoped-resources/ or namespaces/ somewhere below) or an Insights
// archive (config/version[.json]), and each .tar, .tar.gz or .tgz file (an
// Insights archive when its name says "insights", else a must-gather). Hidden
// entries and other files are skipped; a directory that is neither is an
// error naming it, since a fleet run that silently leaves a cluster out would
// report it healthy by omission.
func Discover(dir string) ([]Target, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, &inspect.InputError{Path: dir, Err: err}
	}
	defer f.Close()
	var out []Target
	var bad []string
	for {
		entries, err := f.ReadDir(1024)
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") {
				continue
			}
			if len(out) >= MaxTargets {
				return nil, &inspect.InputError{Path: dir, Err: fmt.Errorf("more than %d entries; split the fleet into several directories", MaxTargets)}
			}
			p := filepath.Join(dir, name)
			info, err := os.Stat(p) // follows a symlink to a must-gather
			if err != nil {
				return nil, &inspect.InputError{Path: p, Err: err}
			}
			switch {
			case info.IsDir():
				kind, ok := dirKind(p)
				if !ok {
					bad = append(bad, name)
					continue
				}
				out = append(out, Target{Name: name, Kind: kind, Path: p})
			case isArchive(name):
				kind := inspect.SourceMustGather
				if strings.Contains(strings.ToLower(name), "insights") {
					kind = inspect.SourceInsights
				}
				out = append(out, Target{Name: trimArchive(name), Kind: kind, Path: p})
			}
		}
		if err != nil {
			break // io.EOF, or an error ReadDir reports again on the next call
		}
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		return nil, &inspect.InputError{Path: dir, Err: fmt.Errorf("%s: neither a must-gather nor an Insights archive; move them out of the directory", strings.Join(capList(bad, 5), ", "))}
	}
	if len(out) == 0 {
		return nil, &inspect.InputError{Path: dir, Err: fmt.Errorf("no must-gather or Insights archive in it")}
	}
	slices.SortFunc(out, func(a, b Target) int { return strings.Compare(a.Name, b.Name) })
	for i := 1; i < len(out); i++ {
		if out[i].Name == out[i-1].Name {
			return nil, &inspect.InputError{Path: dir, Err: fmt.Errorf("two entries are both named %s (a directory and an archive?); keep one", out[i].Name)}
		}
	}
	return out, nil
}

// dirKind tells a must-gather directory from an Insights archive directory.
func dirKind(p string) (inspect.SourceKind, bool) {
	fsys := os.DirFS(p)
	if _, err := insights.FindRoot(fsys); err == nil {
		return inspect.SourceInsights, true
	}
	if _, err := mustgather.FindRoot(fsys); err == nil {
		return inspect.SourceMustGather, true
	}
	return "", false
}

var archiveExts = []string{".tar.gz", ".tgz", ".tar"}

func isArchive(name string) bool {
	for _, ext := range archiveExts {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

func trimArchive(name string) string {
	for _, ext := range archiveExts {
		if n, ok := strings.CutSuffix(name, ext); ok {
			return n
		}
	}
	return name
}

// Contexts are live targets, one per kubeconfig context, in the order given;
// a name given twice is an error.
func Contexts(names []string) ([]Target, error) {
	seen := map[string]bool{}
	var out []Target
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if seen[n] {
			return nil, fmt.Errorf("context %s is named twice", n)
		}
		seen[n] = true
		out = append(out, Target{Name: n, Kind: inspect.SourceLive, Context: n})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no context named")
	}
	return out, nil
}

func capList(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(append([]string(nil), s[:n]...), fmt.Sprintf("and %d more", len(s)-n))
}
