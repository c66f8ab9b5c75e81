package logs

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/openshift-recover/recover/inspect"
)

// Collector gathers the logs an offline source scans, from an archive as its
// entries stream by or from a directory's files, and hands them to the builder
// once the source knows its root and its pods' nodes (Record). It is safe for
// concurrent use.
type Collector struct {
	ctx    context.Context
	limits Limits
	mu     sync.Mutex
	out    []Scanned
}

// Scanned is one log read: its record, its entries, or why it could not be
// read, and the directory it sits under (an archive's must-gather root).
type Scanned struct {
	Prefix  string
	File    inspect.LogFile
	Entries []inspect.LogEntry
	Err     error
}

// NewCollector returns a collector scanning with the limits.
func NewCollector(ctx context.Context, lim Limits) *Collector {
	return &Collector{ctx: ctx, limits: lim}
}

// Scan reads one log; only a cancelled context is returned as an error, a log
// that cannot be read is recorded.
func (c *Collector) Scan(prefix string, r io.Reader, f inspect.LogFile) error {
	f, entries, err := Scan(c.ctx, r, f, c.limits)
	if cerr := c.ctx.Err(); cerr != nil {
		return cerr
	}
	c.Add(prefix, f, err, entries)
	return nil
}

// Add records a scanned log, or one that could not be read (err).
func (c *Collector) Add(prefix string, f inspect.LogFile, err error, entries []inspect.LogEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.out = append(c.out, Scanned{Prefix: prefix, File: f, Entries: entries, Err: err})
}

// Results returns what was scanned under the prefix (every result for "*").
func (c *Collector) Results(prefix string) []Scanned {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Scanned
	for _, s := range c.out {
		if prefix == "*" || s.Prefix == prefix {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].File.Key() < out[j].File.Key() })
	return out
}

// Offline says how an offline source records its logs.
type Offline struct {
	// At is when the source was collected.
	At time.Time
	// Nodes maps a namespace's pods to their nodes.
	Nodes func(ns string) (map[string]string, error)
	// Absent says why a namespace has no log and where they were looked for.
	Absent func(ns string) (reason string, looked []string)
	// From lists the files read, shortened as the source's records are.
	From func(paths []string) []string
}

// Record hands the logs to the builder, each with its pod's node, and records
// each namespace's provenance (Namespaces): Collected with the files read,
// Error naming those that could not be, or Absent.
func (o Offline) Record(b *inspect.Builder, results []Scanned) error {
	byNS := map[string][]Scanned{}
	for _, s := range results {
		byNS[s.File.Namespace] = append(byNS[s.File.Namespace], s)
	}
	for _, ns := range Namespaces() {
		got := byNS[ns]
		if len(got) == 0 {
			reason, looked := o.Absent(ns)
			b.RecordLogs(inspect.ResourceStatus{Namespace: ns, State: inspect.Absent, CollectedAt: o.At, Reason: reason, From: looked})
			continue
		}
		nodes, err := o.Nodes(ns)
		if err != nil {
			return err
		}
		var files, failed []string
		for _, s := range got {
			if s.Err != nil {
				failed = append(failed, fmt.Sprintf("%s (%v)", s.File.Path, s.Err))
				continue
			}
			f := s.File
			if f.Node == "" {
				f.Node = nodes[f.Pod]
			}
			b.AddLog(f, s.Entries)
			files = append(files, f.Path)
		}
		rs := inspect.ResourceStatus{Namespace: ns, State: inspect.Collected, CollectedAt: o.At, Count: len(files), From: o.From(files)}
		if len(failed) > 0 {
			rs.State, rs.Reason = inspect.Error, "could not read "+strings.Join(failed, "; ")
		}
		b.RecordLogs(rs)
	}
	return nil
}
