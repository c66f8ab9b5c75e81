package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/openshift-recover/recover/internal/lab/sim"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
	"github.com/openshift-recover/recover/internal/testing/recoverbin"
)

func TestInvokedName(t *testing.T) {
	for _, tc := range []struct{ argv0, want string }{
		{"recover", "recover"},
		{"/usr/local/bin/recover", "recover"},
		{"/home/me/.krew/bin/kubectl-recover", "kubectl recover"},
		{"oc-recover", "oc recover"},
		{`kubectl-recover.exe`, "kubectl recover"},
		{"kubectl-recover-old", "recover"},
		{"/tmp/go-build1/recover.test", "recover"},
	} {
		if got := invokedName(tc.argv0); got != tc.want {
			t.Errorf("invokedName(%q) = %q, want %q", tc.argv0, got, tc.want)
		}
	}
}

// TestHelpShowsTheInvokedName checks the usage lines and error hints in-process.
func TestHelpShowsTheInvokedName(t *testing.T) {
	for _, name := range []string{"recover", "kubectl recover", "oc recover"} {
		out := runNamedOut(t, name, 0, "--help")
		for _, want := range []string{"\n  " + name + " [command]", "\n  " + name + " plan -o json > plan.json", `Use "` + name + ` [command] --help"`} {
			if !strings.Contains(out, want) {
				t.Errorf("%s --help lacks %q:\n%s", name, want, out)
			}
		}
		if out := runNamedOut(t, name, 0, "inspect", "--help"); !strings.Contains(out, "\n  "+name+" inspect [flags]") {
			t.Errorf("%s inspect --help: no usage line naming %q:\n%s", name, name, out)
		}
		errOut := runNamedErr(t, name, ExitUsage, "version", "extra")
		if !strings.Contains(errOut, "(see '"+name+" version --help')") {
			t.Errorf("%s version extra: %q does not point at %s version --help", name, errOut, name)
		}
	}
}

func runNamedOut(t *testing.T, name string, want int, args ...string) string {
	t.Helper()
	code, out, errOut := runNamedCode(name, args...)
	if code != want {
		t.Fatalf("%s %v: exit %d, want %d (stderr %q)", name, args, code, want, errOut)
	}
	return out
}

func runNamedErr(t *testing.T, name string, want int, args ...string) string {
	t.Helper()
	code, _, errOut := runNamedCode(name, args...)
	if code != want {
		t.Fatalf("%s %v: exit %d, want %d (stderr %q)", name, args, code, want, errOut)
	}
	return errOut
}

// TestPluginNamesAgainstARealAPIServer builds the binary, installs it as
// kubectl-recover and oc-recover on a PATH, and runs `kubectl recover inspect`
// through the real kubectl plugin dispatcher (when kubectl is installed) and both
// plugin binaries directly, as kubectl and oc exec them, against a real
// kube-apiserver holding the incident-1 cluster.
func TestPluginNamesAgainstARealAPIServer(t *testing.T) {
	env := apiServer(t, kubetest.Options{})
	scn, err := sim.LoadScenario(exampleDir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(env.Config, scn, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Load(context.Background()); err != nil {
		t.Fatal(err)
	}

	// The package's one build of the binary (recoverbin), under both plugin names.
	bin := t.TempDir()
	for _, name := range []string{"kubectl-recover", "oc-recover"} {
		if err := os.Link(recoverbin.Path(t), filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	path := bin + string(os.PathListSeparator) + os.Getenv("PATH")

	type invocation struct {
		name string   // what help shows
		argv []string // what is executed
	}
	cases := []invocation{
		{"kubectl recover", []string{filepath.Join(bin, "kubectl-recover")}},
		{"oc recover", []string{filepath.Join(bin, "oc-recover")}},
	}
	if kubectl, err := exec.LookPath("kubectl"); err == nil {
		cases = append(cases, invocation{"kubectl recover", []string{kubectl, "recover"}})
	} else {
		t.Log("kubectl not installed: the plugin binaries are run directly, as kubectl would")
	}
	if oc, err := exec.LookPath("oc"); err == nil {
		cases = append(cases, invocation{"oc recover", []string{oc, "recover"}})
	}
	for _, c := range cases {
		t.Run(strings.Join([]string{filepath.Base(c.argv[0]), strings.Join(c.argv[1:], " ")}, " "), func(t *testing.T) {
			exe := func(args ...string) (string, string, int) {
				cmd := exec.Command(c.argv[0], append(c.argv[1:], args...)...)
				cmd.Env = append(os.Environ(), "PATH="+path, "KUBECONFIG="+env.Kubeconfig)
				var out, errOut strings.Builder
				cmd.Stdout, cmd.Stderr = &out, &errOut
				err := cmd.Run()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				return out.String(), errOut.String(), code
			}
			out, errOut, code := exe("--help")
			if code != 0 || !strings.Contains(out, "\n  "+c.name+" [command]") {
				t.Errorf("--help: exit %d, no %q usage line:\n%s%s", code, c.name, out, errOut)
			}
			out, errOut, code = exe("inspect", "--kubeconfig", env.Kubeconfig)
			if code != ExitOK || !strings.Contains(out, "UpdateClaimedCompleteButMixed") || !strings.Contains(out, "KubeletNewerThanAPIServer") {
				t.Errorf("inspect: exit %d, stderr %q, output:\n%.1500s", code, errOut, out)
			}
			_, errOut, code = exe("inspect", "--no-such-flag")
			if code != ExitUsage || !strings.Contains(errOut, "(see '"+c.name+" --help')") {
				t.Errorf("bad flag: exit %d, stderr %q; want %d naming %q", code, errOut, ExitUsage, c.name)
			}
		})
	}
}

func runNamedCode(name string, args ...string) (int, string, string) {
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	code := runNamed(context.Background(), name, args, streams)
	return code, out.String(), errOut.String()
}
