package mustgather

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/internal/archive"
)

const (
	example1 = "../../examples/reconciled-4.3-to-4.4/must-gather"
	example2 = "../../examples/false-success-revision/must-gather"
)

func collect(t *testing.T, src inspect.Source) *inspect.Snapshot {
	t.Helper()
	s, err := src.Collect(t.Context())
	if err != nil {
		t.Fatalf("Collect: %v", err)
	}
	return s
}

func has(s *inspect.Snapshot, code, subject string) bool {
	for _, f := range s.FindingsWithCode(code) {
		if subject == "" || f.Subject == subject {
			return true
		}
	}
	return false
}

func TestExampleIncidents(t *testing.T) {
	for _, tc := range []struct {
		path     string
		want     []string // code@subject
		wantNot  []string
		mode     inspect.CVOMode
		nodes    int
		operator int
	}{
		{example1,
			[]string{"UpdateClaimedCompleteButMixed@clusterversion/version", "MixedOperatorVersions@clusteroperators", "KubeletNewerThanAPIServer@node/master-0",
				"ForcedUpdate@clusterversion/version", "UnverifiedUpdate@clusterversion/version", "PoolUpdating@machineconfigpool/master"},
			[]string{"StaticPodRevisionMismatch", "InstallerSucceededWithoutRevision", "UpdateInProgress"},
			inspect.ModeReconciling, 5, 11},
		{example2,
			[]string{"StaticPodRevisionMismatch@node/master-2", "InstallerSucceededWithoutRevision@node/master-2", "UpdateInProgress@clusterversion/version"},
			[]string{"UpdateClaimedCompleteButMixed", "KubeletNewerThanAPIServer", "ForcedUpdate"},
			inspect.ModeUpdating, 5, 11},
	} {
		t.Run(filepath.Base(filepath.Dir(tc.path)), func(t *testing.T) {
			s := collect(t, New(tc.path))
			for _, w := range tc.want {
				code, subject, _ := strings.Cut(w, "@")
				if !has(s, code, subject) {
					t.Errorf("missing %s", w)
				}
			}
			for _, code := range tc.wantNot {
				if has(s, code, "") {
					t.Errorf("unexpected %s: %+v", code, s.FindingsWithCode(code))
				}
			}
			if s.CVOMode() != tc.mode || len(s.Nodes) != tc.nodes || len(s.ClusterOperators) != tc.operator {
				t.Errorf("mode %s nodes %d operators %d", s.CVOMode(), len(s.Nodes), len(s.ClusterOperators))
			}
			if s.Source.CollectedAtFrom != "timestamp file timestamp" || s.Source.CollectedAt.IsZero() {
				t.Errorf("collection time not taken from the timestamp file: %+v", s.Source)
			}
			// The examples were gathered before recover read the wedge facts:
			// those are not collected (but for what nothing needs), the rest is.
			wedge := map[string]bool{}
			for _, w := range inspect.WedgeResources() {
				wedge[w.Key()] = true
			}
			for _, r := range s.Resources {
				notNeeded := strings.HasPrefix(r.Reason, inspect.ReasonNotNeeded)
				if want := inspect.Collected; (wedge[r.Key()] && !notNeeded && r.State != inspect.Absent) || (!wedge[r.Key()] && r.State != want) || len(r.From) == 0 {
					t.Errorf("example must-gather: %s %s from %v", r.Key(), r.State, r.From)
				}
			}
			for _, f := range s.FindingsWithCode(inspect.CodeNotCollected) {
				if f.Subject != "resources/wedge-facts" && !wedge[strings.TrimPrefix(f.Subject, "resource/")] {
					t.Errorf("NotCollected for a resource the example holds: %s", f.Subject)
				}
			}
		})
	}
}

func TestPartialMustGather(t *testing.T) {
	s := collect(t, New("testdata/partial"))
	// Root found below two single-child wrapper levels; list files and per-pod files read.
	if len(s.ClusterOperators) != 11 || len(s.Nodes) != 5 || s.ClusterVersion == nil {
		t.Fatalf("partial must-gather: %d operators, %d nodes, cv %v", len(s.ClusterOperators), len(s.Nodes), s.ClusterVersion != nil)
	}
	if s.Source.CollectedAtFrom != "timestamp file must-gather.local.5287/timestamp" {
		t.Errorf("timestamp of the parent directory not used: %q", s.Source.CollectedAtFrom)
	}
	states := map[string]inspect.CollectionState{}
	for _, r := range s.Resources {
		states[r.Key()] = r.State
	}
	for key, want := range map[string]inspect.CollectionState{
		"clusterversions.config.openshift.io":                  inspect.Collected,
		"pods/openshift-kube-apiserver":                        inspect.Collected,
		"pods/openshift-etcd":                                  inspect.Absent,
		"kubeapiservers.operator.openshift.io":                 inspect.Absent,
		"machineconfigpools.machineconfiguration.openshift.io": inspect.Absent,
		"deployments.apps":                                     inspect.Absent,
		"deployments.apps/openshift-cluster-version":           inspect.Absent,
	} {
		if states[key] != want {
			t.Errorf("%s: state %q, want %q", key, states[key], want)
		}
	}
	for _, subject := range []string{"resource/kubeapiservers.operator.openshift.io", "resource/deployments.apps/openshift-cluster-version", "resource/pods/openshift-etcd"} {
		if !has(s, inspect.CodeNotCollected, subject) {
			t.Errorf("no NotCollected finding for %s", subject)
		}
	}
	// The installer's lie is visible from the pods alone; without the operator CR the
	// revision claim cannot be checked, and without Deployments no CVO verdict is made.
	if !has(s, inspect.CodeInstallerSucceededWithoutRevision, "node/master-2") {
		t.Error("InstallerSucceededWithoutRevision not found from per-pod files")
	}
	if has(s, inspect.CodeStaticPodRevisionMismatch, "") || has(s, inspect.CodeCVODisabled, "") {
		t.Errorf("findings from data that was not collected: %+v", s.Findings)
	}
}

