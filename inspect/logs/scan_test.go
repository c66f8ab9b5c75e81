package logs

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
)

// fixtureFile returns a fixture's log file record.
func fixtureFile(name, family string) inspect.LogFile {
	ns, pod, container := openshift.CVONamespace, "cluster-version-operator-5d8b9c7f6-abcde", openshift.CVOContainer
	switch family {
	case inspect.LogFamilyMachineConfigDaemon:
		ns, pod, container = openshift.MachineConfigDaemonNamespace, "machine-config-daemon-x7q2p", openshift.MachineConfigDaemonContainer
	case inspect.LogFamilyMachineConfigController:
		ns, pod, container = openshift.MachineConfigDaemonNamespace, "machine-config-controller-6f9c8d7b5-q2w3e", openshift.MachineConfigControllerContainer
	case inspect.LogFamilyInstaller:
		ns, pod, container = "openshift-kube-apiserver", "installer-8-master-1", openshift.InstallerContainer
	case inspect.LogFamilyMachineApprover:
		ns, pod, container = openshift.MachineApproverNamespace, "machine-approver-7c5d8b9f4-hh2k8", openshift.MachineApproverContainer
	}
	return inspect.LogFile{Path: "testdata/" + name, Namespace: ns, Pod: pod, Container: container, Family: family}
}

// withStamps prefixes every line with the RFC 3339 time `oc adm inspect`
// writes: the klog header's time in the given year (continuation lines get the
// previous line's).
func withStamps(data []byte, year int) []byte {
	var out bytes.Buffer
	stamp := fmt.Sprintf("%d-01-01T00:00:00.000000000Z", year)
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if t := split(line).time(); !t.IsZero() {
			stamp = time.Date(year, t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond()+123, time.UTC).Format(time.RFC3339Nano)
		}
		out.WriteString(stamp + " ")
		out.Write(line)
	}
	return out.Bytes()
}

func scanFixture(t *testing.T, name, family string, stamped bool) (inspect.LogFile, []inspect.LogEntry) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if stamped {
		data = withStamps(data, 2020)
	}
	f, entries, err := Scan(context.Background(), bytes.NewReader(data), fixtureFile(name, family), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return f, entries
}

// want is one entry a fixture must yield: its kind, the fields it must carry and
// how often it occurred.
type want struct {
	kind   string
	fields map[string]string
	count  int
}

func (w want) matches(e inspect.LogEntry) bool {
	if e.Kind != w.kind || (w.count != 0 && e.Count != w.count) {
		return false
	}
	for k, v := range w.fields {
		if e.Fields[k] != v {
			return false
		}
	}
	return true
}

const seedPayload = "quay.io/openshift-release-dev/ocp-release@sha256:039a4ef7c128a049ccf916a1d68ce93e8f5494b44d5a75df60c85e9e7191dacc"

