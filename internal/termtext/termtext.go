package termtext

import (
	"strings"
	"unicode"
)

// OneLine folds a multi-line message onto one line ("; " between lines, runs of
// white space as one space) and replaces every control character with '?'.
func OneLine(s string) string {
	s = strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, s)
}
