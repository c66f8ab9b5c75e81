package inspect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/openshift-recover/recover/internal/bounded"
)

// Source collects a Snapshot: from a live cluster, a must-gather, an Insights
// archive, `oc get` dumps, or a saved snapshot. A returned snapshot is finished:
// sorted, with its Summary and Findings.
//
// Errors classify themselves for the CLI: input problems implement BadInput() bool
// (exit 4); cluster problems wrap an API status error (exit 5).
type Source interface {
	Collect(ctx context.Context) (*Snapshot, error)
}

// FileSource reads a snapshot saved as JSON (`recover inspect -o json > snapshot.json`).
type FileSource struct {
	// Path is the snapshot file; "-" reads In.
	Path string
	// In is read when Path is "-".
	In io.Reader
}

// Collect reads and checks the saved snapshot. Its findings are recomputed, so a
// snapshot saved by an older recover gets the current analysis.
func (f FileSource) Collect(ctx context.Context) (*Snapshot, error) {
	var data []byte
	var err error
	if f.Path == "-" {
		data, err = bounded.ReadAll(f.In, "stdin", MaxSnapshotBytes)
	} else {
		data, err = bounded.ReadFile(f.Path, MaxSnapshotBytes)
	}
	if err != nil {
		return nil, &InputError{Path: f.Path, Err: limitOr(err)}
	}
	s, err := decodeSnapshot(data)
	if err != nil {
		if ie, ok := err.(*InputError); ok && ie.Path == "" {
			ie.Path = f.Path
		}
		return nil, err
	}
	Refresh(s)
	return s, nil
}

// MaxSnapshotBytes is the largest saved snapshot recover reads; one of a
// 5,000-node cluster is about 40 MiB.
const MaxSnapshotBytes = 512 << 20

// ReadSnapshot decodes a snapshot written as JSON and checks its format version.
func ReadSnapshot(r io.Reader) (*Snapshot, error) {
	data, err := bounded.ReadAll(r, "snapshot", MaxSnapshotBytes)
	if err != nil {
		return nil, &InputError{Err: fmt.Errorf("reading snapshot: %w", limitOr(err))}
	}
	return decodeSnapshot(data)
}

// limitOr returns the *bounded.LimitError inside err (the path is said once, by
// the InputError), or err itself.
func limitOr(err error) error {
	var le *bounded.LimitError
	if errors.As(err, &le) {
		return le
	}
	return err
}

// decodeSnapshot decodes a snapshot and checks its format version.
func decodeSnapshot(data []byte) (*Snapshot, error) {
	var s Snapshot
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&s); err != nil {
		return nil, &InputError{Err: fmt.Errorf("not a recover snapshot (JSON): %w", err)}
	}
	if s.FormatVersion == "" {
		return nil, &InputError{Err: fmt.Errorf("not a recover snapshot: no formatVersion field (write one with 'recover inspect -o json')")}
	}
	major, _, _ := strings.Cut(s.FormatVersion, ".")
	want, _, _ := strings.Cut(FormatVersion, ".")
	if major != want {
		return nil, &InputError{Err: fmt.Errorf("snapshot formatVersion %s is not supported by this recover (reads %s.x); re-run 'recover inspect -o json' with this recover", s.FormatVersion, want)}
	}
	recordMissingWedgeFacts(&s)
	return &s, nil
}

// recordMissingWedgeFacts marks the wedge facts of formatVersion 1.1 as Absent in
// a 1.0 snapshot, which was written before recover collected them: analysis must
// read them as not collected, not as empty. Records already there are kept, so
// reading the document again changes nothing.
func recordMissingWedgeFacts(s *Snapshot) {
	_, minor, _ := strings.Cut(s.FormatVersion, ".")
	minor, _, _ = strings.Cut(minor, ".")
	if minor != "0" {
		return
	}
	have := map[string]bool{}
	for _, r := range s.Resources {
		have[r.Key()] = true
	}
	added := false
	for _, w := range WedgeResources() {
		if have[w.Key()] {
			continue
		}
		s.Resources = append(s.Resources, ResourceStatus{
			Resource: w.Resource.Key(), Namespace: w.Namespace, State: Absent, CollectedAt: s.Source.CollectedAt,
			Reason: "the snapshot has formatVersion " + s.FormatVersion + ", written before recover collected it; re-run 'recover inspect -o json' to have it",
		})
		added = true
	}
	if added {
		sort.SliceStable(s.Resources, func(i, j int) bool { return s.Resources[i].Key() < s.Resources[j].Key() })
	}
}

// InputError is a problem with an input file or directory: missing, unreadable or
// malformed. It names the file and, when known, the line or field.
type InputError struct {
	// Path is the file or directory.
	Path string
	// Line is the 1-based line, 0 when unknown.
	Line int
	// Err is what is wrong.
	Err error
}

func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(oneLine(e.Err.Error()))
	return b.String()
}

// Unwrap returns the underlying error.
func (e *InputError) Unwrap() error { return e.Err }

// BadInput marks the error as an input problem (the CLI exits 4).
func (e *InputError) BadInput() bool { return true }

// oneLine folds a multi-line message onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}
