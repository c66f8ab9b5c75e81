package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/inspect/mustgather"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/internal/testing/sigtest"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The release-not-accepted example: the CVO cannot verify 4.15.31.
const (
	unverifiedMG     = "../../examples/release-not-accepted/must-gather"
	unverifiedImage  = "quay.io/openshift-release-dev/ocp-release@sha256:604d8ea695dd6e18c934f5a0b079b7f21d5c18e6d57a4e5947cccd25dfb4a448"
	unverifiedDigest = "sha256:604d8ea695dd6e18c934f5a0b079b7f21d5c18e6d57a4e5947cccd25dfb4a448"
)

// TestPlanReleaseSignature: with a signature file and the release keyring,
// recover plan verifies the signature offline and plans the signature remedy:
// create the signature ConfigMap (create-only, binaryData sha256-<hex>-1 the
// file's bytes), then, after the CVO is restored, wait for it to accept the
// release; never --force. A signature by another key is refused with a
// one-line reason (exit 4) and no plan; a signature without a keyring is a
// usage error (exit 2).
func TestPlanReleaseSignature(t *testing.T) {
	dir := t.TempDir()
	release, other := sigtest.Key(t, "release"), sigtest.Key(t, "other")
	keyring := sigtest.Keyring(t, dir, release, true)
	good := filepath.Join(dir, "signature-1")
	sig := sigtest.Release(t, release, unverifiedDigest)
	if err := os.WriteFile(good, sig, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runRecover(t, "plan", "--must-gather", unverifiedMG, "--release-keyring", keyring, "--release-signature", good, "-o", "json")
	var p planfile.Plan
	if code != ExitOK || json.Unmarshal([]byte(out), &p) != nil {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var create, wait, restore = -1, -1, -1
	for i, s := range p.Steps {
		switch {
		case s.Action == planfile.ActionCreateReleaseSignature:
			create = i
		case s.Action == planfile.ActionRestoreCVO:
			restore = i
		case s.Gate != nil && s.Gate.Kind == planfile.GateReleaseAccepted:
			wait = i
		}
		if s.DesiredUpdate != nil && s.DesiredUpdate.Force {
			t.Errorf("step %s sets force", s.ID)
		}
	}
	// The CVO is updating (it waits for the release's signature) and keeps the
	// wheel: no restore-cvo; the release-accepted wait follows the signature.
	if p.Mode != planfile.ModeRemediation || create < 0 || restore >= 0 || wait < create || p.Steps[wait].Gate.Image != unverifiedImage {
		t.Fatalf("the plan's steps: create %d restore %d wait %d (mode %s)", create, restore, wait, p.Mode)
	}
	mf := p.Steps[create].Manifest
	var cm struct {
		Metadata struct {
			Name, Namespace string
			Labels          map[string]string
		}
		BinaryData map[string]string `json:"binaryData"`
	}
	if err := json.Unmarshal(mf.Object, &cm); err != nil {
		t.Fatal(err)
	}
	key := "sha256-604d8ea695dd6e18c934f5a0b079b7f21d5c18e6d57a4e5947cccd25dfb4a448-1"
	if _, ok := cm.Metadata.Labels[openshift.LabelVerificationSignatures]; !ok || cm.Metadata.Namespace != "openshift-config-managed" ||
		cm.BinaryData[key] != base64.StdEncoding.EncodeToString(sig) || !mf.CreateOnly {
		t.Fatalf("the signature ConfigMap: %s", mf.Object)
	}
	if len(p.Remediations) != 1 || p.Remediations[0].Remedy != planfile.RemedyReleaseSignature {
		t.Errorf("remediations %+v", p.Remediations)
	}

	bad := filepath.Join(dir, "signature-other")
	if err := os.WriteFile(bad, sigtest.Release(t, other, unverifiedDigest), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runRecover(t, "plan", "--must-gather", unverifiedMG, "--release-keyring", keyring, "--release-signature", bad, "-o", "json")
	if code != ExitBadInput || out != "" || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, "not supplying a signature for release") {
		t.Fatalf("a signature by another key: exit %d, stdout %q, stderr %q; want exit %d, one line, no plan", code, out, errOut, ExitBadInput)
	}
	code, _, errOut = runRecover(t, "plan", "--must-gather", unverifiedMG, "--release-signature", good)
	if code != ExitUsage || !strings.Contains(errOut, "--release-signature needs --release-keyring") {
		t.Fatalf("a signature without a keyring: exit %d %s", code, errOut)
	}
}

// TestTUIPlansTheSignatureRemedy: the TUI's remediation session takes
// --release-keyring and --release-signature as recover plan does (its
// validation used to allow them only with --graph and --payload), and plans
// through the same session: its plan is recover plan's, byte for byte. A
// re-plan of the re-read cluster verifies the signature for that snapshot; a
// signature by another key keeps the session from opening, with recover plan's
// one line and exit code.
func TestTUIPlansTheSignatureRemedy(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1590397200")
	dir := t.TempDir()
	release, other := sigtest.Key(t, "release"), sigtest.Key(t, "other")
	keyring := sigtest.Keyring(t, dir, release, true)
	good := filepath.Join(dir, "signature-1")
	if err := os.WriteFile(good, sigtest.Release(t, release, unverifiedDigest), 0o644); err != nil {
		t.Fatal(err)
	}
	code, want, errOut := runRecover(t, "plan", "--must-gather", unverifiedMG, "--release-keyring", keyring, "--release-signature", good, "-o", "json")
	if code != ExitOK {
		t.Fatalf("recover plan: exit %d: %s", code, errOut)
	}

	s, err := session(t, "--must-gather", unverifiedMG, "--release-keyring", keyring, "--release-signature", good)
	if err != nil {
		t.Fatal(err)
	}
	if s.Plan == nil || s.Replan == nil {
		t.Fatalf("the session has no plan: %v, hint %q", s.PlanErr, s.PlanHint)
	}
	var got strings.Builder
	if err := planfile.Encode(&got, s.Plan); err != nil {
		t.Fatal(err)
	}
	if got.String() != want {
		t.Errorf("the TUI's plan differs from recover plan's:\n%s\nwant\n%s", got.String(), want)
	}

	reread, err := mustgather.New(unverifiedMG).Collect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	reread.ClusterVersion.Spec.ClusterID = "reloaded"
	p, err := s.Replan(context.Background(), reread, s.Accepted)
	if err != nil {
		t.Fatalf("re-planning the re-read cluster: %v", err)
	}
	if p.Cluster.ClusterID != "reloaded" || !slices.ContainsFunc(p.Steps, func(st planfile.Step) bool { return st.Action == planfile.ActionCreateReleaseSignature }) {
		t.Errorf("the re-plan (cluster %q) lacks the signature remedy: %v", p.Cluster.ClusterID, p.Steps)
	}

	bad := filepath.Join(dir, "signature-other")
	if err := os.WriteFile(bad, sigtest.Release(t, other, unverifiedDigest), 0o644); err != nil {
		t.Fatal(err)
	}
	asTerminal(t)
	code, _, errOut = runRecover(t, "tui", "--must-gather", unverifiedMG, "--release-keyring", keyring, "--release-signature", bad)
	if last := strings.TrimSpace(errOut[strings.LastIndex(strings.TrimSuffix(errOut, "\n"), "\n")+1:]); code != ExitBadInput || !strings.Contains(last, "not supplying a signature for release") {
		t.Fatalf("a signature by another key: exit %d, last line %q; want exit %d", code, last, ExitBadInput)
	}
}
