package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/internal/testing/inputcheck"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
	"github.com/openshift-recover/recover/internal/testing/sigtest"
	"github.com/openshift-recover/recover/plan/planfile"
)

// target444 is the example plan's target release digest (4.4.4).
const target444 = "sha256:baa687f29b0ac155d8f4c6914056d36d68f343feb9c1e82b46eef95819d00be5"

// TestPlanVerifiesReleaseSignatures runs recover plan on the first incident with
// release keyrings and a signature store: a target signed by every keyring is
// recorded as verified with its keys, a target missing a keyring's signature
// stops the plan (exit 4, one line), and without a keyring the plan records that
// verification was skipped and why.
func TestPlanVerifiesReleaseSignatures(t *testing.T) {
	dir := t.TempDir()
	red, blue, stranger := sigtest.Key(t, "red"), sigtest.Key(t, "blue"), sigtest.Key(t, "stranger")
	redRing, blueRing := sigtest.Keyring(t, dir, red, true), sigtest.Keyring(t, dir, blue, false)
	signedByBoth := sigtest.Store(t, dir, target444, sigtest.Release(t, red, target444), sigtest.Release(t, blue, target444))
	signedByRed := sigtest.Store(t, dir, target444, sigtest.Release(t, red, target444))
	signedByStranger := sigtest.Store(t, dir, target444, sigtest.Release(t, stranger, target444))
	planWith := func(extra ...string) (int, *planfile.Plan, string) {
		args := append(append([]string{}, quickstart...), "-o", "json")
		code, out, errOut := runRecover(t, append(args, extra...)...)
		var p planfile.Plan
		if code == ExitOK {
			if err := json.Unmarshal([]byte(out), &p); err != nil {
				t.Fatalf("plan JSON: %v", err)
			}
		}
		return code, &p, errOut
	}

	code, p, errOut := planWith("--release-keyring", redRing, "--release-keyring", blueRing, "--signature-store", signedByBoth)
	if code != ExitOK {
		t.Fatalf("signed by both: exit %d: %s", code, errOut)
	}
	if v := p.Inputs.SignatureVerification; !strings.HasPrefix(v, "verified: "+target444) || !strings.Contains(v, redRing) || !strings.Contains(v, blueRing) {
		t.Errorf("the plan must record the verification and its keys: %q", v)
	}

	for name, args := range map[string][]string{
		"one keyring missing": {"--release-keyring", redRing, "--release-keyring", blueRing, "--signature-store", signedByRed},
		"unknown signer":      {"--release-keyring", redRing, "--signature-store", signedByStranger},
		"no signatures":       {"--release-keyring", redRing, "--signature-store", "file://" + sigtest.Store(t, dir, target444)},
		"keyring unreadable":  {"--release-keyring", filepath.Join(dir, "nope.gpg"), "--signature-store", signedByBoth},
	} {
		code, _, errOut := planWith(args...)
		line := strings.TrimSuffix(errOut, "\n")
		if code != ExitBadInput || strings.Contains(line, "\n") || inputcheck.LineProblem(line) != "" {
			t.Errorf("%s: exit %d (want %d) with one line, got %q", name, code, ExitBadInput, errOut)
		}
	}

	code, p, errOut = planWith()
	if code != ExitOK || !strings.HasPrefix(p.Inputs.SignatureVerification, "skipped: no --release-keyring given") {
		t.Errorf("no keyring: exit %d %s; the plan must say verification was skipped and why: %q", code, errOut, p.Inputs.SignatureVerification)
	}
}

// secretMarker is a token no output may ever contain.
const secretMarker = "MARKER-TOKEN-3f9c2a7e51d04b86"

