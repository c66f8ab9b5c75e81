package insights

import (
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/internal/decode"
	"github.com/openshift-recover/recover/inspect/logs"
)

// The logs an Insights archive holds (insights-operator docs/gathered-data.md):
//
//	config/pod/<ns>/logs/<pod>/<container>_current.log       ClusterOperatorPodsAndEvents: the pods of
//	config/pod/<ns>/logs/<pod>/<container>_previous.log      degraded operators' namespaces (4.2.10+), tailed
//	conditional/namespaces/<ns>/pods/<pod>/containers/<container>/logs/last-<n>-lines.log   conditional gathering (4.9+)
//
// Few archives have any (the real 4.4 and 4.7 samples have none): a degraded
// machine-config or kube-apiserver operator brings its namespace's. Lines carry no
// RFC 3339 prefix; their year comes from the archive's time.

// parseInsightsLog returns the log a path names and the directory above it.
func parseInsightsLog(name string) (inspect.LogFile, string, bool) {
	parts := strings.Split(name, "/")
	for i := range parts {
		p := parts[i:]
		switch {
		case len(p) == 6 && p[0] == "config" && p[1] == "pod" && p[3] == "logs":
			container, kind, ok := strings.Cut(strings.TrimSuffix(p[5], ".log"), "_")
			if !ok || !strings.HasSuffix(p[5], ".log") || kind != "current" && kind != "previous" {
				return inspect.LogFile{}, "", false
			}
			return inspect.LogFile{Namespace: p[2], Pod: p[4], Container: container, Previous: kind == "previous"}, path.Clean(strings.Join(parts[:i], "/")), true
		case len(p) == 9 && p[0] == "conditional" && p[1] == "namespaces" && p[3] == "pods" && p[5] == "containers" && p[7] == "logs" && strings.HasSuffix(p[8], ".log"):
			return inspect.LogFile{Namespace: p[2], Pod: p[4], Container: p[6]}, path.Clean(strings.Join(parts[:i], "/")), true
		}
	}
	return inspect.LogFile{}, "", false
}

// wantLog reports whether an archive path is a log recover reads.
func wantLog(name string) bool {
	f, _, ok := parseInsightsLog(name)
	return ok && logs.FamilyOf(f.Namespace, f.Pod, f.Container) != ""
}

func logRecord(name, shown string) inspect.LogFile {
	f, _, _ := parseInsightsLog(name)
	f.Path, f.Family = shown, logs.FamilyOf(f.Namespace, f.Pod, f.Container)
	if strings.HasPrefix(path.Base(name), "last-") {
		f.Partial = "the Insights operator gathered its last lines only (" + strings.TrimSuffix(path.Base(name), ".log") + ")"
	}
	return f
}

// streamLog scans one archive entry.
func streamLog(c *logs.Collector, display string) func(name string, r io.Reader) error {
	return func(name string, r io.Reader) error {
		_, prefix, _ := parseInsightsLog(name)
		return c.Scan(prefix, r, logRecord(name, path.Join(display, name)))
	}
}

// walkLogs scans a directory archive's logs.
func walkLogs(c *logs.Collector, fsys fs.FS, display string) error {
	return fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !wantLog(name) {
			return nil
		}
		_, prefix, _ := parseInsightsLog(name)
		rec := logRecord(name, path.Join(display, name))
		fh, err := fsys.Open(name)
		if err != nil {
			c.Add(prefix, rec, err, nil)
			return nil
		}
		defer fh.Close()
		return c.Scan(prefix, fh, rec)
	})
}

// addLogs hands the logs under the root to the builder and records each
// namespace's provenance.
func (r *reader) addLogs(c *logs.Collector) error {
	return logs.Offline{
		Nodes: r.podNodes,
		Absent: func(ns string) (string, []string) {
			return "the Insights archive holds no log of " + ns + " recover reads (it gathers the logs of degraded operators' namespaces only)",
				[]string{path.Join(r.display, "config/pod", ns, "logs") + "/"}
		},
		From: func(paths []string) []string {
			if len(paths) > 3 {
				return []string{path.Dir(path.Dir(paths[0])) + "/* (" + strconv.Itoa(len(paths)) + " files)"}
			}
			return paths
		},
	}.Record(r.b, c.Results(path.Clean(r.root)))
}

// podNodes maps the pods of a namespace the archive holds to their nodes.
func (r *reader) podNodes(ns string) (map[string]string, error) {
	sub, err := fs.Sub(r.fsys, r.root)
	if err != nil {
		return nil, err
	}
	return decode.PodNodes(sub, r.display, r.files(path.Join("config/pod", ns)), r.budget)
}
