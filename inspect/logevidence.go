package inspect

import (
	"sort"
	"strconv"
	"time"
)

// LogEvidence is what the components' own logs say (formatVersion 1.2): the
// lines of the cluster-version operator, the machine-config daemons and
// controller, the static-pod installers and the machine approver that prove why
// an update is stuck. The sources scan the logs line by line with
// inspect/logs and keep only those lines, never a whole log.
type LogEvidence struct {
	// Sources records, per namespace, whether its logs were read, from where, and
	// if not, why: the same record as Snapshot.Resources, for the resource
	// "pods/log". A log that could not be read yields no NotCollected finding
	// (logs add evidence; without them the findings are those of the objects).
	Sources []ResourceStatus `json:"sources"`
	// Files are the log files read, sorted by namespace, pod, container and
	// previous.
	Files []LogFile `json:"files,omitempty"`
	// Entries are the lines that matter, oldest first. Repeats of one line (the
	// same kind and fields, another time) are folded into the first, with their
	// count and the last one.
	Entries []LogEntry `json:"entries,omitempty"`
}

// LogResource is the resource of LogEvidence.Sources: the pods' log subresource.
const LogResource = "pods/log"

// The log families: which component wrote a log, so which parser reads it.
const (
	LogFamilyCVO                     = "cluster-version-operator"
	LogFamilyMachineConfigDaemon     = "machine-config-daemon"
	LogFamilyMachineConfigController = "machine-config-controller"
	LogFamilyInstaller               = "installer"
	LogFamilyMachineApprover         = "machine-approver"
)

// LogFile is one container log that was read.
type LogFile struct {
	// Path is the file (offline) or the API path (live) the lines were read from;
	// an entry's Source is "<Path>:<line>".
	Path      string `json:"path"`
	Namespace string `json:"namespace"`
	Pod       string `json:"pod"`
	Container string `json:"container"`
	// Previous is true for the container's previous run (previous.log).
	Previous bool `json:"previous,omitempty"`
	// Family is one of the LogFamily* constants.
	Family string `json:"family"`
	// Node is the node the pod ran on, when the source says.
	Node string `json:"node,omitempty"`
	// Bytes and Lines are how much was read.
	Bytes int64 `json:"bytes"`
	Lines int   `json:"lines"`
	// Partial says why the file was not read to its end (a byte limit), or that
	// only its tail was fetched; "" when it was read whole.
	Partial string `json:"partial,omitempty"`
	// First and Last are the times of its first and last timed lines.
	First time.Time `json:"first,omitzero"`
	Last  time.Time `json:"last,omitzero"`
	// LastLine is the last line the component wrote (with a log header).
	LastLine *LogLine `json:"lastLine,omitempty"`
	// Omitted counts the entries left out when the file had more than the
	// parsers keep.
	Omitted int `json:"omitted,omitempty"`
}

// Key returns "<namespace>/<pod>/<container>[/previous]".
func (f LogFile) Key() string {
	k := f.Namespace + "/" + f.Pod + "/" + f.Container
	if f.Previous {
		k += "/previous"
	}
	return k
}

// LogLine is one line of a log: when, where and what.
type LogLine struct {
	Time time.Time `json:"time"`
	// Source is "<file or API path>:<line>".
	Source string `json:"source"`
	// Text is the component's message without the log header, on one line, at
	// most MaxLogText bytes.
	Text string `json:"text"`
}

// MaxLogText caps LogLine.Text.
const MaxLogText = 512

// LogEntry is a line (or a sequence of lines) that matters, parsed.
type LogEntry struct {
	// Kind is one of the LogKind* constants.
	Kind string `json:"kind"`
	// Family is the family of the log it came from.
	Family string `json:"family"`
	// File is the LogFile key it came from ("<ns>/<pod>/<container>[/previous]").
	File string `json:"file"`
	LogLine
	// Fields are the values the parser read (payload, state, pod, namespace, node,
	// ...); see docs/snapshot-format.md for each kind's.
	Fields map[string]string `json:"fields,omitempty"`
	// Count is how many times the line occurred (1 when once).
	Count int `json:"count"`
	// LastSeen is the last occurrence, when Count > 1.
	LastSeen *LogLine `json:"lastSeen,omitempty"`
	// Proof are the lines a derived entry rests on, oldest first
	// (LogKindCVOAbandonedUpdate: the Updating sync, its result, the Reconciling
	// sync of the same payload and generation).
	Proof []LogLine `json:"proof,omitempty"`
}

