package shell

import (
	"os/exec"
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"plan.json", "plan.json"},
		{"/var/tmp/recover-journal.json", "/var/tmp/recover-journal.json"},
		{"admin-ack:ack-4.18-kube-1.32-api-removals-in-4.19", "admin-ack:ack-4.18-kube-1.32-api-removals-in-4.19"},
		{"a+b%c@d=e,f", "a+b%c@d=e,f"},
		{"", "''"},
		{"with space", "'with space'"},
		{"it's", `'it'\''s'`},
		{`{"spec":{"minAvailable":1}}`, `'{"spec":{"minAvailable":1}}'`},
		{"$HOME", "'$HOME'"},
		{"a;rm -rf /", "'a;rm -rf /'"},
		{"*", "'*'"},
		{"~user", "'~user'"},
		{"naïve", "'naïve'"},
		{"line\nbreak", "'line\nbreak'"},
	}
	for _, tt := range tests {
		if got := Quote(tt.in); got != tt.want {
			t.Errorf("Quote(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestQuoteRoundTripsThroughSh runs each quoted word through a real shell and
// checks that the shell hands back exactly the original string.
func TestQuoteRoundTripsThroughSh(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH: the round trip needs a POSIX shell")
	}
	words := []string{"", "plain", "two words", "it's", `"dq"`, `back\slash`, "$(date)", "`id`",
		"a;b|c&d", "glob*?[x]", "~", "#comment", "new\nline", "tab\there", "'''", `{"a":"b's"}`, "naïve"}
	for _, w := range words {
		out, err := exec.Command(sh, "-c", "printf %s "+Quote(w)).Output()
		if err != nil {
			t.Fatalf("sh -c printf %s: %v", Quote(w), err)
		}
		if string(out) != w {
			t.Errorf("sh turned %s into %q, want %q", Quote(w), out, w)
		}
	}
	out, err := exec.Command(sh, "-c", `for a in `+Join(words...)+`; do printf '%s\0' "$a"; done`).Output()
	if err != nil {
		t.Fatalf("sh Join: %v", err)
	}
	if got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00"); strings.Join(got, "|") != strings.Join(words, "|") {
		t.Errorf("Join round trip = %q, want %q", got, words)
	}
}