// TestParsers: every fixture, modelled on the component's real lines, yields the
// entries that matter and not the ones that do not, with and without the RFC
// 3339 prefix oc adm inspect writes.
func TestParsers(t *testing.T) {
	for _, tc := range []struct {
		file, family string
		want         []want
		not          []string // kinds that must not appear
	}{
		{"cvo-bz1838497.log", inspect.LogFamilyCVO, []want{
			{inspect.LogKindCVOVersion, map[string]string{"version": "v4.3.19-202005041055-dirty", "build": "202005041055"}, 1},
			{inspect.LogKindCVOSync, map[string]string{"payload": seedPayload, "force": "true", "generation": "2", "state": "Updating", "attempt": "0"}, 1},
			{inspect.LogKindCVOSync, map[string]string{"payload": seedPayload, "generation": "2", "state": "Reconciling"}, 3},
			{inspect.LogKindCVOSignature, nil, 2},
			{inspect.LogKindCVOPayloadLoaded, map[string]string{"payload": seedPayload, "hash": "h110xMINmng="}, 1},
			{inspect.LogKindCVOResult, map[string]string{"ok": "false", "how": "cancelled", "done": "0", "total": "573"}, 1},
			{inspect.LogKindCVOResult, map[string]string{"ok": "true"}, 2},
			{inspect.LogKindCVOContextErrors, map[string]string{"wording": "cancellation"}, 1},
			{inspect.LogKindCVOAbandonedUpdate, map[string]string{"payload": seedPayload, "generation": "2", "done": "0", "total": "573", "how": "cancelled", "wording": "cancellation"}, 1},
			{inspect.LogKindCVOApplyError, map[string]string{"task": `clusteroperator "kube-apiserver"`, "index": "99", "total": "573"}, 1},
		}, nil},
		{"cvo-clean.log", inspect.LogFamilyCVO, []want{
			{inspect.LogKindCVOSync, map[string]string{"generation": "4", "state": "Updating"}, 1},
			{inspect.LogKindCVOSync, map[string]string{"generation": "4", "state": "Reconciling"}, 1},
		}, []string{inspect.LogKindCVOAbandonedUpdate, inspect.LogKindCVOContextErrors, inspect.LogKindCVOApplyError}},
		{"cvo-fixed.log", inspect.LogFamilyCVO, []want{
			{inspect.LogKindCVOResult, map[string]string{"how": "timed out", "done": "0", "total": "578"}, 1},
			{inspect.LogKindCVOContextErrors, map[string]string{"wording": "context"}, 1},
			{inspect.LogKindCVOSync, map[string]string{"payload": "4.4.8", "state": "Updating"}, 2},
		}, []string{inspect.LogKindCVOAbandonedUpdate}},
		{"cvo-retry.log", inspect.LogFamilyCVO, []want{
			{inspect.LogKindCVOSync, map[string]string{"payload": "4.12.3", "generation": "7", "state": "Updating", "attempt": "0"}, 1},
			{inspect.LogKindCVOApplyError, map[string]string{"task": `clusteroperator "kube-apiserver"`, "index": "99", "total": "778", "error": "Cluster operator kube-apiserver is updating versions"}, 3},
			{inspect.LogKindCVOResult, map[string]string{"ok": "false"}, 1},
			{inspect.LogKindCVOPrecondition, map[string]string{"precondition": "ClusterVersionUpgradeable", "reason": "AdminAckRequired"}, 1},
			{inspect.LogKindCVORetrieval, map[string]string{"version": "4.13.0"}, 1},
		}, []string{inspect.LogKindCVOAbandonedUpdate}},
		{"mcd-drain-pdb.log", inspect.LogFamilyMachineConfigDaemon, []want{
			{inspect.LogKindEvictionRefused, map[string]string{"pod": "web-6d5f7c9b8-x2x9q", "namespace": "shop", "budget": "true", "error": openshift.EvictionRefused}, 3},
			{inspect.LogKindEvictionRefused, map[string]string{"pod": "web-6d5f7c9b8-x2x9q", "namespace": "shop", "budget": "false"}, 1},
			{inspect.LogKindNodeDegraded, map[string]string{"reason": "failed to drain node : worker-1 after 1 hour"}, 1},
		}, []string{inspect.LogKindDrainTimeout}},
		{"mcc-drain.log", inspect.LogFamilyMachineConfigController, []want{
			{inspect.LogKindEvictionRefused, map[string]string{"pod": "db-0", "namespace": "payments", "node": "worker-2", "budget": "true"}, 2},
			{inspect.LogKindDrainTimeout, map[string]string{"node": "worker-2", "timeout": "1h0m0s"}, 1},
		}, []string{inspect.LogKindNodeDegraded}},
		{"mcd-degraded.log", inspect.LogFamilyMachineConfigDaemon, []want{
			{inspect.LogKindNodeDegraded, map[string]string{"reason": `unexpected on-disk state validating against rendered-worker-5d1: expected target osImageURL "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:aaaa", have "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:bbbb"`}, 2},
		}, nil},
		{"installer-complete.log", inspect.LogFamilyInstaller, []want{
			{inspect.LogKindInstallerManifest, map[string]string{"manifest": "/etc/kubernetes/manifests/kube-apiserver-pod.yaml"}, 1},
			{inspect.LogKindInstallerEnd, map[string]string{"wroteManifest": "true", "sigterm": "false"}, 1},
		}, []string{inspect.LogKindInstallerSIGTERM}},
		{"installer-interrupted.log", inspect.LogFamilyInstaller, []want{
			{inspect.LogKindInstallerEnd, map[string]string{"wroteManifest": "false", "sigterm": "false"}, 1},
		}, []string{inspect.LogKindInstallerManifest}},
		{"installer-sigterm.log", inspect.LogFamilyInstaller, []want{
			{inspect.LogKindInstallerSIGTERM, nil, 1},
			{inspect.LogKindInstallerEnd, map[string]string{"wroteManifest": "false", "sigterm": "true"}, 1},
		}, nil},
		{"approver-old.log", inspect.LogFamilyMachineApprover, []want{
			{inspect.LogKindCSRNotAuthorized, map[string]string{"csr": "csr-8vx2k", "reason": `No target machine for node "worker-3"`}, 2},
		}, nil},
		{"approver-new.log", inspect.LogFamilyMachineApprover, []want{
			{inspect.LogKindCSRNotAuthorized, map[string]string{"csr": "csr-2lqdz", "reason": "failed to find machine with InternalDNS matching worker-7, cannot approve"}, 1},
		}, nil},
	} {
		for _, stamped := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stamped=%t", tc.file, stamped), func(t *testing.T) {
				f, entries := scanFixture(t, tc.file, tc.family, stamped)
				for _, w := range tc.want {
					found := false
					for _, e := range entries {
						if w.matches(e) {
							found = true
							if e.Text == "" || e.Source == "" || e.Time.IsZero() {
								t.Errorf("%s entry without text, source or time: %+v", w.kind, e)
							}
							if stamped == inspect.LogYearUnknown(e.Time) {
								t.Errorf("%s entry: stamped=%t but its year is %d", w.kind, stamped, e.Time.Year())
							}
						}
					}
					if !found {
						t.Errorf("no %s entry with %v (count %d); got:\n%s", w.kind, w.fields, w.count, dump(entries))
					}
				}
				for _, k := range tc.not {
					for _, e := range entries {
						if e.Kind == k {
							t.Errorf("unexpected %s entry: %+v", k, e)
						}
					}
				}
				if f.Lines == 0 || f.Bytes == 0 || f.First.IsZero() || f.Last.IsZero() || f.LastLine == nil || f.Partial != "" {
					t.Errorf("file record incomplete: %+v", f)
				}
			})
		}
	}
}

