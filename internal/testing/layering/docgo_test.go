package layering

import (
	"errors"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryPackageHasDocGo keeps the architecture page's promise of a doc.go per
// package: every package of the module with non-test Go files has a doc.go whose
// package clause carries a package comment.
func TestEveryPackageHasDocGo(t *testing.T) {
	checked := 0
	for _, p := range goList(t, "ImportPath,Dir,GoFiles") {
		if len(p.GoFiles) == 0 {
			continue
		}
		checked++
		if msg := docGoProblem(p.Dir); msg != "" {
			t.Errorf("%s: %s", p.ImportPath, msg)
		}
	}
	if checked < 10 {
		t.Fatalf("only %d packages with Go files listed; go list did not see the module", checked)
	}
}

// docGoProblem says what is wrong with the doc.go of the package in dir, or ""
// when it exists and holds a package comment.
func docGoProblem(dir string) string {
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, "doc.go"), nil, parser.PackageClauseOnly|parser.ParseComments)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "no doc.go"
		}
		return "doc.go does not parse: " + err.Error()
	}
	if f.Doc == nil || strings.TrimSpace(f.Doc.Text()) == "" {
		return "doc.go has no package comment"
	}
	return ""
}

func TestDocGoProblem(t *testing.T) {
	write := func(t *testing.T, content string) string {
		t.Helper()
		dir := t.TempDir()
		if content != "" {
			if err := os.WriteFile(filepath.Join(dir, "doc.go"), []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	for name, tc := range map[string]struct{ content, want string }{
		"missing":    {"", "no doc.go"},
		"no comment": {"package x\n", "doc.go has no package comment"},
		"detached":   {"// Package x is detached.\n\npackage x\n", "doc.go has no package comment"},
		"good":       {"// Package x holds things.\npackage x\n", ""},
	} {
		t.Run(name, func(t *testing.T) {
			if got := docGoProblem(write(t, tc.content)); got != tc.want {
				t.Errorf("docGoProblem = %q, want %q", got, tc.want)
			}
		})
	}
}
