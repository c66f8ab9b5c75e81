package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeInstall holds the README's Install commands to what exists: each
// `make X` is a Makefile target documented in make help, each go install path is a
// main package of this module, the krew line names the manifest and archive this
// release writes, and the archive lines name this release's files. A command of
// any other kind fails the test, so the section can't drift into untested advice.
func TestReadmeInstall(t *testing.T) {
	repo, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(repo, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := installBlock(t, string(readme))
	makefile, err := os.ReadFile(filepath.Join(repo, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	archive := regexp.QuoteMeta(archiveName("<version>", platform{"OS", "ARCH"}))
	archive = strings.NewReplacer("OS", "(linux|darwin)", "ARCH", "(amd64|arm64)").Replace(archive)
	archiveRE := regexp.MustCompile(`^(dist/)?` + archive + `$`)
	seen := map[string]bool{}
	for _, line := range lines {
		f := strings.Fields(line)
		switch {
		case f[0] == "make" && len(f) == 2:
			seen["make"] = true
			if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(f[1]) + `:.*## `).Match(makefile) {
				t.Errorf("%q: the Makefile has no target %s with a ## help comment", line, f[1])
			}
		case len(f) == 3 && f[0] == "go" && f[1] == "install":
			seen["go install"] = true
			pkg, ver, ok := strings.Cut(f[2], "@")
			rel, inModule := strings.CutPrefix(pkg, modulePath+"/")
			if !ok || ver == "" || !inModule {
				t.Errorf("%q: want %s/<package>@<version>", line, modulePath)
				continue
			}
			list := exec.Command("go", "list", "-f", "{{.Name}}", "./"+rel)
			list.Dir = repo
			out, err := list.CombinedOutput()
			if err != nil || strings.TrimSpace(string(out)) != "main" {
				t.Errorf("%q: ./%s is not a main package: %v %s", line, rel, err, out)
			}
		case len(f) == 5 && strings.Join(f[:3], " ") == "kubectl krew install":
			seen["krew"] = true
			if f[3] != "--manifest=dist/"+manifestFile {
				t.Errorf("%q: the release writes the manifest to dist/%s", line, manifestFile)
			}
			a, ok := strings.CutPrefix(f[4], "--archive=")
			if !ok || !archiveRE.MatchString(a) {
				t.Errorf("%q: --archive should name a release archive like %s", line, archiveRE)
			}
		case f[0] == "sha256sum":
			seen["sha256sum"] = true
			if f[len(f)-1] != sumsFile {
				t.Errorf("%q: the release's checksum file is %s", line, sumsFile)
			}
		case f[0] == "tar" && len(f) == 3 && f[1] == "-xzf":
			seen["tar"] = true
			if !archiveRE.MatchString(f[2]) {
				t.Errorf("%q: not a release archive name (%s)", line, archiveRE)
			}
		case f[0] == "install" && len(f) == 5 && f[3] == binName:
			seen["install"] = true
			if b := filepath.Base(f[4]); b != "kubectl-"+binName && b != "oc-"+binName {
				t.Errorf("%q: installed as %s, which kubectl and oc don't run as a plugin", line, b)
			}
		default:
			t.Errorf("%q: a command this test does not know; teach TestReadmeInstall to check it", line)
		}
	}
	for _, kind := range []string{"make", "go install", "krew", "sha256sum", "tar"} {
		if !seen[kind] {
			t.Errorf("the Install section has no %s line", kind)
		}
	}
}

// installBlock returns the commands of the first code block under "## Install",
// without comments and blank lines.
func installBlock(t *testing.T, readme string) []string {
	t.Helper()
	_, section, ok := strings.Cut(readme, "\n## Install\n")
	if !ok {
		t.Fatal("README.md has no ## Install section")
	}
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	_, block, ok := strings.Cut(section, "```sh\n")
	if !ok {
		t.Fatal("the Install section has no ```sh block")
	}
	block, _, _ = strings.Cut(block, "```")
	var lines []string
	for _, l := range strings.Split(block, "\n") {
		if i := strings.Index(l, "#"); i >= 0 {
			l = l[:i]
		}
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}
