package mustgather

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/internal/archive"
	"github.com/openshift-recover/recover/inspect/internal/decode"
	"github.com/openshift-recover/recover/inspect/logs"
	"github.com/openshift-recover/recover/internal/bounded"
	"github.com/openshift-recover/recover/internal/openshift"
)

// Source reads a must-gather directory or archive.
type Source struct {
	// Path is the must-gather directory, or a .tar/.tar.gz file.
	Path string
	// Limits bound an archive; zero means archive.DefaultLimits.
	Limits archive.Limits
	// LogLimits bound the scan of one log; zero means logs.DefaultLimits.
	LogLimits logs.Limits
}

// New returns a must-gather source for path.
func New(path string) *Source { return &Source{Path: path} }

// Collect reads the must-gather.
func (s *Source) Collect(ctx context.Context) (*inspect.Snapshot, error) {
	lc := logs.NewCollector(ctx, s.LogLimits)
	fsys, err := archive.Open(s.Path, archive.Options{Keep: keep, Stream: wantLog, OnStream: streamLog(lc, s.Path)}, s.Limits.OrDefault())
	if err != nil {
		return nil, err
	}
	defer fsys.Close()
	fromArchive := true
	if fi, err := os.Stat(s.Path); err == nil && fi.IsDir() {
		fromArchive = false
	}
	root, err := FindRoot(fsys)
	if err != nil {
		return nil, &inspect.InputError{Path: s.Path, Err: err}
	}
	sub, err := fs.Sub(fsys, root)
	if err != nil {
		return nil, &inspect.InputError{Path: s.Path, Err: err}
	}
	r := &reader{ctx: ctx, fsys: sub, display: displayRoot(s.Path, root), b: inspect.NewBuilder(inspect.SourceMustGather, s.Path), budget: &decode.Budget{}}
	if t, from := r.timestamp(fsys, root); !t.IsZero() {
		r.b.SetCollectedAt(t, from)
		r.at = t
	}
	for _, res := range inspect.ClusterResources {
		if err := r.cluster(res); err != nil {
			return nil, err
		}
	}
	if err := r.wedgesFirst(); err != nil {
		return nil, err
	}
	for _, c := range inspect.StaticPodComponents {
		if err := r.pods(c.Namespace); err != nil {
			return nil, err
		}
	}
	if err := r.deployments(); err != nil {
		return nil, err
	}
	if err := r.wedgesThen(); err != nil {
		return nil, err
	}
	if !fromArchive {
		// A directory's logs are read from its root, an archive's were read as
		// they streamed by, wherever they sat.
		root = "."
		if err := walkLogs(lc, sub, r.display); err != nil {
			return nil, err
		}
	}
	if err := r.addLogs(lc, root); err != nil {
		return nil, err
	}
	return r.b.Finish(), nil
}

func displayRoot(p, root string) string {
	if root == "." {
		return p
	}
	return path.Join(p, root)
}

// keep selects the archive files a must-gather source reads.
func keep(name string) bool {
	if path.Base(name) == "timestamp" {
		return true
	}
	parts := strings.Split(name, "/")
	for i, p := range parts {
		switch p {
		case "cluster-scoped-resources":
			return keepCluster(parts[i+1:])
		case "namespaces":
			return keepNamespaced(parts[i+1:])
		}
	}
	return false
}

func keepCluster(rest []string) bool {
	if len(rest) < 2 {
		return false
	}
	for _, r := range append(append([]inspect.Resource(nil), inspect.ClusterResources...), inspect.WedgeClusterResources...) {
		if rest[0] != r.GroupDir() {
			continue
		}
		if (len(rest) == 2 && trimExt(rest[1]) == r.Resource) || (len(rest) == 3 && rest[1] == r.Resource) {
			return isData(rest[len(rest)-1])
		}
	}
	return false
}