func dump(entries []inspect.LogEntry) string {
	var b strings.Builder
	for _, e := range entries {
		fmt.Fprintf(&b, "  %s x%d %v  %s\n", e.Kind, e.Count, e.Fields, e.Source)
	}
	return b.String()
}

// TestAbandonedUpdateProof: the BZ1838497 entry names the Updating sync, its
// Result of work, the cancellation summary and the Reconciling sync, in order.
func TestAbandonedUpdateProof(t *testing.T) {
	_, entries := scanFixture(t, "cvo-bz1838497.log", inspect.LogFamilyCVO, false)
	var e *inspect.LogEntry
	for i := range entries {
		if entries[i].Kind == inspect.LogKindCVOAbandonedUpdate {
			e = &entries[i]
		}
	}
	if e == nil {
		t.Fatal("no abandoned update")
	}
	wantLines := []string{":5", ":12", ":13", ":15"}
	if len(e.Proof) != len(wantLines) {
		t.Fatalf("proof has %d lines, want %d: %+v", len(e.Proof), len(wantLines), e.Proof)
	}
	for i, w := range wantLines {
		if !strings.HasSuffix(e.Proof[i].Source, w) {
			t.Errorf("proof line %d is %s, want line %s", i, e.Proof[i].Source, w)
		}
	}
	if !strings.Contains(e.Proof[1].Text, "update was cancelled at 0 of 573") || !strings.Contains(e.Proof[3].Text, "in state Reconciling") {
		t.Errorf("proof texts: %+v", e.Proof)
	}
	if e.Source != e.Proof[0].Source {
		t.Errorf("the entry starts at %s, not at the Updating sync %s", e.Source, e.Proof[0].Source)
	}
}