// TestTokensAndKubeconfigsAreNeverPrinted runs commands that talk to a cluster
// with credentials carrying a marker: a kubeconfig whose token the API server
// refuses, a kubeconfig that does not parse, --token, and a server that does not
// answer. No output stream may contain the marker.
func TestTokensAndKubeconfigsAreNeverPrinted(t *testing.T) {
	env := apiServer(t, kubetest.Options{})
	dir := t.TempDir()
	kubeconfig := func(name, server, extra string) string {
		return write(t, dir, name, []byte(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "`+server+`", insecure-skip-tls-verify: true}
users:
- name: u
  user: {token: "`+secretMarker+`"`+extra+`}
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
`))
	}
	refused := kubeconfig("refused", env.Config.Host, "")
	unreachable := kubeconfig("unreachable", "https://127.0.0.1:1", "")
	broken := kubeconfig("broken", env.Config.Host, ", password: [unterminated")
	planPath := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(planPath, planJSON(t, nil), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"inspect", "--kubeconfig", refused},
		{"inspect", "--kubeconfig", unreachable},
		{"inspect", "--kubeconfig", broken},
		{"inspect", "--server", env.Config.Host, "--insecure-skip-tls-verify", "--token", secretMarker},
		{"inspect", "--kubeconfig", refused, "-o", "json"},
		{"apply", "--kubeconfig", refused, "--plan", planPath, "--yes", "--i-have-a-backup", "--journal", filepath.Join(dir, "j1.journal")},
		{"apply", "--kubeconfig", refused, "--plan", planPath, "--dry-run", "--events", "json"},
		{"apply", "--kubeconfig", broken, "--plan", planPath, "--yes", "--i-have-a-backup", "--journal", filepath.Join(dir, "j2.journal")},
		{"apply", "--server", env.Config.Host, "--insecure-skip-tls-verify", "--token", secretMarker, "--plan", planPath, "--yes", "--i-have-a-backup", "--journal", filepath.Join(dir, "j3.journal")},
	} {
		code, out, errOut := runRecover(t, args...)
		if code == ExitOK {
			t.Errorf("%v: exit 0 with refused credentials", args)
		}
		if strings.Contains(out+errOut, secretMarker) {
			t.Errorf("%v printed the token: stdout %q stderr %q", args, out, errOut)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".journal") {
			continue
		}
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		if strings.Contains(string(data), secretMarker) {
			t.Errorf("journal %s holds the token", e.Name())
		}
	}
}

// TestPulledPayloadsArePrivateAndVerified pulls a release image through the CLI
// into a new cache directory: every directory recover creates is 0700 and every
// file 0600, and so are the parents it creates. (A registry serving other content
// under the digest is refused: TestBadPayloadImages.)
func TestPulledPayloadsArePrivateAndVerified(t *testing.T) {
	img := imageOf(t, [][2]string{
		{"release-manifests/release-metadata", string(readExample(t, "releases/4.4.4/release-manifests/release-metadata"))},
		{"release-manifests/image-references", string(readExample(t, "releases/4.4.4/release-manifests/image-references"))},
		{"manifests/0000_00_cluster-version-operator_00_namespace.yaml", string(readExample(t, "releases/4.4.4/manifests/0000_00_cluster-version-operator_00_namespace.yaml"))},
		{"release-manifests/0000_50_x-operator_00_ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n  annotations: {include.release.openshift.io/self-managed-high-availability: 'true'}\n"},
	})
	host, digest := registryImage(t, img, nil)
	cache := filepath.Join(t.TempDir(), "a", "b", "cache")
	if code, _, errOut := runRecover(t, "payload", "--payload", host+"/ocp/release@"+digest.String(), "--payload-cache-dir", cache); code != ExitOK {
		t.Fatalf("pull: exit %d: %s", code, errOut)
	}
	n := 0
	err := filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		want := os.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, info.Mode().Perm(), want)
		}
		n++
		return nil
	})
	if err != nil || n < 5 {
		t.Fatalf("walked %d entries: %v", n, err)
	}
	for _, d := range []string{filepath.Dir(cache), filepath.Dir(filepath.Dir(cache))} {
		if st, err := os.Stat(d); err != nil || st.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s, created for the cache, is open to others: %v", d, st.Mode().Perm())
		}
	}
}
