package payload

import (
	"fmt"
	"strings"
)

// InputError is a problem with a payload: a missing file, malformed YAML or JSON, a
// manifest without kind or name, an invalid annotation value, a template that does
// not render. Its message is one line: path, line when known, what, what to do.
type InputError struct {
	// Path is the file or directory; Line locates the problem in it (0: unknown);
	// Field names the field or annotation.
	Path  string
	Line  int
	Field string
	Msg   string
	Hint  string
	Err   error
}

func (e *InputError) Error() string {
	loc := e.Path
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", loc, e.Line)
	}
	if e.Field != "" {
		loc += ": " + e.Field
	}
	msg := loc + ": " + e.Msg
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return strings.Join(strings.Fields(msg), " ")
}

// Unwrap returns the underlying error.
func (e *InputError) Unwrap() error { return e.Err }

// BadInput marks the error as an input problem (exit code 4).
func (e *InputError) BadInput() bool { return true }

// PullError is a failure to pull or extract a release image.
type PullError struct {
	Ref string
	Msg string
	// Hint says what to do.
	Hint string
	// Input is true when the pull spec or the image content is at fault (bad pull
	// spec, digest mismatch, not a release image) rather than the network.
	Input bool
	Err   error
}

func (e *PullError) Error() string {
	msg := fmt.Sprintf("release image %s: %s", e.Ref, e.Msg)
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return strings.Join(strings.Fields(msg), " ")
}

// Unwrap returns the underlying error.
func (e *PullError) Unwrap() error { return e.Err }

// BadInput reports whether the image or pull spec itself is at fault.
func (e *PullError) BadInput() bool { return e.Input }