// The entry kinds, by family (each parser documents the source lines it reads).
const (
	// The cluster-version operator.
	LogKindCVOVersion         = "cvo-version"          // fields: version, build
	LogKindCVOSync            = "cvo-sync"             // payload, force, generation, state, attempt
	LogKindCVOPayloadLoaded   = "cvo-payload-loaded"   // payload, hash
	LogKindCVOResult          = "cvo-result"           // errors, ok, contextOnly, done, total
	LogKindCVOContextErrors   = "cvo-context-errors"   // wording (cancellation|context), errors
	LogKindCVOApplyError      = "cvo-apply-error"      // task, kind, object, index, total, error
	LogKindCVOPrecondition    = "cvo-precondition"     // precondition, reason, message
	LogKindCVORetrieval       = "cvo-retrieval"        // version, image, failure
	LogKindCVOSignature       = "cvo-signature"        // error
	LogKindCVOAbandonedUpdate = "cvo-abandoned-update" // payload, generation, done, total, wording
	// The machine-config daemon and controller.
	LogKindEvictionRefused = "eviction-refused" // pod, namespace, node, budget (true when a disruption budget refused), error
	LogKindDrainTimeout    = "drain-timeout"    // node, timeout
	LogKindNodeDegraded    = "node-degraded"    // node, reason
	// The static-pod installers.
	LogKindInstallerManifest = "installer-manifest" // manifest: the static pod manifest was written
	LogKindInstallerSIGTERM  = "installer-sigterm"  // the installer was told to stop
	LogKindInstallerEnd      = "installer-end"      // wroteManifest, sigterm: the last line of the log
	// The machine approver.
	LogKindCSRNotAuthorized = "csr-not-authorized" // csr, reason
	LogKindCSRApproved      = "csr-approved"       // csr
)

// LogSource returns the source of line n of a log: "<path>:<n>".
func LogSource(path string, n int) string { return path + ":" + strconv.Itoa(n) }

// EntriesOf returns the log entries of a kind, oldest first.
func (l *LogEvidence) EntriesOf(kind string) []LogEntry {
	if l == nil {
		return nil
	}
	var out []LogEntry
	for _, e := range l.Entries {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// File returns the log file with the given key, nil when none was read.
func (l *LogEvidence) File(key string) *LogFile {
	if l == nil {
		return nil
	}
	for i := range l.Files {
		if l.Files[i].Key() == key {
			return &l.Files[i]
		}
	}
	return nil
}

// normalizeLogs sorts the log evidence so that equal logs give equal documents.
func normalizeLogs(l *LogEvidence) {
	if l == nil {
		return
	}
	sort.SliceStable(l.Sources, func(i, j int) bool { return l.Sources[i].Key() < l.Sources[j].Key() })
	sort.SliceStable(l.Files, func(i, j int) bool { return l.Files[i].Key() < l.Files[j].Key() })
	sort.SliceStable(l.Entries, func(i, j int) bool {
		a, b := l.Entries[i], l.Entries[j]
		if !a.Time.Equal(b.Time) {
			return a.Time.Before(b.Time)
		}
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Source < b.Source
	})
}

// LogYearUnknown reports whether t came from a klog header alone: klog writes
// no year, so the log scanner leaves it at year 0.
func LogYearUnknown(t time.Time) bool { return !t.IsZero() && t.Year() == 0 }

// ResolveLogYear gives a klog time (year 0) the year that puts it at or before
// ref (when the log was collected), allowing two days of clock skew; other times
// are returned as they are. Builder.Finish resolves every log time so.
func ResolveLogYear(t, ref time.Time) time.Time {
	if !LogYearUnknown(t) || ref.IsZero() {
		return t
	}
	y := ref.Year()
	c := time.Date(y, t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
	if c.After(ref.Add(48 * time.Hour)) {
		c = time.Date(y-1, t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
	}
	return c
}
