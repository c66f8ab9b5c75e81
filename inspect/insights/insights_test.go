package insights

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/testing/shareddata"
)

func subjects(s *inspect.Snapshot, code string) []string {
	var out []string
	for _, f := range s.FindingsWithCode(code) {
		out = append(out, f.Subject)
	}
	sort.Strings(out)
	return out
}

func TestFixtureArchive(t *testing.T) {
	dir := "testdata/archive"
	tgz := tarGz(t, dir, "insights-operator/")
	for _, p := range []string{dir, tgz} {
		s, err := New(p).Collect(t.Context())
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if s.ClusterVersion == nil || len(s.ClusterOperators) != 2 || len(s.Nodes) != 1 || s.Nodes[0].KubeletVersion != "v1.18.3" {
			t.Fatalf("%s: cv %v, %d operators, nodes %+v", p, s.ClusterVersion != nil, len(s.ClusterOperators), s.Nodes)
		}
		for code, want := range map[string]string{
			inspect.CodeUpdateInProgress:          "clusterversion/version",
			inspect.CodeOperatorDegraded:          "clusteroperator/kube-apiserver",
			inspect.CodeMixedOperatorVersions:     "clusteroperators",
			inspect.CodeKubeletNewerThanAPIServer: "node/master-0",
			inspect.CodeNotCollected:              "resource/deployments.apps",
		} {
			got := subjects(s, code)
			found := false
			for _, g := range got {
				found = found || g == want
			}
			if !found {
				t.Errorf("%s: want %s on %s, got %v", p, code, want, got)
			}
		}
		// The claim-only kube-apiserver version is labelled as such.
		if k, ok := s.OldestKubeAPIServer(); !ok || k.Version != "1.17.1" || k.Verified {
			t.Errorf("%s: oldest kube-apiserver %+v %t", p, k, ok)
		}
	}
}

func TestCorruptArchive(t *testing.T) {
	_, err := New("testdata/corrupt").Collect(t.Context())
	var ie *inspect.InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "config/version.json") || !strings.Contains(err.Error(), "line 2") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("want a one-line InputError naming config/version.json and line 2, got %v", err)
	}
	_, err = New(t.TempDir()).Collect(t.Context())
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "not an Insights archive") {
		t.Fatalf("empty directory: got %v", err)
	}
}

func TestRealInsightsArchives(t *testing.T) {
	root := shareddata.RealData(t, "")
	for _, tc := range []struct {
		dir                     string
		version                 string
		operators, nodes, pools int
		degraded, unavailable   []string
	}{
		{"insights-archive-sample-4.4", "4.4.0-0.nightly-2020-03-18-092817", 30, 0, 0, nil, nil},
		// The upstream sample's machineconfigpools/master.json holds the worker pool
		// again (metadata.name worker), so one pool is read.
		{"insights-archive-sample-4.7", "4.7.16", 31, 2, 1, []string{"clusteroperator/ingress"}, nil},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			s, err := New(filepath.Join(root, tc.dir)).Collect(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if s.Summary.DesiredVersion != tc.version || s.Summary.HistoryState != "Completed" || s.CVOMode() != inspect.ModeReconciling {
				t.Errorf("claim: %s %s mode %s", s.Summary.DesiredVersion, s.Summary.HistoryState, s.CVOMode())
			}
			if len(s.ClusterOperators) != tc.operators || len(s.Nodes) != tc.nodes || len(s.MachineConfigPools) != tc.pools {
				t.Errorf("read %d operators, %d nodes, %d pools", len(s.ClusterOperators), len(s.Nodes), len(s.MachineConfigPools))
			}
			if got := subjects(s, inspect.CodeOperatorDegraded); strings.Join(got, ",") != strings.Join(tc.degraded, ",") {
				t.Errorf("Degraded operators %v, want %v", got, tc.degraded)
			}
			if got := subjects(s, inspect.CodeOperatorUnavailable); len(got) != len(tc.unavailable) {
				t.Errorf("Unavailable operators %v, want %v", got, tc.unavailable)
			}
			for _, code := range []string{inspect.CodeUpdateClaimedCompleteButMixed, inspect.CodeMixedOperatorVersions, inspect.CodeKubeletNewerThanAPIServer, inspect.CodeKubeletSkewTooLarge} {
				if got := subjects(s, code); len(got) > 0 {
					t.Errorf("a settled %s cluster reports %s: %v", tc.version, code, got)
				}
			}
		})
	}
}

// tarGz archives dir under prefix into a temporary .tar.gz.
func tarGz(t *testing.T, dir, prefix string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if err := tw.WriteHeader(&tar.Header{Name: prefix + filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	tw.Close()
	zw.Close()
	p := filepath.Join(t.TempDir(), "insights.tar.gz")
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestArchiveLogs: an archive's logs of a degraded operator's namespace
// (config/pod/<ns>/logs/<pod>/<container>_current.log) are read, as files and
// as a tar.gz's streamed entries, and their pod object gives the daemon's node.
func TestArchiveLogs(t *testing.T) {
	dir := "testdata/logs"
	for _, p := range []string{dir, tarGz(t, dir, "insights-operator/")} {
		s, err := New(p).Collect(t.Context())
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if s.Logs == nil || len(s.Logs.Files) != 1 {
			t.Fatalf("%s: logs %+v", p, s.Logs)
		}
		f := s.Logs.Files[0]
		if f.Node != "master-0" || f.Family != inspect.LogFamilyMachineConfigDaemon || f.Lines != 5 {
			t.Errorf("%s: file %+v", p, f)
		}
		got := s.FindingsWithCode(inspect.CodeDrainBlockedByUnseenPDB)
		if len(got) != 1 || got[0].Subject != "namespace/payments" || got[0].Details["nodes"] != "master-0" || got[0].Details["count"] != "2" {
			t.Errorf("%s: DrainBlockedByUnseenPDB %+v", p, got)
		}
		for _, r := range s.Logs.Sources {
			if want := map[bool]inspect.CollectionState{true: inspect.Collected, false: inspect.Absent}[r.Namespace == "openshift-machine-config-operator"]; r.State != want {
				t.Errorf("%s: logs of %s %s, want %s", p, r.Namespace, r.State, want)
			}
		}
	}
}
