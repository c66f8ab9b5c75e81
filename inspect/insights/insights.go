package insights

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/internal/archive"
	"github.com/openshift-recover/recover/inspect/internal/decode"
	"github.com/openshift-recover/recover/inspect/logs"
)

// Source reads an Insights archive directory or .tar.gz.
type Source struct {
	Path string
	// Limits bound an archive; zero means archive.DefaultLimits.
	Limits archive.Limits
	// LogLimits bound the scan of one log; zero means logs.DefaultLimits.
	LogLimits logs.Limits
}

// New returns an Insights archive source for path.
func New(path string) *Source { return &Source{Path: path} }

func keep(name string) bool {
	return (strings.HasPrefix(name, "config/") || strings.Contains(name, "/config/")) && !wantLog(name) && path.Ext(name) != ".log"
}

// operatorCRDirs maps the archive's operator CR directories to their kinds.
var operatorCRDirs = []struct{ dir, kind string }{
	{"kubeapiserver", "KubeAPIServer"},
	{"kubecontrollermanager", "KubeControllerManager"},
	{"kubescheduler", "KubeScheduler"},
	{"etcd", "Etcd"},
}

// Collect reads the archive.
func (s *Source) Collect(ctx context.Context) (*inspect.Snapshot, error) {
	lc := logs.NewCollector(ctx, s.LogLimits)
	fsys, err := archive.Open(s.Path, archive.Options{Keep: keep, Stream: wantLog, OnStream: streamLog(lc, s.Path)}, s.Limits.OrDefault())
	if err != nil {
		return nil, err
	}
	defer fsys.Close()
	root, err := FindRoot(fsys)
	if err != nil {
		return nil, &inspect.InputError{Path: s.Path, Err: err}
	}
	display := s.Path
	if root != "." {
		display = path.Join(s.Path, root)
	}
	r := &reader{ctx: ctx, fsys: fsys, root: root, display: display, b: inspect.NewBuilder(inspect.SourceInsights, s.Path), budget: &decode.Budget{}}
	type step struct {
		res    inspect.Resource
		looked string
		files  []string
	}
	steps := []step{
		{inspect.ResClusterVersions, "config/version.json", r.single("config/version")},
		{inspect.ResClusterOperators, "config/clusteroperator/", r.files("config/clusteroperator")},
		{inspect.ResFeatureGates, "config/featuregate.json", r.single("config/featuregate")},
		{inspect.ResInfrastructures, "config/infrastructure.json", r.single("config/infrastructure")},
		{inspect.ResNodes, "config/node/", r.files("config/node")},
		{inspect.ResMachineConfigPools, "config/machineconfigpools/", r.files("config/machineconfigpools")},
		{inspect.ResMachineConfigs, "config/machineconfigs/", r.files("config/machineconfigs")},
	}
	for _, cr := range operatorCRDirs {
		p := path.Join("config/clusteroperator/operator.openshift.io", cr.dir, "cluster")
		steps = append(steps, step{resourceForKind(cr.kind), p + ".json", r.single(p)})
	}
	for _, st := range steps {
		n, err := r.read(st.files, st.res.Kind)
		if err != nil {
			return nil, err
		}
		r.record(st.res, st.files, n, st.looked)
	}
	for _, c := range inspect.StaticPodComponents {
		files := r.files(path.Join("config/pod", c.Namespace))
		n, err := r.read(files, "Pod")
		if err != nil {
			return nil, err
		}
		r.b.Record(inspect.ResourceStatus{Resource: inspect.ResPods.Key(), Namespace: c.Namespace, State: inspect.Absent, Count: n,
			Reason: "an Insights archive holds only pods with failing containers, not every static and installer pod",
			From:   r.from(files, path.Join("config/pod", c.Namespace)+"/")})
	}
	r.b.Record(inspect.ResourceStatus{Resource: inspect.ResDeployments.Key(), State: inspect.Absent,
		Reason: "an Insights archive does not gather Deployments (the CVO and operator Deployments)"})
	if err := r.wedges(); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(s.Path); err == nil && fi.IsDir() {
		if err := walkLogs(lc, fsys, s.Path); err != nil {
			return nil, err
		}
	}
	if err := r.addLogs(lc); err != nil {
		return nil, err
	}
	return r.b.Finish(), nil
}

func resourceForKind(kind string) inspect.Resource {
	for _, r := range inspect.ClusterResources {
		if r.Kind == kind {
			return r
		}
	}
	return inspect.Resource{Kind: kind}
}

// FindRoot returns the directory of fsys holding config/version[.json], the
// archive's root; an error says fsys is no Insights archive.
func FindRoot(fsys fs.FS) (string, error) {
	level := []string{"."}
	for depth := 0; depth < 5 && len(level) > 0; depth++ {
		var next []string
		for _, dir := range level {
			for _, v := range []string{"config/version", "config/version.json"} {
				if fi, err := fs.Stat(fsys, path.Join(dir, v)); err == nil && !fi.IsDir() {
					return dir, nil
				}
			}
			entries, err := fs.ReadDir(fsys, dir)
			if err != nil {
				continue
			}
			for _, e := range entries {
				if e.IsDir() && len(next) < 100 {
					next = append(next, path.Join(dir, e.Name()))
				}
			}
		}
		level = next
	}
	return "", fmt.Errorf("not an Insights archive: no config/version or config/version.json found")
}

type reader struct {
	ctx     context.Context
	fsys    fs.FS
	root    string
	display string
	b       *inspect.Builder
	// budget counts the resource bytes decoded against decode.MaxResourceBytes.
	budget *decode.Budget
}

func (r *reader) rel(p string) string { return path.Join(r.root, p) }

// single returns the file p, p.json, whichever exists (relative to the root).
func (r *reader) single(p string) []string {
	for _, c := range []string{p, p + ".json"} {
		if fi, err := fs.Stat(r.fsys, r.rel(c)); err == nil && !fi.IsDir() {
			return []string{c}
		}
	}
	return nil
}

// files returns the regular files directly in dir that hold JSON by name: a .json
// extension or none.
func (r *reader) files(dir string) []string {
	entries, err := fs.ReadDir(r.fsys, r.rel(dir))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		if ext := path.Ext(e.Name()); ext == ".json" || ext == "" {
			out = append(out, path.Join(dir, e.Name()))
		}
	}
	return out
}

func (r *reader) read(files []string, kind string) (int, error) {
	sub, err := fs.Sub(r.fsys, r.root)
	if err != nil {
		return 0, &inspect.InputError{Path: r.display, Err: err}
	}
	return decode.Files(r.ctx, r.b, sub, r.display, files, kind, r.budget)
}

func (r *reader) from(files []string, looked string) []string {
	if len(files) == 0 {
		return []string{path.Join(r.display, looked)}
	}
	if len(files) > 3 {
		return []string{path.Join(r.display, path.Dir(files[0])) + fmt.Sprintf("/* (%d files)", len(files))}
	}
	var out []string
	for _, f := range files {
		out = append(out, path.Join(r.display, f))
	}
	return out
}

func (r *reader) record(res inspect.Resource, files []string, n int, looked string) {
	rs := inspect.ResourceStatus{Resource: res.Key(), State: inspect.Collected, Count: n, From: r.from(files, looked)}
	if len(files) == 0 {
		rs.State, rs.Reason = inspect.Absent, "not in the Insights archive"
	}
	r.b.Record(rs)
}