func keepNamespaced(rest []string) bool {
	if len(rest) < 3 || !isData(rest[len(rest)-1]) {
		return false
	}
	ns := rest[0]
	if keepWedge(rest) {
		return true
	}
	return strings.HasPrefix(ns, "openshift-") && rest[1] == "apps" && (trimExt(rest[2]) == "deployments" || rest[2] == "deployments")
}

func isData(name string) bool {
	switch path.Ext(name) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

func trimExt(name string) string { return strings.TrimSuffix(name, path.Ext(name)) }

// FindRoot returns the must-gather root inside fsys: the shallowest directory that
// holds cluster-scoped-resources/ or namespaces/. Several at the same depth are
// resolved in favour of the one with a ClusterVersion; otherwise it is an error.
func FindRoot(fsys fs.FS) (string, error) {
	level := []string{"."}
	for depth := 0; depth < 6 && len(level) > 0; depth++ {
		var found, next []string
		for _, dir := range level {
			entries, err := fs.ReadDir(fsys, dir)
			if err != nil {
				continue
			}
			isRoot := false
			for _, e := range entries {
				if e.IsDir() && (e.Name() == "cluster-scoped-resources" || e.Name() == "namespaces") {
					isRoot = true
				}
			}
			if isRoot {
				found = append(found, dir)
				continue
			}
			for _, e := range entries {
				if e.IsDir() && len(next) < 200 {
					next = append(next, path.Join(dir, e.Name()))
				}
			}
		}
		switch len(found) {
		case 0:
			level = next
			continue
		case 1:
			return found[0], nil
		}
		var withCV []string
		for _, f := range found {
			if _, err := fs.Stat(fsys, path.Join(f, "cluster-scoped-resources", "config.openshift.io", "clusterversions")); err == nil {
				withCV = append(withCV, f)
			}
		}
		if len(withCV) == 1 {
			return withCV[0], nil
		}
		sort.Strings(found)
		return "", fmt.Errorf("it holds several must-gathers (%s); point --must-gather at one of them", strings.Join(found, ", "))
	}
	return "", fmt.Errorf("not a must-gather: no cluster-scoped-resources/ or namespaces/ directory found (collect one with 'oc adm must-gather')")
}

type reader struct {
	ctx     context.Context
	fsys    fs.FS
	display string
	b       *inspect.Builder
	at      time.Time
	// budget counts the resource bytes decoded against decode.MaxResourceBytes.
	budget *decode.Budget
}

// timestamp reads the must-gather's timestamp file (the root's or a parent's).
func (r *reader) timestamp(fsys fs.FS, root string) (time.Time, string) {
	for dir := root; ; dir = path.Dir(dir) {
		p := path.Join(dir, "timestamp")
		if data, err := bounded.ReadFS(fsys, p, 1<<10); err == nil {
			if t, ok := parseTimestamp(string(data)); ok {
				return t, "timestamp file " + p
			}
		}
		if dir == "." || dir == "/" {
			return time.Time{}, ""
		}
	}
}

// parseTimestamp parses the last time in a must-gather timestamp file, whose lines
// look like "2020-05-24 17:02:00.123456789 +0000 UTC m=+0.1".
func parseTimestamp(s string) (time.Time, bool) {
	var last time.Time
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 {
			if t, err := time.Parse(time.RFC3339, strings.TrimSpace(line)); err == nil {
				last = t
			}
			continue
		}
		if t, err := time.Parse("2006-01-02 15:04:05.999999999 -0700 MST", strings.Join(f[:4], " ")); err == nil {
			last = t
		}
	}
	return last, !last.IsZero()
}

// readFiles decodes the given files (relative to the root) into the builder and
// returns how many objects of the expected kind were read.
func (r *reader) readFiles(files []string, kind string) (int, error) {
	return decode.Files(r.ctx, r.b, r.fsys, r.display, files, kind, r.budget)
}

// dataFiles lists the data files of a directory, sorted ("" when it does not exist).
func (r *reader) dataFiles(dir string) []string {
	entries, err := fs.ReadDir(r.fsys, dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && isData(e.Name()) {
			out = append(out, path.Join(dir, e.Name()))
		}
	}
	return out
}

