package inputcheck

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
)

// BadInputError is what the CLI recognises as an input problem (exit code 4).
type BadInputError interface{ BadInput() bool }

// Problem returns why err is not an acceptable bad-input error, or "" when it is:
// err must be non-nil, its message a single non-empty line without control
// characters, and err (or an error it wraps) must report BadInput() == true.
func Problem(err error) string {
	if err == nil {
		return "no error"
	}
	if msg := LineProblem(err.Error()); msg != "" {
		return msg
	}
	var bad BadInputError
	if !errors.As(err, &bad) || !bad.BadInput() {
		return fmt.Sprintf("error %T is not classified as bad input: %q", err, err.Error())
	}
	return ""
}

// LineProblem returns why msg is not one printable line, or "".
func LineProblem(msg string) string {
	switch {
	case strings.TrimSpace(msg) == "":
		return "empty error message"
	case strings.ContainsAny(msg, "\n\r"):
		return fmt.Sprintf("error message is not one line: %q", msg)
	}
	for _, r := range msg {
		// DEL is not escaped by time.Parse's quoting and does nothing on a
		// terminal; the CLI replaces every control character anyway (oneLine).
		if unicode.IsControl(r) && r != '\t' && r != 0x7f {
			return fmt.Sprintf("error message carries control character %U: %q", r, msg)
		}
	}
	return ""
}

// Within runs f and fails t when f has not returned after d: a reader must never
// hang on bad input. The fuzzing engine then keeps the input as a crasher.
func Within(t interface {
	Helper()
	Fatalf(string, ...any)
}, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not return within %s: a reader must not hang on bad input", what, d)
	}
}
