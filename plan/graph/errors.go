package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// InputError is a problem with a graph or graph-data file: malformed JSON or YAML,
// a missing field, an edge pointing outside the nodes, a duplicate version. Its
// message is one line naming the file, the field or line, and what to do.
type InputError struct {
	// Source is the file or URL.
	Source string
	// Field locates the problem in the document ("edges[12]", "nodes[5].version");
	// Line and Column locate it in the text (0: unknown).
	Field  string
	Line   int
	Column int
	// Msg says what is wrong, Hint what to do.
	Msg  string
	Hint string
	Err  error
}

func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(e.Source)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ":%d", e.Column)
		}
	}
	if e.Field != "" {
		b.WriteString(": " + e.Field)
	}
	b.WriteString(": " + e.Msg)
	if e.Hint != "" {
		b.WriteString("; " + e.Hint)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// Unwrap returns the underlying error, if any.
func (e *InputError) Unwrap() error { return e.Err }

// BadInput marks the error as an input problem (exit code 4).
func (e *InputError) BadInput() bool { return true }

// jsonError turns a decoding error of data into an InputError with line and column.
func jsonError(source string, data []byte, err error, hint string) error {
	ie := &InputError{Source: source, Msg: "malformed JSON: " + err.Error(), Hint: hint, Err: err}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		ie.Line, ie.Column = lineCol(data, syn.Offset)
	case errors.As(err, &typ):
		ie.Line, ie.Column = lineCol(data, typ.Offset)
		ie.Field = typ.Field
		ie.Msg = fmt.Sprintf("expected %s, found JSON %s", typ.Type, typ.Value)
	}
	return ie
}

// lineCol converts a byte offset into a 1-based line and column.
func lineCol(data []byte, offset int64) (int, int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	if offset < 0 {
		offset = 0
	}
	before := data[:offset]
	line := bytes.Count(before, []byte{'\n'}) + 1
	col := int(offset) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// FetchKind classifies a failed download of a graph.
type FetchKind string

// The fetch failure kinds.
const (
	FetchConnection FetchKind = "connection" // DNS, refused, reset, TLS
	FetchTimeout    FetchKind = "timeout"
	FetchServer     FetchKind = "server"      // 5xx after retries
	FetchThrottled  FetchKind = "throttled"   // 429 after retries
	FetchRejected   FetchKind = "rejected"    // 4xx: bad channel, arch, URL
	FetchNotFound   FetchKind = "not-found"   // 404
	FetchBadContent FetchKind = "bad-content" // not JSON, wrong content type
)

// FetchError is a failed download of a graph from an update service.
type FetchError struct {
	URL        string
	Kind       FetchKind
	StatusCode int
	Attempts   int
	// Detail is the server's {kind, value} error or the transport error text.
	Detail string
	Err    error
}

func (e *FetchError) Error() string {
	var what, next string
	switch e.Kind {
	case FetchConnection:
		what, next = "cannot connect", "check the URL and the network, or use a graph file (--graph FILE) or a graph-data directory (--graph-data) offline"
	case FetchTimeout:
		what, next = "timed out", "retry later, or use a graph file (--graph FILE) offline"
	case FetchServer:
		what, next = fmt.Sprintf("server error %d", e.StatusCode), "the update service is failing; retry later, or use a graph file (--graph FILE)"
	case FetchThrottled:
		what, next = "throttled (HTTP 429)", "retry later, or use a graph file (--graph FILE)"
	case FetchNotFound:
		what, next = "not found (HTTP 404)", "check the update service URL (it usually ends in /api/upgrades_info/v1/graph)"
	case FetchRejected:
		what, next = fmt.Sprintf("rejected (HTTP %d)", e.StatusCode), "check --channel and --arch (the service needs a channel it knows)"
	case FetchBadContent:
		what, next = "did not return a graph", "check that the URL is an update service graph endpoint"
	}
	msg := fmt.Sprintf("fetching update graph %s: %s", e.URL, what)
	if e.Attempts > 1 {
		msg += fmt.Sprintf(" after %d attempts", e.Attempts)
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return strings.Join(strings.Fields(msg+"; "+next), " ")
}

// Unwrap exposes context cancellation only, so that a network failure is not
// mistaken for an unreachable cluster.
func (e *FetchError) Unwrap() error {
	if errors.Is(e.Err, context.Canceled) {
		return e.Err
	}
	return nil
}

// BadInput reports whether the service rejected what we asked for (4xx) or served
// something that is not a graph: both are problems with the input URL or flags.
func (e *FetchError) BadInput() bool {
	return e.Kind == FetchRejected || e.Kind == FetchNotFound || e.Kind == FetchBadContent
}

// QueryError is a question the graph cannot answer: an unknown version, no path.
type QueryError struct {
	Msg string
}

func (e *QueryError) Error() string { return e.Msg }

// BadInput marks an unknown version as an input problem.
func (e *QueryError) BadInput() bool { return true }

// ErrNoPath is returned (wrapped) by ShortestPath when no supported path exists.
var ErrNoPath = errors.New("no supported update path")
