package logs

import (
	"bytes"
	"strconv"
)

// Structured klog lines (klog.ErrorS, and utilruntime.HandleError since
// apimachinery 0.30) print a quoted message and key="value" pairs:
//
//	E0101 10:00:00.000000       1 task.go:128] "Unhandled Error" err="error running apply for ..."
//
// quoted returns the value of key in such a line, unquoted; ok is false when the
// line has no such pair.
func quoted(msg []byte, key string) (string, bool) {
	pat := []byte(" " + key + "=\"")
	i := bytes.Index(msg, pat)
	if i < 0 {
		return "", false
	}
	start := i + len(pat) - 1
	end := closingQuote(msg, start)
	if end < 0 {
		return "", false
	}
	v, err := strconv.Unquote(string(msg[start : end+1]))
	if err != nil {
		return "", false
	}
	return v, true
}

// closingQuote returns the index of the quote that closes the quoted string
// starting at msg[start], -1 when it is not closed.
func closingQuote(msg []byte, start int) int {
	for i := start + 1; i < len(msg); i++ {
		switch msg[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// unquoteAll returns s unquoted when the whole of it is one Go-quoted string
// (messages logged with %q), else s.
func unquoteAll(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		if v, err := strconv.Unquote(s); err == nil {
			return v
		}
	}
	return s
}

// errText returns the text a line reports as its error: the err="..." of a
// structured line whose message is quoted, else the whole message.
func errText(msg []byte) []byte {
	if len(msg) > 0 && msg[0] == '"' {
		if v, ok := quoted(msg, "err"); ok {
			return []byte(v)
		}
	}
	return msg
}