func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, path string
		want       []string
	}{
		{"missing path", "testdata/no-such-dir", []string{"testdata/no-such-dir", "no such file"}},
		{"not a must-gather", "testdata/partial/must-gather.local.5287/event-filter.html", []string{"event-filter.html", "not a tar"}},
		{"no must-gather inside", notMustGather(t), []string{"not a must-gather", "oc adm must-gather"}},
		{"corrupt YAML names file and line", "testdata/corrupt", []string{"clusterversions/version.yaml:7:", "malformed YAML"}},
		{"wrong kind", "testdata/wrongkind", []string{"nodes/master-0.yaml", "expected a Node", `"Pod"`}},
		{"bad field type", "testdata/badfield", []string{"machineconfigpools/master.yaml", "invalid MachineConfigPool", "paused"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.path).Collect(t.Context())
			assertInputError(t, err, tc.want...)
		})
	}
}

func notMustGather(t *testing.T) string {
	dir := t.TempDir()
	for _, d := range []string{"a/logs", "b"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func assertInputError(t *testing.T, err error, want ...string) {
	t.Helper()
	var ie *inspect.InputError
	if err == nil || !errors.As(err, &ie) || !ie.BadInput() {
		t.Fatalf("want an InputError, got %v", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("error is not one line: %q", msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not mention %q", msg, w)
		}
	}
}

type entry struct {
	name, link string
	typ        byte
	body       string
	size       int64
}

func writeTar(t *testing.T, gz bool, entries []entry) string {
	t.Helper()
	var buf bytes.Buffer
	var w *tar.Writer
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(&buf)
		w = tar.NewWriter(zw)
	} else {
		w = tar.NewWriter(&buf)
	}
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Linkname: e.link, Typeflag: e.typ, Mode: 0o644, Size: int64(len(e.body)), ModTime: time.Unix(1590339720, 0)}
		if e.typ == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Typeflag != tar.TypeReg {
			h.Size = 0
		}
		if e.size > 0 {
			h.Size = e.size
		}
		if err := w.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			body := []byte(e.body)
			if e.size > 0 {
				body = make([]byte, e.size)
			}
			if _, err := w.Write(body); err != nil {
				t.Fatal(err)
			}
		}
	}
	w.Close()
	if zw != nil {
		zw.Close()
	}
	p := filepath.Join(t.TempDir(), "mg.tar.gz")
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// tarOf archives a directory under a wrapper directory, as must-gather archives are.
func tarOf(t *testing.T, dir string, gz bool) string {
	t.Helper()
	var entries []entry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		entries = append(entries, entry{name: "must-gather.local.42/quay-io-image/" + filepath.ToSlash(rel), body: string(data)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	entries = append(entries, entry{name: "must-gather.local.42/quay-io-image/namespaces/openshift-etcd/pods/etcd-master-0/etcd/etcd/logs/current.log", body: strings.Repeat("log line\n", 1000)})
	return writeTar(t, gz, entries)
}

func TestArchiveMatchesDirectory(t *testing.T) {
	dir := collect(t, New(example1))
	for _, gz := range []bool{true, false} {
		s := collect(t, New(tarOf(t, example1, gz)))
		if s.Fingerprint() != dir.Fingerprint() || len(s.Findings) != len(dir.Findings) {
			t.Errorf("gzip=%t: archive gives %s with %d findings, directory %s with %d", gz, s.Fingerprint(), len(s.Findings), dir.Fingerprint(), len(dir.Findings))
		}
	}
}

func TestHostileArchivesAreRefused(t *testing.T) {
	cv := "cluster-scoped-resources/config.openshift.io/clusterversions/version.yaml"
	ok := entry{name: "mg/" + cv, body: "kind: ClusterVersion\nmetadata: {name: version}\n"}
	for _, tc := range []struct {
		name    string
		entries []entry
		limits  archive.Limits
		want    string
	}{
		{"dot-dot path", []entry{ok, {name: "mg/../../etc/passwd", body: "x"}}, archive.Limits{}, "escapes the archive root"},
		{"absolute path", []entry{{name: "/etc/cron.d/evil", body: "x"}, ok}, archive.Limits{}, "absolute path"},
		{"symlink out", []entry{ok, {name: "mg/cluster-scoped-resources/core/nodes", typ: tar.TypeSymlink, link: "../../../../../etc"}}, archive.Limits{}, "symlink"},
		{"absolute symlink", []entry{ok, {name: "mg/x", typ: tar.TypeSymlink, link: "/etc/passwd"}}, archive.Limits{}, "outside the archive"},
		{"hard link out", []entry{ok, {name: "mg/y", typ: tar.TypeLink, link: "../outside"}}, archive.Limits{}, "hard link"},
		{"file too large", []entry{{name: "mg/" + cv, size: 4096}}, archive.Limits{MaxFileBytes: 1024, MaxKeptBytes: 1 << 20, MaxArchiveBytes: 1 << 20, MaxEntries: 10}, "more than the 1 KiB allowed"},
		{"archive too large", []entry{ok, {name: "mg/logs/huge.log", size: 8192}}, archive.Limits{MaxFileBytes: 1 << 20, MaxKeptBytes: 1 << 20, MaxArchiveBytes: 4096, MaxEntries: 10}, "expands to more than"},
		{"too many entries", []entry{ok, ok, ok}, archive.Limits{MaxFileBytes: 1 << 20, MaxKeptBytes: 1 << 20, MaxArchiveBytes: 1 << 20, MaxEntries: 2}, "more than 2 entries"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeTar(t, true, tc.entries)
			_, err := (&Source{Path: p, Limits: tc.limits}).Collect(t.Context())
			assertInputError(t, err, "mg.tar.gz", tc.want)
		})
	}
}

func TestInArchiveSymlinkIsIgnored(t *testing.T) {
	cv, err := os.ReadFile(filepath.Join(example2, "cluster-scoped-resources/config.openshift.io/clusterversions/version.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p := writeTar(t, true, []entry{
		{name: "mg/cluster-scoped-resources/config.openshift.io/clusterversions/version.yaml", body: string(cv)},
		{name: "mg/cluster-scoped-resources/config.openshift.io/clusterversions/alias.yaml", typ: tar.TypeSymlink, link: "version.yaml"},
	})
	s := collect(t, New(p))
	if s.ClusterVersion == nil || s.ClusterVersion.Status.Desired.Version != "4.4.4" {
		t.Fatalf("ClusterVersion not read from the archive: %+v", s.ClusterVersion)
	}
}

func TestParseTimestamp(t *testing.T) {
	got, ok := parseTimestamp("2020-05-24 17:02:00.104523611 +0000 UTC m=+0.104523611\n2020-05-24 17:02:31.873225147 +0000 UTC m=+31.8\n")
	if !ok || !got.Equal(time.Date(2020, 5, 24, 17, 2, 31, 873225147, time.UTC)) {
		t.Fatalf("parseTimestamp = %v %t", got, ok)
	}
	if _, ok := parseTimestamp("yesterday"); ok {
		t.Fatal("garbage parsed as a time")
	}
}

// A directory must-gather is read as a confined tree: a file that is a symlink to
// something outside it (a kubeconfig, say) is refused, not followed, as archives
// refuse such links; a link inside the tree still works.
func TestDirectorySymlinkOutOfTheTreeIsRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mg")
	if err := os.CopyFS(dir, os.DirFS(example1)); err != nil {
		t.Fatal(err)
	}
	cv := filepath.Join(dir, "cluster-scoped-resources", "config.openshift.io", "clusterversions", "version.yaml")
	data, err := os.ReadFile(cv)
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "elsewhere.yaml")
	if err := os.WriteFile(outside, data, 0o600); err != nil {
		t.Fatal(err)
	}
	inside := filepath.Join(dir, "version-copy.yaml")
	if err := os.WriteFile(inside, data, 0o600); err != nil {
		t.Fatal(err)
	}

	if err := os.Remove(cv); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "..", "..", "version-copy.yaml"), cv); err != nil {
		t.Fatal(err)
	}
	if s := collect(t, New(dir)); s.ClusterVersion == nil {
		t.Fatalf("a symlink inside the tree must still be read")
	}

	if err := os.Remove(cv); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, cv); err != nil {
		t.Fatal(err)
	}
	s, err := New(dir).Collect(t.Context())
	if err == nil && s.ClusterVersion != nil {
		t.Fatalf("a symlink out of the tree was followed: ClusterVersion %s read from %s", s.ClusterVersion.Status.Desired.Version, outside)
	}
	if err != nil {
		assertInputError(t, err, "version.yaml")
	}
}
