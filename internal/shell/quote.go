package shell

import "strings"

// Quote returns s as one POSIX shell word. A word made only of characters
// that no shell treats specially (letters, digits and @%+=:,./-_) is returned
// as it is; anything else, and the empty string, is single-quoted, with each
// embedded single quote ending the quoted run, escaped with a backslash, and
// reopening it.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, unsafe) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Join quotes each word and joins them with spaces.
func Join(words ...string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = Quote(w)
	}
	return strings.Join(q, " ")
}

func unsafe(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return false
	}
	return !strings.ContainsRune("@%+=:,./-_", r)
}
