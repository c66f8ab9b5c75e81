package inspect

import (
	"sort"
	"time"
)

// AddLog adds one scanned container log and the entries its parser kept
// (inspect/logs.Scan). Times without a year are resolved at Finish.
func (b *Builder) AddLog(f LogFile, entries []LogEntry) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.s.Logs == nil {
		b.s.Logs = &LogEvidence{}
	}
	b.s.Logs.Files = append(b.s.Logs.Files, f)
	b.s.Logs.Entries = append(b.s.Logs.Entries, entries...)
}

// RecordLogs stores the provenance of one namespace's logs (Resource
// LogResource), replacing an earlier record of the same namespace.
func (b *Builder) RecordLogs(rs ResourceStatus) {
	rs.Resource = LogResource
	if !rs.CollectedAt.IsZero() {
		rs.CollectedAt = rs.CollectedAt.UTC().Truncate(time.Millisecond)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.s.Logs == nil {
		b.s.Logs = &LogEvidence{}
	}
	for i := range b.s.Logs.Sources {
		if b.s.Logs.Sources[i].Key() == rs.Key() {
			b.s.Logs.Sources[i] = rs
			return
		}
	}
	b.s.Logs.Sources = append(b.s.Logs.Sources, rs)
}

// finishLogs resolves the year of every klog time against when the source was
// collected, gives a daemon's lines its pod's node, and sorts.
func finishLogs(s *Snapshot) {
	l := s.Logs
	if l == nil {
		return
	}
	ref := s.Source.CollectedAt
	if ref.IsZero() {
		ref = time.Now().UTC()
	}
	node := map[string]string{}
	for i := range l.Files {
		f := &l.Files[i]
		f.First, f.Last = ResolveLogYear(f.First, ref), ResolveLogYear(f.Last, ref)
		if f.LastLine != nil {
			f.LastLine.Time = ResolveLogYear(f.LastLine.Time, ref)
		}
		if f.Family == LogFamilyMachineConfigDaemon {
			node[f.Key()] = f.Node
		}
	}
	for i := range l.Entries {
		e := &l.Entries[i]
		e.Time = ResolveLogYear(e.Time, ref)
		if e.LastSeen != nil {
			e.LastSeen.Time = ResolveLogYear(e.LastSeen.Time, ref)
		}
		for j := range e.Proof {
			e.Proof[j].Time = ResolveLogYear(e.Proof[j].Time, ref)
		}
		if n := node[e.File]; n != "" && e.Fields["node"] == "" && (e.Kind == LogKindEvictionRefused || e.Kind == LogKindNodeDegraded || e.Kind == LogKindDrainTimeout) {
			if e.Fields == nil {
				e.Fields = map[string]string{}
			}
			e.Fields["node"] = n
		}
	}
	normalizeLogs(l)
}

// LogPod is a pod whose log a live source reads.
type LogPod struct {
	Namespace, Name, Node string
}

// DaemonLogNodes returns the nodes whose machine-config daemon's log matters:
// those the daemon is not done with (NodeSettled: draining, cordoned, degraded
// or updating) or whose drain may be held (DrainTrouble). Call it once the
// nodes are in.
func (b *Builder) DaemonLogNodes() map[string]bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string]bool{}
	for i := range b.s.Nodes {
		n := &b.s.Nodes[i]
		if n.DrainTrouble() || !NodeSettled(*n).OK {
			out[n.Name] = true
		}
	}
	return out
}

// LatestInstallers returns, per static-pod operand namespace, each node's
// latest installer pod (the highest revision, then retry): the installers whose
// logs matter. Call it once the operand namespaces' pods are in.
func (b *Builder) LatestInstallers() []LogPod {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []LogPod
	for _, c := range StaticPodComponents {
		op := b.spo[c.Resource.Resource]
		latest := map[string]InstallerPod{}
		for _, ip := range op.Installers {
			cur, ok := latest[ip.Node]
			if !ok || ip.Revision > cur.Revision || ip.Revision == cur.Revision && ip.Retry > cur.Retry {
				latest[ip.Node] = ip
			}
		}
		for _, ip := range latest {
			out = append(out, LogPod{Namespace: op.Namespace, Name: ip.Name, Node: ip.Node})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out
}
