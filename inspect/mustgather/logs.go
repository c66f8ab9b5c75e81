package mustgather

import (
	"io"
	"io/fs"
	"path"
	"runtime"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/internal/decode"
	"github.com/openshift-recover/recover/inspect/logs"
)

// The logs of a must-gather (oc adm inspect, pkg/cli/admin/inspect/pod.go):
//
//	namespaces/<ns>/pods/<pod>/<container>/<container>/logs/current.log
//	namespaces/<ns>/pods/<pod>/<container>/<container>/logs/previous.log
//
// (current.insecure.log and previous.insecure.log when inspect fell back to an
// insecure connection to the kubelet), each line prefixed with the RFC 3339 time
// inspect asks for. recover reads those of the CVO, the machine-config daemons
// and controller, the static-pod installers and the machine approver
// (logs.FamilyOf), line by line: from a directory as files, from an archive as
// the entries stream by, never whole. A pod's node comes from its pod object in
// the same namespace.

// logName is a log file's identity from its path below the root:
// namespaces/<ns>/pods/<pod>/<container>/<container>/logs/<file>.
type logName struct {
	ns, pod, container string
	previous           bool
}

// parseLogPath returns the log a path names (relative to the root or not; the
// part from "namespaces/" on counts) and the directory above it, ok false for
// anything else.
func parseLogPath(name string) (logName, string, bool) {
	parts := strings.Split(name, "/")
	i := len(parts) - 8
	if i < 0 {
		return logName{}, "", false
	}
	p := parts[i:]
	if p[0] != "namespaces" || p[2] != "pods" || p[4] != p[5] || p[6] != "logs" {
		return logName{}, "", false
	}
	var prev bool
	switch p[7] {
	case "current.log", "current.insecure.log":
	case "previous.log", "previous.insecure.log":
		prev = true
	default:
		return logName{}, "", false
	}
	return logName{ns: p[1], pod: p[3], container: p[4], previous: prev}, path.Clean(strings.Join(parts[:i], "/")), true
}

// wantLog reports whether a path is a log recover reads.
func wantLog(name string) bool {
	l, _, ok := parseLogPath(name)
	return ok && logs.FamilyOf(l.ns, l.pod, l.container) != ""
}

// logFile is the record of the log at a path, shown as shown.
func logFile(l logName, shown string) inspect.LogFile {
	return inspect.LogFile{Path: shown, Namespace: l.ns, Pod: l.pod, Container: l.container, Previous: l.previous,
		Family: logs.FamilyOf(l.ns, l.pod, l.container)}
}

// streamLog scans one archive entry.
func streamLog(c *logs.Collector, display string) func(name string, r io.Reader) error {
	return func(name string, r io.Reader) error {
		l, prefix, _ := parseLogPath(name)
		return c.Scan(prefix, r, logFile(l, path.Join(display, name)))
	}
}

// walkLogs scans a directory must-gather's logs, GOMAXPROCS files at a time.
func walkLogs(c *logs.Collector, fsys fs.FS, display string) error {
	var names []string
	for _, ns := range logs.Namespaces() {
		dir := path.Join("namespaces", ns, "pods")
		pods, _ := fs.ReadDir(fsys, dir)
		for _, p := range pods {
			if !p.IsDir() {
				continue
			}
			containers, _ := fs.ReadDir(fsys, path.Join(dir, p.Name()))
			for _, ct := range containers {
				if !ct.IsDir() || logs.FamilyOf(ns, p.Name(), ct.Name()) == "" {
					continue
				}
				logDir := path.Join(dir, p.Name(), ct.Name(), ct.Name(), "logs")
				files, _ := fs.ReadDir(fsys, logDir)
				for _, f := range files {
					if name := path.Join(logDir, f.Name()); !f.IsDir() && wantLog(name) {
						names = append(names, name)
					}
				}
			}
		}
	}
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, name := range names {
		g.Go(func() error {
			l, _, _ := parseLogPath(name)
			rec := logFile(l, path.Join(display, name))
			fh, err := fsys.Open(name)
			if err != nil {
				c.Add(".", rec, err, nil)
				return nil
			}
			defer fh.Close()
			return c.Scan(".", fh, rec)
		})
	}
	return g.Wait()
}

// addLogs hands the logs under the root to the builder and records each
// namespace's provenance.
func (r *reader) addLogs(c *logs.Collector, root string) error {
	return logs.Offline{
		At:    r.at,
		Nodes: r.podNodes,
		Absent: func(ns string) (string, []string) {
			return "the must-gather holds no log of " + ns + " recover reads", []string{path.Join(r.display, "namespaces", ns, "pods/*/*/*/logs/current.log")}
		},
		From: func(paths []string) []string {
			var rel []string
			for _, p := range paths {
				rel = append(rel, strings.TrimPrefix(strings.TrimPrefix(p, r.display), "/"))
			}
			return summarizeFiles(r.display, rel)
		},
	}.Record(r.b, c.Results(path.Clean(root)))
}

// podNodes maps the pods of a namespace to their nodes, from the pod objects of
// the must-gather.
func (r *reader) podNodes(ns string) (map[string]string, error) {
	return decode.PodNodes(r.fsys, r.display, r.podFiles(ns), r.budget)
}