// TestScanBounds: a line longer than the line limit is cut and the next line is
// still read; a log longer than the byte limit is marked partial; a log with
// more distinct entries than the limit counts the rest.
func TestScanBounds(t *testing.T) {
	long := "I0101 00:00:00.000000       1 x.go:1] " + strings.Repeat("x", 200<<10) + "\n"
	next := "I0101 00:00:01.000000       1 sync_worker.go:471] Running sync 4.4.3 (force=false) on generation 1 in state Updating at attempt 0\n"
	f, entries, err := Scan(context.Background(), strings.NewReader(long+next), fixtureFile("x", inspect.LogFamilyCVO), Limits{MaxLineBytes: 4096})
	if err != nil || f.Lines != 2 || len(entries) != 1 || entries[0].Kind != inspect.LogKindCVOSync {
		t.Fatalf("long line: %v lines=%d entries=%s", err, f.Lines, dump(entries))
	}
	var b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&b, "E0101 00:00:%02d.000000       1 task.go:1] error running apply for configmap \"ns/cm-%d\" (%d of 100): boom\n", i%60, i, i)
	}
	f, entries, err = Scan(context.Background(), strings.NewReader(b.String()), fixtureFile("x", inspect.LogFamilyCVO), Limits{MaxEntries: 10, MaxBytes: int64(b.Len() / 2)})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 10 || f.Omitted == 0 || f.Partial == "" || f.Bytes != int64(b.Len()/2) {
		t.Fatalf("bounds: entries=%d omitted=%d partial=%q bytes=%d", len(entries), f.Omitted, f.Partial, f.Bytes)
	}
}

// TestTextIsSafe: a message with control characters and invalid UTF-8 is kept
// printable and short.
func TestTextIsSafe(t *testing.T) {
	got := Text([]byte("evil \x1b[2J\xff" + strings.Repeat("é", 400)))
	if strings.ContainsAny(got, "\x1b") || len(got) > inspect.MaxLogText || !strings.HasSuffix(got, "...") || !strings.Contains(got, "?[2J?") {
		t.Fatalf("Text = %q", got)
	}
}

func TestFamilyOf(t *testing.T) {
	for _, tc := range []struct{ ns, pod, container, want string }{
		{openshift.CVONamespace, "cluster-version-operator-x", openshift.CVOContainer, inspect.LogFamilyCVO},
		{openshift.MachineConfigDaemonNamespace, "machine-config-daemon-x", openshift.MachineConfigDaemonContainer, inspect.LogFamilyMachineConfigDaemon},
		{openshift.MachineConfigDaemonNamespace, "machine-config-daemon-x", "oauth-proxy", ""},
		{"openshift-etcd", "installer-3-master-0", openshift.InstallerContainer, inspect.LogFamilyInstaller},
		{"openshift-etcd", "etcd-master-0", "etcd", ""},
		{"shop", "installer-3-x", openshift.InstallerContainer, ""},
	} {
		if got := FamilyOf(tc.ns, tc.pod, tc.container); got != tc.want {
			t.Errorf("FamilyOf(%s, %s, %s) = %q, want %q", tc.ns, tc.pod, tc.container, got, tc.want)
		}
	}
}
