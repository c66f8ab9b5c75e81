package mustgather

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"path"
	"runtime"
	"sort"
	"strings"
	"sync"

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
// part from "namespaces/" on counts), ok false for anything else.
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
	return logName{ns: p[1], pod: p[3], container: p[4], previous: prev}, strings.Join(parts[:i], "/"), true
}

// wantLog reports whether a path is a log recover reads.
func wantLog(name string) bool {
	l, _, ok := parseLogPath(name)
	return ok && logs.FamilyOf(l.ns, l.pod, l.container) != ""
}

// scanned is one log read: its record, entries and the directory it sits under
// (the must-gather root it belongs to).
type scanned struct {
	prefix  string
	file    inspect.LogFile
	entries []inspect.LogEntry
	err     error
}

// logCollector scans logs: an archive's as they stream by, a directory's on demand.
type logCollector struct {
	ctx     context.Context
	limits  logs.Limits
	display string // the source path, prefixed to an archive entry's name
	mu      sync.Mutex
	out     []scanned
}

// stream scans one archive entry.
func (c *logCollector) stream(name string, r io.Reader) error {
	l, prefix, _ := parseLogPath(name)
	f, entries, err := logs.Scan(c.ctx, r, c.record(l, path.Join(c.display, name)), c.limits)
	if err := c.ctx.Err(); err != nil {
		return err
	}
	c.add(scanned{prefix: prefix, file: f, entries: entries, err: err})
	return nil
}

func (c *logCollector) record(l logName, shown string) inspect.LogFile {
	return inspect.LogFile{Path: shown, Namespace: l.ns, Pod: l.pod, Container: l.container, Previous: l.previous,
		Family: logs.FamilyOf(l.ns, l.pod, l.container)}
}

func (c *logCollector) add(s scanned) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.out = append(c.out, s)
}

// walk scans a directory must-gather's logs, GOMAXPROCS files at a time.
func (c *logCollector) walk(fsys fs.FS, display string) error {
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
	g, ctx := errgroup.WithContext(c.ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, name := range names {
		g.Go(func() error {
			l, _, _ := parseLogPath(name)
			rec := c.record(l, path.Join(display, name))
			fh, err := fsys.Open(name)
			if err != nil {
				c.add(scanned{file: rec, err: err})
				return nil
			}
			defer fh.Close()
			f, entries, err := logs.Scan(ctx, fh, rec, c.limits)
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
			c.add(scanned{file: f, entries: entries, err: err})
			return nil
		})
	}
	return g.Wait()
}

// addLogs hands the scanned logs under the root to the builder, with their pods'
// nodes, and records each namespace's provenance.
func (r *reader) addLogs(c *logCollector, root string, fromArchive bool) error {
	byNS := map[string][]scanned{}
	for _, s := range c.out {
		if fromArchive && path.Clean(s.prefix) != path.Clean(root) {
			continue
		}
		byNS[s.file.Namespace] = append(byNS[s.file.Namespace], s)
	}
	for _, ns := range logs.Namespaces() {
		got := byNS[ns]
		sort.Slice(got, func(i, j int) bool { return got[i].file.Key() < got[j].file.Key() })
		looked := path.Join(r.display, "namespaces", ns, "pods/*/*/*/logs/current.log")
		if len(got) == 0 {
			r.b.RecordLogs(inspect.ResourceStatus{Namespace: ns, State: inspect.Absent, CollectedAt: r.at,
				Reason: "the must-gather holds no log of " + ns + " recover reads", From: []string{looked}})
			continue
		}
		nodes, err := r.podNodes(ns)
		if err != nil {
			return err
		}
		var files, failed []string
		for _, s := range got {
			if s.err != nil {
				failed = append(failed, fmt.Sprintf("%s (%v)", s.file.Path, s.err))
				continue
			}
			f := s.file
			if f.Node == "" {
				f.Node = nodes[f.Pod]
			}
			r.b.AddLog(f, s.entries)
			files = append(files, strings.TrimPrefix(strings.TrimPrefix(f.Path, r.display), "/"))
		}
		rs := inspect.ResourceStatus{Namespace: ns, State: inspect.Collected, CollectedAt: r.at, Count: len(files), From: summarizeFiles(r.display, files)}
		if len(failed) > 0 {
			rs.State, rs.Reason = inspect.Error, "could not read "+strings.Join(failed, "; ")
		}
		r.b.RecordLogs(rs)
	}
	return nil
}

// podNodes maps the pods of a namespace to their nodes, from the pod objects of
// the must-gather.
func (r *reader) podNodes(ns string) (map[string]string, error) {
	out := map[string]string{}
	for _, f := range r.podFiles(ns) {
		err := decode.Each(r.fsys, f, path.Join(r.display, f), r.budget, func(d decode.Doc) error {
			var p struct {
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
				Spec struct {
					NodeName string `json:"nodeName"`
				} `json:"spec"`
			}
			if json.Unmarshal(d.JSON, &p) == nil && p.Spec.NodeName != "" {
				out[p.Metadata.Name] = p.Spec.NodeName
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