// existing returns the paths among candidates that exist as files.
func (r *reader) existing(candidates ...string) []string {
	var out []string
	for _, c := range candidates {
		if fi, err := fs.Stat(r.fsys, c); err == nil && !fi.IsDir() {
			out = append(out, c)
		}
	}
	return out
}

func listFiles(base string) []string {
	return []string{base + ".yaml", base + ".yml", base + ".json"}
}

// record stores the provenance of one resource.
func (r *reader) record(res inspect.Resource, ns string, files, looked []string, n int) {
	r.recordWith(res, ns, files, looked, n, "")
}

// recordWith stores the provenance of one resource, with a caveat for when it
// was collected (what it may miss).
func (r *reader) recordWith(res inspect.Resource, ns string, files, looked []string, n int, caveat string) {
	rs := inspect.ResourceStatus{Resource: res.Key(), Namespace: ns, State: inspect.Collected, Count: n, CollectedAt: r.at, Reason: caveat}
	if len(files) == 0 {
		rs.State = inspect.Absent
		rs.Reason = "not in the must-gather"
		for _, l := range looked {
			rs.From = append(rs.From, path.Join(r.display, l))
		}
	} else {
		rs.From = summarizeFiles(r.display, files)
	}
	r.b.Record(rs)
}

// summarizeFiles lists files, folding many files of one directory into "dir/*".
func summarizeFiles(display string, files []string) []string {
	byDir := map[string][]string{}
	var dirs []string
	for _, f := range files {
		d := path.Dir(f)
		if _, ok := byDir[d]; !ok {
			dirs = append(dirs, d)
		}
		byDir[d] = append(byDir[d], f)
	}
	var out []string
	for _, d := range dirs {
		fs := byDir[d]
		if len(fs) > 3 {
			out = append(out, path.Join(display, d)+fmt.Sprintf("/* (%d files)", len(fs)))
			continue
		}
		for _, f := range fs {
			out = append(out, path.Join(display, f))
		}
	}
	return out
}

func (r *reader) cluster(res inspect.Resource) error {
	base := path.Join("cluster-scoped-resources", res.GroupDir(), res.Resource)
	files := append(r.existing(listFiles(base)...), r.dataFiles(base)...)
	n, err := r.readFiles(files, res.Kind)
	if err != nil {
		return err
	}
	r.record(res, "", files, []string{base + ".yaml", base + "/"}, n)
	return nil
}

func (r *reader) pods(ns string) error {
	nsDir := path.Join("namespaces", ns)
	files := r.podFiles(ns)
	n, err := r.readFiles(files, "Pod")
	if err != nil {
		return err
	}
	r.record(inspect.ResPods, ns, files, []string{path.Join(nsDir, "core", "pods.yaml"), path.Join(nsDir, "pods") + "/"}, n)
	return nil
}

// deployments reads the Deployments of every openshift-* namespace. The CVO's
// namespace gets its own record, so a must-gather without it does not read as "no
// CVO".
func (r *reader) deployments() error {
	entries, _ := fs.ReadDir(r.fsys, "namespaces")
	var all []string
	cvo, total := 0, 0
	var cvoFiles []string
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "openshift-") {
			continue
		}
		base := path.Join("namespaces", e.Name(), "apps", "deployments")
		files := append(r.existing(listFiles(base)...), r.dataFiles(base)...)
		n, err := r.readFiles(files, "Deployment")
		if err != nil {
			return err
		}
		if e.Name() == openshift.CVONamespace {
			cvo, cvoFiles = n, files
		}
		total += n
		all = append(all, files...)
	}
	r.record(inspect.ResDeployments, openshift.CVONamespace, cvoFiles,
		[]string{path.Join("namespaces", openshift.CVONamespace, "apps", "deployments.yaml")}, cvo)
	r.record(inspect.ResDeployments, "", all, []string{"namespaces/openshift-*/apps/deployments.yaml"}, total)
	return nil
}
