package termtext

import "testing"

func TestOneLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"two\nlines", "two; lines"},
		{"  runs \t of   space  ", "runs of space"},
		{"escape \x1b[31mred\x1b[0m", "escape ?[31mred?[0m"},
		{"bell\a and nul\x00", "bell? and nul?"},
		{"first\n\nthird", "first; ; third"},
		{"", ""},
	} {
		if got := OneLine(tc.in); got != tc.want {
			t.Errorf("OneLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
